/**
 * The schema, as numbered migrations the store applies itself at start-up,
 * each once, in order, in its own transaction, under an advisory lock so
 * instances starting together do not race. A migration that cannot apply
 * stops start-up with the reason; so does a database already migrated
 * further than this code knows.
 */
import type postgres from "postgres";

/** One step of the schema. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const TERMINAL =
  `('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')`;

const WAITING = `('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED')`;

/** Every migration, oldest first. Never edit one that shipped: add the next. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "tasks, events, instances, commands",
    sql: `
      CREATE TABLE tasks (
        id text COLLATE "C" PRIMARY KEY,
        context_id text NOT NULL,
        owner text,
        provider text NOT NULL,
        state text NOT NULL,
        updated_at double precision NOT NULL,
        generation integer NOT NULL,
        instance text,
        task text NOT NULL
      );
      CREATE INDEX tasks_by_owner ON tasks (owner, updated_at DESC, id DESC);
      CREATE INDEX tasks_live ON tasks (instance) WHERE state NOT IN ${TERMINAL};
      CREATE TABLE events (
        task_id text COLLATE "C" NOT NULL,
        generation integer NOT NULL,
        event text NOT NULL,
        PRIMARY KEY (task_id, generation)
      );
      CREATE TABLE instances (
        id text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      );
      CREATE TABLE commands (
        id bigserial PRIMARY KEY,
        target text NOT NULL,
        command text NOT NULL,
        taken boolean NOT NULL DEFAULT false,
        reply text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX commands_open ON commands (target) WHERE NOT taken;
    `,
  },
  {
    version: 2,
    name: "watchers",
    // Who listens to a task: an append notifies only when someone does
    // (NOTIFY serializes committing transactions; bench/README.md).
    sql: `
      CREATE TABLE watchers (
        task_id text COLLATE "C" NOT NULL,
        watcher text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (task_id, watcher)
      );
    `,
  },
  {
    version: 3,
    name: "push configs and the push outbox",
    // The outbox is written by the append that commits the change each row
    // announces (one row per config of the task), claimed by any instance
    // with FOR UPDATE SKIP LOCKED and a lease, and deleted once delivered or
    // dropped. A webhook's rows go out in seq order, one at a time.
    sql: `
      CREATE TABLE push_configs (
        task_id text COLLATE "C" NOT NULL,
        id text NOT NULL,
        seq bigserial NOT NULL,
        url text NOT NULL,
        token text,
        authentication text,
        tenant text,
        PRIMARY KEY (task_id, id)
      );
      CREATE TABLE push_outbox (
        seq bigserial PRIMARY KEY,
        id text NOT NULL,
        task_id text COLLATE "C" NOT NULL,
        config_id text NOT NULL,
        url text NOT NULL,
        token text,
        authentication text,
        body text NOT NULL,
        created_at double precision NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        due_at timestamptz NOT NULL DEFAULT now(),
        claim text,
        lease_until timestamptz,
        last_error text
      );
      CREATE INDEX push_outbox_webhook ON push_outbox (url, seq);
      CREATE INDEX push_outbox_due ON push_outbox (due_at);
      CREATE INDEX push_outbox_config ON push_outbox (task_id, config_id);
    `,
  },
  {
    version: 4,
    name: "events, one row per append",
    // An append's events in one row, as a JSON array, keyed by the last
    // generation in it (the first is that less the array's length, plus
    // one): a run that ends at once wrote four rows and four index entries,
    // now one of each (bench/README.md, "Gateway on PostgreSQL"). The rows of
    // migration 1 become rows of one event.
    sql: `
      ALTER TABLE events RENAME TO events_v1;
      ALTER TABLE events_v1 RENAME CONSTRAINT events_pkey TO events_v1_pkey;
      CREATE TABLE events (
        task_id text COLLATE "C" NOT NULL,
        generation integer NOT NULL,
        events text NOT NULL,
        PRIMARY KEY (task_id, generation)
      );
      INSERT INTO events (task_id, generation, events)
        SELECT task_id, generation, '[' || event || ']' FROM events_v1;
      DROP TABLE events_v1;
    `,
  },
  {
    version: 5,
    name: "events and snapshots inline up to 8 kB",
    // An append's row (~4 kB for a run that ends at once) went past the 2 kB
    // at which PostgreSQL compresses a row's long values: pglz on every
    // append, in the committing transaction. Rows stay as they are up to
    // 8 kB now; past that lz4 compresses them where the server has it
    // (PostgreSQL 14+ built with it), pglz otherwise.
    sql: `
      ALTER TABLE events SET (toast_tuple_target = 8160);
      ALTER TABLE tasks SET (toast_tuple_target = 8160);
      DO $$ BEGIN
        EXECUTE 'ALTER TABLE events ALTER COLUMN events SET COMPRESSION lz4';
        EXECUTE 'ALTER TABLE tasks ALTER COLUMN task SET COMPRESSION lz4';
      EXCEPTION WHEN OTHERS THEN
        NULL; -- no lz4 here: the default compression stays
      END $$;
    `,
  },
  {
    version: 6,
    name: "commands keyed by their sender, with a deadline",
    // The sender chooses a command's id, so that an insert whose answer its
    // connection lost is tried again (ON CONFLICT DO NOTHING) instead of
    // answering 503 for a command the owner then runs; the owner takes a
    // command only before its sender's deadline, so none runs after the
    // sender gave up, even one whose sender could not revoke it. The rows of
    // earlier versions go: their senders stopped with them (instances of a
    // service are upgraded together), and none has a deadline.
    sql: `
      DELETE FROM commands;
      ALTER TABLE commands
        ALTER COLUMN id DROP DEFAULT,
        ALTER COLUMN id TYPE text COLLATE "C",
        ADD COLUMN deadline timestamptz NOT NULL;
      DROP SEQUENCE commands_id_seq;
    `,
  },
  {
    version: 7,
    name: "tasks by context",
    // `ListTasks` of a context and a follow-up's look-up of its context's
    // newest task (another instance may keep its run) read a context's few
    // tasks, not every task of their principal: among 50,000 tasks 0.4 ms
    // against 11–21 ms, for ~4 µs more of PostgreSQL's CPU per task created
    // (bench/postgres_list.ts; bench/README.md, session 12).
    sql: `
      CREATE INDEX tasks_by_context ON tasks (context_id, updated_at DESC, id DESC);
    `,
  },
  {
    version: 8,
    name: "tasks waiting for input, by context",
    // A message naming only its context (no taskId) answers the one task of
    // its principal waiting for input there, whichever instance runs it: each
    // such message reads the context's waiting tasks. Only those are indexed,
    // so the read costs the same however many ended tasks the context holds,
    // and a task enters the index only while it waits.
    sql: `
      CREATE INDEX tasks_waiting ON tasks (context_id, updated_at DESC, id DESC)
        WHERE state IN ${WAITING};
    `,
  },
];

/** The SQL a waiting-state test uses (the index's predicate, and the store's read). */
export const WAITING_STATES: string = WAITING;

