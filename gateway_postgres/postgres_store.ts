/** The {@linkcode TaskStorage} port on PostgreSQL (see {@linkcode createPostgresTaskStore}). */
import postgres from "postgres";
import {
  type JsonObject,
  type StoredTask,
  type StoredTaskAt,
  type TaskAppend,
  type TaskCommandHandler,
  type TaskListPage,
  type TaskListQuery,
  type TaskLogEntry,
  type TaskOrphansOptions,
  type TaskStorage,
  TaskStorageError,
  type TaskWaitingQuery,
} from "@seam/gateway";
import { refuseUnknownOptions } from "@seam/host";
import { type ChannelNames, channelNames, listenAll } from "./_channels.ts";
import { storageError } from "./_errors.ts";
import { migrate, TERMINAL_STATES, WAITING_STATES } from "./_migrations.ts";
import { GroupCommit } from "./_group_commit.ts";
import { Commands } from "./_commands.ts";
import { Watchers } from "./_watchers.ts";

/** Options of {@linkcode createPostgresTaskStore}. */
export interface PostgresTaskStoreOptions {
  /**
   * The connection string: `postgres://user:password@host:5432/database`.
   * The store's sessions run read committed whatever the server defaults to;
   * a URL that sets another `default_transaction_isolation` is refused.
   */
  readonly url: string;
  /**
   * The schema the tables live in (created if missing): one per service, so
   * several services (or test runs) share a database. Default `"seam"`.
   */
  readonly schema?: string;
  /** How long an instance's lease lasts after its heartbeat, in ms. Default 10,000. */
  readonly leaseTtlMs?: number;
  /** Most connections in the pool (one more listens). Default 10. */
  readonly maxConnections?: number;
  /** How long connecting may take before a request answers unavailable, in ms. Default 5,000. */
  readonly connectTimeoutMs?: number;
  /**
   * How long `close()` lets statements in flight finish before it ends their
   * connections under them, in ms (0: at once). Default 5,000. A connection
   * lost with a statement on it (the database restarted, the network cut)
   * holds `close()` this long: the client (postgres.js 3.4.9, its issue
   * #1097) keeps counting that statement in flight until it ends the
   * connection itself.
   */
  readonly closeGraceMs?: number;
  /**
   * Batches of appends written at once (group commit): the appends of other
   * tasks that come meanwhile wait and are written together, in one
   * statement and one commit, when one finishes. A lone append is written at
   * once; beside a batch in flight another starts only once eight appends
   * wait. Default 2.
   */
  readonly appendsInFlight?: number;
  /**
   * `false`: the store's sessions commit with `synchronous_commit = off`, so
   * an append (and the answer that waits for it) no longer waits for
   * PostgreSQL to flush its WAL to disk. The risk: if the PostgreSQL server
   * crashes (or its machine loses power), the commits of the last moments
   * (up to three times `wal_writer_delay`, 600 ms by default) are lost,
   * though the gateway had announced them; the database stays consistent. A
   * gateway instance crashing loses nothing either way. Default: as the
   * server has it (`synchronous_commit`, `on` unless configured otherwise).
   */
  readonly synchronousCommit?: boolean;
}

/** Every option of {@linkcode PostgresTaskStoreOptions}. */
const STORE_OPTIONS = [
  "url",
  "schema",
  "leaseTtlMs",
  "maxConnections",
  "connectTimeoutMs",
  "closeGraceMs",
  "appendsInFlight",
  "synchronousCommit",
] satisfies (keyof PostgresTaskStoreOptions)[];

/** A {@linkcode TaskStorage} on PostgreSQL; close it once every gateway on it closed. */
export interface PostgresTaskStore extends TaskStorage {
  /** Always true: every instance on the same schema shares it. */
  readonly shared: true;
  /** The schema its tables live in. */
  readonly schema: string;
  /** How many migrations start-up applied (0: the schema was current). */
  readonly migrationsApplied: number;
  /** Whether the lease of `instance` is current (its row in `instances` not expired). */
  leased(instance: string): Promise<boolean>;
  /** The tasks waiting for input that `query` selects, read through an index of those alone. */
  waiting(query: TaskWaitingQuery): Promise<readonly StoredTaskAt[]>;
  /**
   * Close the connections, once statements in flight finished or within
   * `closeGraceMs`; pending replies reject. Memoized.
   */
  close(): Promise<void>;
}

