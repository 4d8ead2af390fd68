/**
 * Forwarded commands (`send()`/`serve()` of the store): a sender inserts a
 * row in `commands` under an id of its own choosing, with the deadline of
 * its wait, and NOTIFYs the owner's instance on the commands channel (an
 * insert whose connection was lost is tried again: on conflict, nothing);
 * the owner's store takes the row (once: `taken`; before the deadline), runs the
 * handler served for that instance and writes the reply, NOTIFYing the
 * replies channel; the sender collects it (on that notice, and by polling,
 * since a notice can be lost). A take or a reply that the owner's
 * connection lost is tried again while the database is out of reach
 * (`TAKE_RETRY_MS`, `REPLY_RETRY_MS`).
 */
import type postgres from "postgres";
import { type JsonObject, type TaskCommandHandler, TaskStorageError } from "@seam/gateway";
import type { ChannelNames } from "./_channels.ts";
import { isUnavailable, retryUnreachable, storageError } from "./_errors.ts";

/** How long an instance tries to write a command's reply while the database is out of reach, in ms. */
const REPLY_RETRY_MS = 30_000;
/** How long it tries to take a command so (under the 2 s over `cancelTimeoutMs` its sender waits). */
const TAKE_RETRY_MS = 1_500;

/** A reply being waited for. */
interface Waiter {
  resolve(reply: JsonObject): void;
  reject(error: unknown): void;
}

/** What the commands need from their store. */
export interface CommandsContext {
  readonly sql: postgres.Sql;
  /** The NOTIFY channels (commands to an instance, replies to a sender). */
  readonly names: ChannelNames;
  /** Whether the store is still open (a closed one takes and collects nothing). */
  isOpen(): boolean;
  /** Throws the port's error once the store closed. */
  assertOpen(): void;
  /** Settles after `ms`, unless the store closes first (then never: its close clears the timer). */
  sleep(ms: number): Promise<void>;
}

/** The commands this store sends and serves (see the module doc). */
export class Commands {
  /** The handler served per instance. */
  readonly #servers = new Map<string, TaskCommandHandler>();
  /** The sends waiting for a reply, by command id. */
  readonly #waiters = new Map<string, Waiter>();
  readonly #context: CommandsContext;

  constructor(context: CommandsContext) {
    this.#context = context;
  }