/** The SQL a terminal-state test uses (shared with the store's queries). */
export const TERMINAL_STATES: string = TERMINAL;

/** The error {@linkcode migrate} throws: its class tells it apart (an `Error` all the same). */
class MigrationError extends Error {}

/**
 * Bring `schema` up to the newest migration.
 *
 * @throws {Error} "Cannot start the PostgreSQL task store: …" naming the
 * migration that failed and why.
 */
export async function migrate(
  sql: postgres.Sql,
  schema: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number> {
  const fail = (why: string, cause?: unknown): never => {
    throw new MigrationError(
      `Cannot start the PostgreSQL task store (schema "${schema}"): ${why}`,
      {
        cause,
      },
    );
  };
  let applied = 0;
  try {
    await sql.begin(async (tx) => {
      // One key per schema: instances of another schema migrate in parallel.
      await tx`SELECT pg_advisory_xact_lock(hashtext(${`seam-gateway:${schema}`}))`;
      await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await tx.unsafe(
        `CREATE TABLE IF NOT EXISTS "${schema}".migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`,
      );
      const rows = await tx.unsafe(`SELECT max(version) AS v FROM "${schema}".migrations`);
      const current = Number(rows[0]?.v ?? 0);
      const newest = migrations[migrations.length - 1]?.version ?? 0;
      if (current > newest) {
        fail(
          `the database's schema is at migration ${current}, newer than this version of @seam/gateway-postgres knows (${newest}); upgrade the gateway`,
        );
      }
      for (const m of migrations) {
        if (m.version <= current) continue;
        try {
          await tx.savepoint(async (sp) => {
            await sp.unsafe(`SET LOCAL search_path TO "${schema}"`);
            await sp.unsafe(m.sql);
            await sp.unsafe(
              `INSERT INTO "${schema}".migrations (version, name) VALUES ($1, $2)`,
              [m.version, m.name],
            );
          });
        } catch (error) {
          fail(
            `migration ${m.version} (${m.name}) failed: ${
              error instanceof Error ? error.message : String(error)
            }`,
            error,
          );
        }
        applied++;
      }
    });
  } catch (error) {
    if (error instanceof MigrationError) throw error; // fail()'s own, already worded
    fail(`cannot migrate: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  return applied;
}