interface TaskRow {
  task: string;
  owner: string | null;
  provider: string;
  updated_at: number;
  generation: number;
  instance: string | null;
}

function toRecord(row: TaskRow): StoredTaskAt {
  const out: StoredTaskAt = {
    task: JSON.parse(row.task),
    owner: row.owner ?? undefined,
    provider: row.provider,
    updatedAt: row.updated_at,
    generation: row.generation,
  };
  if (row.instance !== null) (out as { instance?: string }).instance = row.instance;
  return out;
}

type StoreState = "open" | "closed";

/** What the push config store and the push outbox of this package use of a task store. */
export interface StoreInternals {
  /** The pool. */
  readonly sql: postgres.Sql;
  /** Called after a local append that wrote push notifications committed. */
  onPushed(listener: () => void): () => void;
  /** Run a query, its failure as the port's error (`UNAVAILABLE` when out of reach). */
  run<T>(action: string, query: () => Promise<T>): Promise<T>;
}

const INTERNALS = new WeakMap<object, StoreInternals>();

/**
 * The internals of a store made by `createPostgresTaskStore`.
 *
 * @throws {TypeError} for anything else.
 */
export function storeInternals(store: unknown, what: string): StoreInternals {
  const internals = typeof store === "object" && store !== null ? INTERNALS.get(store) : undefined;
  if (!internals) {
    throw new TypeError(
      `Cannot create ${what}: pass the store createPostgresTaskStore() made (its pool and schema are shared)`,
    );
  }
  return internals;
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,39}$/;

/** The store itself, behind {@linkcode createPostgresTaskStore}. */
export class PostgresStore implements PostgresTaskStore {
  readonly shared = true as const;
  readonly schema: string;
  readonly leaseTtlMs: number;
  migrationsApplied = 0;
  #state: StoreState = "open";
  readonly #sql: postgres.Sql;
  readonly #names: ChannelNames;
  #unlisten: (() => Promise<void>) | undefined;
  /** The tasks this store listens to, and its rows in the watchers table. */
  readonly #watchers: Watchers;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #pushed = new Set<() => void>();
  readonly #group: GroupCommit;
  readonly #commands: Commands;
  #beats = 0;
  #closing: Promise<void> | undefined;
  readonly #closeGraceMs: number;