  /**
   * Send `command` to `instance` and wait up to `timeoutMs` for its reply.
   *
   * The command's id is chosen here, so its insert is tried again (on
   * conflict, nothing) after a connection lost on the way, until the
   * deadline: one lost after its commit is not answered 503 while the owner
   * runs the command (and a client retrying it runs it twice). Once the
   * send gives up (no reply by the deadline, or the database out of reach
   * that long) it revokes the command, so no owner takes it later: the
   * command ran if an owner took it before then (its effect shows in the
   * task), and never will otherwise. An owner takes a command only before
   * its deadline, which holds even when the revoke cannot reach the
   * database either.
   */
  async send(instance: string, command: JsonObject, timeoutMs: number): Promise<JsonObject> {
    this.#context.assertOpen();
    const sql = this.#context.sql;
    const channel = this.#context.names.commands;
    const id = crypto.randomUUID();
    const text = JSON.stringify(command);
    const end = Date.now() + timeoutMs;
    let attempts = 0;
    let confirmed = false;
    let answered = false;
    let settled = false;
    const insert = () => {
      if (settled) return Promise.resolve();
      attempts++;
      return sql`
        WITH c AS (
          INSERT INTO commands (id, target, command, deadline) VALUES (${id}, ${instance}, ${text},
            now() + make_interval(secs => ${Math.max(0, end - Date.now()) / 1000}))
          ON CONFLICT (id) DO NOTHING RETURNING id)
        SELECT pg_notify(${channel}, ${instance} || ':' || c.id) FROM c`.then(() => {
        if (!settled) confirmed = true;
      });
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    let poll: ReturnType<typeof setInterval> | undefined;
    try {
      const reply = await new Promise<JsonObject>((resolve, reject) => {
        // Waited for from the first attempt: the owner may answer one whose
        // answer to us was lost (its notice comes all the same).
        this.#waiters.set(id, { resolve, reject });
        timer = setTimeout(() => {
          reject(
            new TaskStorageError(
              "UNAVAILABLE",
              `Cannot send a command: instance "${instance}" did not answer within ${timeoutMs} ms (${
                confirmed
                  ? "if it took the command by then, it ran; it takes it no more"
                  : "PostgreSQL did not confirm the command; it runs by then or never"
              })`,
            ),
          );
        }, timeoutMs);
        poll = setInterval(() => this.collect(id), 250);
        retryUnreachable(end - Date.now(), (ms) => this.#context.sleep(ms), insert).then(
          // The reply may have come before we waited for it, or its notice got lost.
          () => this.collect(id),
          (error) =>
            reject(
              isUnavailable(error)
                ? new TaskStorageError(
                  "UNAVAILABLE",
                  `Cannot send a command to instance "${instance}" within ${timeoutMs} ms: PostgreSQL is unreachable (${
                    error instanceof Error ? error.message : String(error)
                  }); if the command was stored, it runs by then or never`,
                  { cause: error },
                )
                : storageError(error, "send a command"),
            ),
        );
      });
      answered = true;
      return reply;
    } finally {
      settled = true;
      clearTimeout(timer);
      clearInterval(poll);
      this.#waiters.delete(id);
      if (answered && attempts === 1 && confirmed) {
        // Taken and answered, and no attempt of the insert is still on its
        // way (one landing after the DELETE would be a new command).
        sql`DELETE FROM commands WHERE id = ${id}`.catch(() => {});
      } else if (!answered) {
        // Revoked, whether its insert committed or is still on its way (it
        // then finds this row and does nothing); an owner that took it
        // already ran it. Left for the heartbeat's clean-up, as an answered
        // command whose insert was tried more than once.
        sql`
          INSERT INTO commands (id, target, command, taken, deadline)
          VALUES (${id}, ${instance}, ${text}, true, now())
          ON CONFLICT (id) DO UPDATE SET taken = true`.catch(() => {});
      }
    }
  }

  /** Run the commands sent to `instance` with `handler`, until the returned function is called. */
  serve(instance: string, handler: TaskCommandHandler): () => void {
    if (this.#servers.has(instance)) {
      throw new TypeError(`Cannot serve commands: instance "${instance}" is served already`);
    }
    this.#servers.set(instance, handler);
    this.#sweep(instance);
    return () => {
      if (this.#servers.get(instance) === handler) this.#servers.delete(instance);
    };
  }

  /** After the listening connection (re)connected: take and collect what its notices missed. */
  catchUp(): void {
    for (const instance of this.#servers.keys()) this.#sweep(instance);
    for (const id of this.#waiters.keys()) this.collect(id);
  }

  /** The store closed: every wait rejects, nothing is served. */
  close(): void {
    for (const waiter of this.#waiters.values()) {
      waiter.reject(
        new TaskStorageError("UNAVAILABLE", "Cannot wait for a reply: the store closed"),
      );
    }
    this.#waiters.clear();
    this.#servers.clear();
  }

  /** Run command `id` if it is addressed to an instance served here and nobody took it. */
  take(target: string, id: string): void {
    const handler = this.#servers.get(target);
    if (!handler || !this.#context.isOpen()) return;
    const sql = this.#context.sql;
    const sleep = (ms: number) => this.#context.sleep(ms);
    (async () => {
      // Taken again after a connection lost on the way (one lost after its
      // commit finds the command taken, and the sender times out as before),
      // for less time than any sender waits, and only before its deadline:
      // none runs after its 503.
      const rows = await retryUnreachable(TAKE_RETRY_MS, sleep, () =>
        sql<{ command: string }[]>`
          UPDATE commands SET taken = true WHERE id = ${id} AND NOT taken AND deadline > now()
          RETURNING command`);
      if (rows.length === 0) return;
      let reply: JsonObject;
      try {
        reply = await handler(JSON.parse(rows[0].command));
      } catch (error) {
        reply = { error: { message: error instanceof Error ? error.message : String(error) } };
      }
      // The command ran: a reply lost with its connection (killed, the
      // database failing over) left the sender to answer 503 for a cancel
      // or a message that took effect. Written again while the database is
      // out of reach (the sender polls for it; once it gave up, nobody reads
      // it, and the heartbeat's clean-up deletes the row).
      const text = JSON.stringify(reply);
      await retryUnreachable(REPLY_RETRY_MS, sleep, () =>
        sql`
          WITH u AS (UPDATE commands SET reply = ${text} WHERE id = ${id} RETURNING id)
          SELECT pg_notify(${this.#context.names.replies}, u.id) FROM u`);
    })().catch(() => {
      // The sender times out and says so; nothing here to tell.
    });
  }

  /** Resolve the waiter of command `id` if its reply is there. */
  collect(id: string): void {
    if (!this.#waiters.has(id) || !this.#context.isOpen()) return;
    this.#context.sql<{ reply: string }[]>`
      SELECT reply FROM commands WHERE id = ${id} AND reply IS NOT NULL`
      .then((rows) => {
        if (rows.length > 0) this.#waiters.get(id)?.resolve(JSON.parse(rows[0].reply));
      }, () => {});
  }

  /** Take the commands sent to `instance` while nobody listened. */
  #sweep(instance: string): void {
    this.#context.sql<{ id: string }[]>`
      SELECT id FROM commands WHERE target = ${instance} AND NOT taken AND deadline > now()`
      .then((rows) => {
        for (const row of rows) this.take(instance, row.id);
      }, () => {});
  }
}
