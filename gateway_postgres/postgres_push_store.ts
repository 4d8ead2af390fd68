/** The gateway's {@linkcode PushConfigStore} on PostgreSQL (see {@linkcode createPostgresPushConfigStore}). */
import type { A2APushNotificationConfig, PushConfigStore } from "@seam/gateway";
import { refuseUnknownOptions } from "@seam/host";
import { type PostgresTaskStore, storeInternals } from "./postgres_store.ts";

/** Options of {@linkcode createPostgresPushConfigStore}. */
export interface PostgresPushConfigStoreOptions {
  /**
   * How long a bounded put (`maxPerTask`) waits for its task's lock, in ms,
   * while other puts of that task's configs hold it: past it the put fails
   * with `TaskStorageError` `UNAVAILABLE` (the request answers 503) rather
   * than hold a connection of the pool for as long as the holder takes.
   * Default 5,000; an integer of at least 1.
   */
  readonly lockTimeoutMs?: number;
}

interface ConfigRow {
  task_id: string;
  id: string;
  url: string;
  token: string | null;
  authentication: string | null;
  tenant: string | null;
}

function toConfig(row: ConfigRow): A2APushNotificationConfig {
  const config: { -readonly [K in keyof A2APushNotificationConfig]: A2APushNotificationConfig[K] } =
    { id: row.id, taskId: row.task_id, url: row.url };
  if (row.token !== null) config.token = row.token;
  if (row.authentication !== null) config.authentication = JSON.parse(row.authentication);
  if (row.tenant !== null) config.tenant = row.tenant;
  return config;
}

/**
 * Push-notification configs in the task store's database (table
 * `push_configs` of its schema), so every gateway instance sees every
 * config and an append writes one outbox row per config of its task in its
 * own transaction (`createPostgresPushOutbox`). The gateway's
 * `maxConfigsPerTask` holds across instances: a put counts the task's
 * configs under a lock of that task (an advisory lock in its transaction,
 * read committed whatever the connection's default isolation), so
 * instances adding configs to one task at once cannot pass it together.
 * A config stays with its task (as the task stays in `tasks`); `release`
 * keeps it readable.
 * Failures answer the port's `TaskStorageError` (`UNAVAILABLE` when the
 * database is out of reach, or a put waited `lockTimeoutMs` for its task's
 * lock: the request answers 503).
 *
 * @example
 * ```ts ignore
 * const taskStore = await createPostgresTaskStore({ url });
 * const gateway = createGateway({
 *   scope: host.scope,
 *   taskStore,
 *   push: {
 *     configStore: createPostgresPushConfigStore(taskStore),
 *     outbox: createPostgresPushOutbox(taskStore),
 *   },
 * });
 * ```
 *
 * @throws {TypeError} when `store` is not one `createPostgresTaskStore` made,
 * or for an unknown option (naming it and the known ones).
 * @throws {RangeError} when `lockTimeoutMs` is not an integer of at least 1
 * (and `put`, when its `maxPerTask` is not a positive integer).
 */
export function createPostgresPushConfigStore(
  store: PostgresTaskStore,
  options: PostgresPushConfigStoreOptions = {},
): PushConfigStore {
  const { sql, run } = storeInternals(store, "the PostgreSQL push config store");
  refuseUnknownOptions(
    "create the PostgreSQL push config store",
    options,
    [
      "lockTimeoutMs",
    ] satisfies (keyof PostgresPushConfigStoreOptions)[],
  );
  const lockTimeoutMs = options.lockTimeoutMs ?? 5_000;
  if (!Number.isSafeInteger(lockTimeoutMs) || lockTimeoutMs < 1) {
    throw new RangeError(
      `Cannot create the PostgreSQL push config store: lockTimeoutMs must be an integer of at least 1, got ${
        typeof lockTimeoutMs === "number" ? lockTimeoutMs : JSON.stringify(lockTimeoutMs)
      }`,
    );
  }
  const lockTimeout = `${lockTimeoutMs}ms`;
  // The advisory locks of this schema's config puts: a key space of its own
  // (two int4 keys never meet the migrations' one int8 key), a key per task.
  const lockSpace = `seam-gateway-push-configs:${store.schema}`;
  return {
    storedIn: store,
    async put(config, options) {
      const max = options?.maxPerTask;
      // Checked here, not by PostgreSQL: a fraction or Infinity would fail the
      // query with a raw 22P02 and a negative bound would refuse every put.
      if (max !== undefined && (!Number.isSafeInteger(max) || max < 1)) {
        throw new RangeError(
          `Cannot store a push config: maxPerTask must be a positive integer, got ${
            typeof max === "number" ? max : JSON.stringify(max)
          }`,
        );
      }
      const auth = config.authentication ? JSON.stringify(config.authentication) : null;
      if (max === undefined) {
        await run("store a push config", () =>
          sql`
            INSERT INTO push_configs (task_id, id, url, token, authentication, tenant)
            VALUES (${config.taskId}, ${config.id}, ${config.url}, ${config.token ?? null},
              ${auth}, ${config.tenant ?? null})
            ON CONFLICT (task_id, id) DO UPDATE SET url = EXCLUDED.url, token = EXCLUDED.token,
              authentication = EXCLUDED.authentication, tenant = EXCLUDED.tenant`);
        return true;
      }
      const kept = await run("store a push config", () =>
        // Read committed whatever the connection's default (a URL may set
        // `default_transaction_isolation`): the count below must see what the
        // puts before it committed, and under repeatable read the whole
        // transaction would count from its first statement's snapshot, taken
        // before the lock was granted (every put waiting would pass).
        sql.begin("isolation level read committed", async (tx) => {
          // The puts of one task's configs (from any instance) take turns here,
          // so each counts what the ones before it wrote. The lock is a
          // statement of its own: a statement's snapshot is taken before it
          // waits for a lock, so a count in the same statement would not. The
          // wait is bounded (lock_timeout, this transaction only): a put stuck
          // behind a holder that does not finish answers 503 (55P03).
          await tx`SELECT set_config('lock_timeout', ${lockTimeout}, true)`;
          await tx`SELECT pg_advisory_xact_lock(hashtext(${lockSpace}), hashtext(${config.taskId}))`;
          return await tx`
            INSERT INTO push_configs (task_id, id, url, token, authentication, tenant)
            SELECT ${config.taskId}::text, ${config.id}::text, ${config.url}::text,
              ${config.token ?? null}::text, ${auth}::text, ${config.tenant ?? null}::text
            WHERE EXISTS (SELECT 1 FROM push_configs WHERE task_id = ${config.taskId}
                AND id = ${config.id})
              OR (SELECT count(*) FROM push_configs WHERE task_id = ${config.taskId}) < ${max}
            ON CONFLICT (task_id, id) DO UPDATE SET url = EXCLUDED.url, token = EXCLUDED.token,
              authentication = EXCLUDED.authentication, tenant = EXCLUDED.tenant
            RETURNING 1`;
        }));
      return kept.length > 0 ? true : "task-full";
    },
    async list(taskId) {
      const rows = await run("read push configs", () =>
        sql<ConfigRow[]>`
          SELECT task_id, id, url, token, authentication, tenant FROM push_configs
          WHERE task_id = ${taskId} ORDER BY seq`);
      return rows.map(toConfig);
    },
    async delete(taskId, id) {
      await run(
        "delete a push config",
        () => sql`DELETE FROM push_configs WHERE task_id = ${taskId} AND id = ${id}`,
      );
    },
    // The configs stay with their task; nothing to make room for.
    release() {},
  };
}
