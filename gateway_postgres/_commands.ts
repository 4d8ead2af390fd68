/**
 * Forwarded commands (`send()`/`serve()` of the store): a sender inserts a
 * row in `commands` and NOTIFYs the owner's instance on the commands
 * channel; the owner's store takes the row (once: `taken`), runs the
 * handler served for that instance and writes the reply, NOTIFYing the
 * replies channel; the sender collects it (on that notice, and by polling,
 * since a notice can be lost). A take or a reply that the owner's
 * connection lost is tried again while the database is out of reach
 * (`TAKE_RETRY_MS`, `REPLY_RETRY_MS`).
 */
import type postgres from "postgres";
import { type JsonObject, type TaskCommandHandler, TaskStorageError } from "@seam/gateway";
import type { ChannelNames } from "./_channels.ts";
import { retryUnreachable } from "./_errors.ts";

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
  /** Run a query, its failure as the port's error (`UNAVAILABLE` when out of reach). */
  run<T>(action: string, query: () => Promise<T>): Promise<T>;
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

  /** Send `command` to `instance` and wait up to `timeoutMs` for its reply. */
  async send(instance: string, command: JsonObject, timeoutMs: number): Promise<JsonObject> {
    this.#context.assertOpen();
    const sql = this.#context.sql;
    const rows = await this.#context.run("send a command", () =>
      sql<{ id: string }[]>`
        WITH c AS (INSERT INTO commands (target, command) VALUES (${instance}, ${
        JSON.stringify(command)
      }) RETURNING id)
        SELECT c.id::text AS id, pg_notify(${this.#context.names.commands}, ${instance} || ':' || c.id::text)
        FROM c`);
    const id = rows[0].id;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let poll: ReturnType<typeof setInterval> | undefined;
    try {
      return await new Promise<JsonObject>((resolve, reject) => {
        this.#waiters.set(id, { resolve, reject });
        timer = setTimeout(() => {
          reject(
            new TaskStorageError(
              "UNAVAILABLE",
              `Cannot send a command: instance "${instance}" did not answer within ${timeoutMs} ms`,
            ),
          );
        }, timeoutMs);
        // The reply may have come before we waited for it, or its notice got lost.
        this.collect(id);
        poll = setInterval(() => this.collect(id), 250);
      });
    } finally {
      clearTimeout(timer);
      clearInterval(poll);
      this.#waiters.delete(id);
      sql`DELETE FROM commands WHERE id = ${id}`.catch(() => {});
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
      // for less time than any sender waits: none runs after its 503.
      const rows = await retryUnreachable(TAKE_RETRY_MS, sleep, () =>
        sql<{ command: string }[]>`
          UPDATE commands SET taken = true WHERE id = ${id} AND NOT taken RETURNING command`);
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
      // out of reach (the sender polls for it; once it gave up, its row is
      // gone and the write finds nothing).
      const text = JSON.stringify(reply);
      await retryUnreachable(REPLY_RETRY_MS, sleep, () =>
        sql`
          WITH u AS (UPDATE commands SET reply = ${text} WHERE id = ${id} RETURNING id)
          SELECT pg_notify(${this.#context.names.replies}, u.id::text) FROM u`);
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
      SELECT id::text AS id FROM commands WHERE target = ${instance} AND NOT taken`
      .then((rows) => {
        for (const row of rows) this.take(instance, row.id);
      }, () => {});
  }
}