  constructor(options: PostgresTaskStoreOptions) {
    refuseUnknownOptions("create the PostgreSQL task store", options, STORE_OPTIONS);
    if (!options || typeof options.url !== "string" || options.url === "") {
      throw new TypeError(
        "Cannot create the PostgreSQL task store: options.url must be a connection string",
      );
    }
    const schema = options.schema ?? "seam";
    if (!SCHEMA.test(schema)) {
      throw new TypeError(
        `Cannot create the PostgreSQL task store: schema must be a lowercase identifier of at most 40 characters, got ${
          JSON.stringify(schema)
        }`,
      );
    }
    if (options.synchronousCommit !== undefined && typeof options.synchronousCommit !== "boolean") {
      throw new TypeError(
        `Cannot create the PostgreSQL task store: synchronousCommit must be a boolean, got ${
          JSON.stringify(options.synchronousCommit)
        }`,
      );
    }
    const isolation = urlIsolation(options.url);
    if (isolation !== undefined && isolation !== "read committed") {
      throw new TypeError(
        `Cannot create the PostgreSQL task store: the URL sets default_transaction_isolation to ${
          JSON.stringify(isolation)
        }, and the store needs read committed (an append to a task another instance changed meanwhile must answer a conflict, not fail to serialize); remove it from the URL`,
      );
    }
    const ttl = options.leaseTtlMs ?? 10_000;
    if (!Number.isSafeInteger(ttl) || ttl < 100) {
      throw new RangeError(
        `Cannot create the PostgreSQL task store: leaseTtlMs must be an integer of at least 100, got ${ttl}`,
      );
    }
    const grace = options.closeGraceMs ?? 5_000;
    if (typeof grace !== "number" || !Number.isFinite(grace) || grace < 0) {
      throw new RangeError(
        `Cannot create the PostgreSQL task store: closeGraceMs must be a number of at least 0, got ${
          typeof grace === "number" ? grace : JSON.stringify(grace)
        }`,
      );
    }
    this.#closeGraceMs = grace;
    this.schema = schema;
    this.leaseTtlMs = ttl;
    this.#names = channelNames(schema);
    this.#sql = postgres(options.url, {
      max: options.maxConnections ?? 10,
      connect_timeout: Math.ceil((options.connectTimeoutMs ?? 5_000) / 1000),
      idle_timeout: 60,
      // Reconnect within about a second of the database coming back (the
      // client's default backs off to 20 s after a few failed attempts).
      backoff: (attempts: number) => Math.min(0.05 * 2 ** attempts, 1) * (0.5 + Math.random() / 2),
      onnotice: () => {},
      connection: {
        search_path: schema,
        application_name: "seam-gateway",
        // Whatever the server, database or role defaults to: every statement
        // of the store is written for read committed (an UPDATE at the
        // expected generation re-reads a row another commit changed, and
        // answers no row, a conflict; repeatable read fails it with 40001).
        default_transaction_isolation: "read committed",
        ...(options.synchronousCommit === false ? { synchronous_commit: "off" } : {}),
      },
    });
    const inFlight = options.appendsInFlight ?? 2;
    if (!Number.isSafeInteger(inFlight) || inFlight < 1) {
      throw new RangeError(
        `Cannot create the PostgreSQL task store: appendsInFlight must be a positive integer, got ${inFlight}`,
      );
    }
    this.#watchers = new Watchers({
      sql: this.#sql,
      isOpen: () => this.#state === "open",
      timers: this.#timers,
    });
    this.#group = new GroupCommit({
      sql: this.#sql,
      channel: this.#names.events,
      maxInFlight: inFlight,
      maxBatch: 64,
      assertOpen: () => this.#assertOpen(),
      committed: (written, pushed) => {
        // Committed: wake this instance's listeners now, not after NOTIFY's round trip.
        for (const w of written) this.#watchers.wake(w.id, w.generation);
        if (pushed) {
          for (const listener of [...this.#pushed]) {
            try {
              listener();
            } catch {
              // A listener's fault is its own.
            }
          }
        }
      },
    });
    this.#commands = new Commands({
      sql: this.#sql,
      names: this.#names,
      isOpen: () => this.#state === "open",
      assertOpen: () => this.#assertOpen(),
      sleep: (ms) => this.#sleep(ms),
    });
    INTERNALS.set(this, {
      sql: this.#sql,
      onPushed: (listener) => {
        this.#pushed.add(listener);
        return () => this.#pushed.delete(listener);
      },
      run: (action, query) => this.#run(action, query),
    });
  }

  /** Migrate and listen: the store is ready once this resolves. */
  async open(): Promise<void> {
    try {
      this.migrationsApplied = await migrate(this.#sql, this.schema);
      this.#unlisten = await listenAll(this.#sql, this.#names, {
        event: (id, generation) => this.#watchers.wake(id, generation),
        command: (target, id) => this.#commands.take(target, id),
        reply: (id) => this.#commands.collect(id),
        reconnected: () => this.#catchUp(),
      });
    } catch (error) {
      await this.#sql.end({ timeout: 1 }).catch(() => {});
      throw error;
    }
  }

  async get(id: string): Promise<StoredTaskAt | undefined> {
    const rows = await this.#run("read a task", () =>
      this.#sql<TaskRow[]>`
        SELECT task, owner, provider, updated_at, generation, instance FROM tasks WHERE id = ${id}`);
    return rows.length === 0 ? undefined : toRecord(rows[0]);
  }

  async put(record: StoredTask): Promise<void> {
    const t = record.task;
    await this.#run("store a task", () =>
      this.#sql`
        INSERT INTO tasks (id, context_id, owner, provider, state, updated_at, generation, instance, task)
        VALUES (${t.id}, ${t.contextId}, ${record.owner ?? null}, ${record.provider},
          ${t.status.state}, ${record.updatedAt}, 0, ${record.instance ?? null}, ${
        JSON.stringify(t)
      })
        ON CONFLICT (id) DO UPDATE SET context_id = EXCLUDED.context_id, owner = EXCLUDED.owner,
          provider = EXCLUDED.provider, state = EXCLUDED.state, updated_at = EXCLUDED.updated_at,
          task = EXCLUDED.task`);
  }

  async list(query: TaskListQuery): Promise<TaskListPage> {
    const sql = this.#sql;
    // `owner = $1` or `owner IS NULL`, not IS NOT DISTINCT FROM, which no
    // index takes; and the page ordered by owner first (one owner: the same
    // order), as `tasks_by_owner` is, which IS NULL alone does not let the
    // planner see: a page is read from the index, not sorted from the table.
    const where = sql`${
      query.owner === undefined ? sql`owner IS NULL` : sql`owner = ${query.owner}`
    }
      ${query.provider === undefined ? sql`` : sql`AND provider = ${query.provider}`}
      ${query.contextId === undefined ? sql`` : sql`AND context_id = ${query.contextId}`}
      ${query.state === undefined ? sql`` : sql`AND state = ${query.state}`}
      ${query.updatedAfter === undefined ? sql`` : sql`AND updated_at > ${query.updatedAfter}`}`;
    const after = query.after;
    const [rows, counted] = await this.#run("list tasks", () =>
      Promise.all([
        sql<TaskRow[]>`
          SELECT task, owner, provider, updated_at, generation, instance FROM tasks
          WHERE ${where}
          ${after ? sql`AND (updated_at, id) < (${after.updatedAt}, ${after.id})` : sql``}
          ORDER BY owner, updated_at DESC, id DESC LIMIT ${query.limit}`,
        sql<{ n: number }[]>`SELECT count(*)::integer AS n FROM tasks WHERE ${where}`,
      ]));
    return { tasks: rows.map(toRecord), total: counted[0]?.n ?? 0 };
  }

  append(change: TaskAppend): Promise<number> {
    const r = change?.record;
    const t = r?.task;
    if (typeof t?.id !== "string" || !Array.isArray(change.events) || change.events.length === 0) {
      return Promise.reject(
        new TypeError(
          "Cannot append to a task's log: give a record with a task id and at least one event",
        ),
      );
    }
    try {
      return this.#group.append(change);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async read(id: string, after: number, limit: number): Promise<readonly TaskLogEntry[]> {
    if (!(limit > 0)) return [];
    // A row holds one append's events, keyed by its last generation: the rows
    // ending after the cursor, of which the first may begin before it. Each
    // row holds at least one event, so `limit` rows are enough.
    const rows = await this.#run(
      "read a task's log",
      () =>
        this.#sql<{ generation: number; events: string }[]>`
        SELECT generation, events FROM events WHERE task_id = ${id} AND generation > ${after}
        ORDER BY generation LIMIT ${limit}`,
    );
    const out: TaskLogEntry[] = [];
    for (const row of rows) {
      const events = JSON.parse(row.events) as JsonObject[];
      const first = row.generation - events.length + 1;
      for (let i = Math.max(0, after + 1 - first); i < events.length; i++) {
        if (out.length === limit) return out;
        out.push({ generation: first + i, event: events[i] });
      }
    }
    return out;
  }

  subscribe(id: string, listener: (generation: number) => void): () => void {
    return this.#watchers.subscribe(id, listener);
  }

  async leased(instance: string): Promise<boolean> {
    const rows = await this.#run(
      "read an instance's lease",
      () => this.#sql`SELECT 1 FROM instances WHERE id = ${instance} AND expires_at > now()`,
    );
    return rows.length > 0;
  }

  async heartbeat(instance: string): Promise<void> {
    const sql = this.#sql;
    await this.#run("renew an instance's lease", () =>
      sql`
        INSERT INTO instances (id, expires_at)
        VALUES (${instance}, now() + make_interval(secs => ${this.leaseTtlMs / 1000}))
        ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at`);
    if (++this.#beats % 20 === 0) {
      // Now and then: forget long-gone instances, the watchers of stores gone
      // for a day (killed: their rows stayed) and commands nobody collected.
      // This store's own rows are renewed instead, hours before a day: a
      // stream open here that long would hear nothing more once its row went.
      // Its failure is not the lease's, which is renewed: it is tried again
      // twenty beats later, and the heartbeat came through (a failed one
      // makes the gateway refuse new tasks and wait a lease before reaping).
      await this.#run("clean up", () =>
        sql`
          WITH a AS (DELETE FROM instances WHERE expires_at < now() - interval '1 day'),
            r AS (UPDATE watchers SET created_at = now()
              WHERE watcher = ${this.#watchers.id} AND created_at < now() - interval '1 hour'),
            w AS (DELETE FROM watchers
              WHERE created_at < now() - interval '1 day' AND watcher <> ${this.#watchers.id})
          DELETE FROM commands WHERE created_at < now() - interval '10 minutes'`)
        .catch(() => {});
    }
  }

  async orphans(limit: number, options?: TaskOrphansOptions): Promise<readonly StoredTaskAt[]> {
    const sql = this.#sql;
    const exclude = options?.excludeInstance;
    // The live tasks are read through tasks_live (its predicate is this
    // one), and the few left sorted: an index on updated_at would cost every
    // append for a query run every third of a lease. IS DISTINCT FROM keeps
    // the tasks with no instance, which <> would leave out.
    const rows = await this.#run("find orphaned tasks", () =>
      sql<TaskRow[]>`
        SELECT task, owner, provider, updated_at, generation, instance FROM tasks t
        WHERE state NOT IN ${sql.unsafe(TERMINAL_STATES)}
          ${exclude === undefined ? sql`` : sql`AND t.instance IS DISTINCT FROM ${exclude}`}
          AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = t.instance AND i.expires_at > now())
        ORDER BY updated_at, id
        LIMIT ${limit}`);
    return rows.map(toRecord);
  }

  async waiting(query: TaskWaitingQuery): Promise<readonly StoredTaskAt[]> {
    const sql = this.#sql;
    // Read through tasks_waiting (its predicate is this one's state test),
    // which holds the waiting tasks alone: a context's ended tasks, however
    // many, are never read.
    const rows = await this.#run("find the tasks waiting for input", () =>
      sql<TaskRow[]>`
        SELECT task, owner, provider, updated_at, generation, instance FROM tasks
        WHERE context_id = ${query.contextId} AND state IN ${sql.unsafe(WAITING_STATES)}
          AND ${query.owner === undefined ? sql`owner IS NULL` : sql`owner = ${query.owner}`}
          ${query.provider === undefined ? sql`` : sql`AND provider = ${query.provider}`}
        ORDER BY updated_at DESC, id DESC
        LIMIT ${query.limit}`);
    return rows.map(toRecord);
  }

  send(instance: string, command: JsonObject, timeoutMs: number): Promise<JsonObject> {
    return this.#commands.send(instance, command, timeoutMs);
  }

  serve(instance: string, handler: TaskCommandHandler): () => void {
    return this.#commands.serve(instance, handler);
  }

  close(): Promise<void> {
    return this.#closing ??= (async () => {
      this.#state = "closed";
      this.#commands.close();
      this.#watchers.clear();
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      await this.#sql`DELETE FROM watchers WHERE watcher = ${this.#watchers.id}`.catch(() => {});
      await this.#unlisten?.().catch(() => {});
      await this.#sql.end({ timeout: this.#closeGraceMs / 1_000 });
    })();
  }

  #assertOpen(): void {
    if (this.#state !== "open") {
      throw new TaskStorageError(
        "UNAVAILABLE",
        "Cannot use the PostgreSQL task store: it is closed",
      );
    }
  }

  async #run<T>(action: string, query: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    try {
      return await query();
    } catch (error) {
      throw storageError(error, action);
    }
  }

  #catchUp(): void {
    this.#watchers.catchUp();
    this.#commands.catchUp();
  }

  /** Settles after `ms`, unless the store closes first (then never: close() clears its timer). */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, ms);
      this.#timers.add(timer);
    });
  }
}

/**
 * The `default_transaction_isolation` a connection URL sets, lowercased,
 * if any (the client sends the URL's parameters after the store's own, so
 * they would win). Read from the query alone, not through `URL`: the
 * client takes URLs `URL` refuses (several hosts, `h1:5432,h2:5432`), and
 * PostgreSQL reads setting names whatever their case.
 */
function urlIsolation(url: string): string | undefined {
  const query = url.indexOf("?");
  if (query === -1) return undefined;
  const end = url.indexOf("#", query);
  let value: string | undefined;
  for (const [key, v] of new URLSearchParams(url.slice(query + 1, end === -1 ? undefined : end))) {
    if (key.trim().toLowerCase() === "default_transaction_isolation") value = v;
  }
  return value?.trim().toLowerCase().replace(/\s+/g, " ");
}
