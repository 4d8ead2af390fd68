/**
 * The store's wake-ups over LISTEN/NOTIFY: one listening connection per
 * store, three channels per schema (events, commands, replies), payloads
 * that carry ids only (what changed lives in the tables). A reconnect of the
 * listening connection wakes everyone, since notifications sent while it was
 * down are gone.
 */
import type postgres from "postgres";

/** What the channels call back into. */
export interface ChannelHandlers {
  /** Task `id` reached `generation` (0 after a reconnect: anything may have changed). */
  event(id: string, generation: number): void;
  /** Command `id` was sent to `target`. */
  command(target: string, id: string): void;
  /** Command `id` has a reply. */
  reply(id: string): void;
  /** The listening connection (re)connected: catch up on anything missed. */
  reconnected(): void;
}

/** The channel names of one schema. */
export interface ChannelNames {
  readonly events: string;
  readonly commands: string;
  readonly replies: string;
}

/** The channel names for `schema` (identifiers of at most 63 bytes). */
export function channelNames(schema: string): ChannelNames {
  return {
    events: `${schema}_seam_events`,
    commands: `${schema}_seam_commands`,
    replies: `${schema}_seam_replies`,
  };
}

/** Split `a:b` at its last colon; undefined when there is none. */
function splitLast(payload: string): [string, string] | undefined {
  const at = payload.lastIndexOf(":");
  return at <= 0 ? undefined : [payload.slice(0, at), payload.slice(at + 1)];
}

/**
 * Listen on the three channels; resolves once all three listen. Returns how
 * to stop.
 */
export async function listenAll(
  sql: postgres.Sql,
  names: ChannelNames,
  handlers: ChannelHandlers,
): Promise<() => Promise<void>> {
  let first = 0;
  const onListen = () => {
    // Called on the first LISTEN and after every reconnect.
    if (first < 3) first++;
    else handlers.reconnected();
  };
  const listening = await Promise.all([
    sql.listen(names.events, (payload) => {
      const parts = splitLast(payload);
      const generation = parts ? Number(parts[1]) : NaN;
      if (parts && Number.isSafeInteger(generation)) handlers.event(parts[0], generation);
    }, onListen),
    sql.listen(names.commands, (payload) => {
      const parts = splitLast(payload);
      if (parts) handlers.command(parts[0], parts[1]);
    }, onListen),
    sql.listen(names.replies, (payload) => handlers.reply(payload), onListen),
  ]);
  return async () => {
    await Promise.all(listening.map((l) => l.unlisten().catch(() => {})));
  };
}
