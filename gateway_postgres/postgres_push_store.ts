/** The gateway's {@linkcode PushConfigStore} on PostgreSQL (see {@linkcode createPostgresPushConfigStore}). */
import type { A2APushNotificationConfig, PushConfigStore } from "@seam/gateway";
import { type PostgresTaskStore, storeInternals } from "./postgres_store.ts";

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
 * own transaction (`createPostgresPushOutbox`). A config stays with
 * its task (as the task stays in `tasks`); `release` keeps it readable.
 * Failures answer the port's `TaskStorageError` (`UNAVAILABLE` when the
 * database is out of reach: the request answers 503).
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
 * @throws {TypeError} when `store` is not one `createPostgresTaskStore` made.
 */
export function createPostgresPushConfigStore(store: PostgresTaskStore): PushConfigStore {
  const { sql, run } = storeInternals(store, "the PostgreSQL push config store");
  return {
    storedIn: store,
    async put(config) {
      await run("store a push config", () =>
        sql`
          INSERT INTO push_configs (task_id, id, url, token, authentication, tenant)
          VALUES (${config.taskId}, ${config.id}, ${config.url}, ${config.token ?? null},
            ${config.authentication ? JSON.stringify(config.authentication) : null},
            ${config.tenant ?? null})
          ON CONFLICT (task_id, id) DO UPDATE SET url = EXCLUDED.url, token = EXCLUDED.token,
            authentication = EXCLUDED.authentication, tenant = EXCLUDED.tenant`);
      return true;
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
