/**
 * `@seam/gateway-postgres`: the gateway's storage port
 * ({@linkcode TaskStorage} from `@seam/gateway`) on PostgreSQL, so many
 * gateway instances serve as one: shared task snapshots, an ordered event log
 * per task with generations (1 at creation, +1 per change), wake-ups over
 * LISTEN/NOTIFY (the payloads carry ids; what changed stays in the tables),
 * ownership leases kept by a heartbeat, and commands (a cancel, a steering
 * message) delivered to the instance that runs a task. The store applies its
 * own schema migrations at start-up; one that cannot apply stops start-up
 * with the reason. Push notifications go out from a durable outbox in the
 * same database ({@linkcode createPostgresPushOutbox}, with
 * {@linkcode createPostgresPushConfigStore}): each state change's
 * notifications are written in the transaction that commits it, and any
 * instance delivers them, at least once, across restarts. On the `postgres`
 * client from npm, which runs on Deno and Node.
 *
 * @example Three instances behind a load balancer share one database
 * ```ts ignore
 * import { createGateway } from "@seam/gateway";
 * import { createPostgresTaskStore } from "@seam/gateway-postgres";
 *
 * const taskStore = await createPostgresTaskStore({ url: Deno.env.get("DATABASE_URL")! });
 * const gateway = createGateway({
 *   scope: host.scope,
 *   taskStore,
 *   push: {
 *     configStore: createPostgresPushConfigStore(taskStore),
 *     outbox: createPostgresPushOutbox(taskStore),
 *   },
 * });
 * Deno.serve({ port: 8787 }, gateway.fetch);
 * // … on shutdown:
 * await gateway.close();
 * await taskStore.close();
 * ```
 *
 * @module
 */
import type { TaskStorage } from "@seam/gateway";
import {
  PostgresStore,
  type PostgresTaskStore,
  type PostgresTaskStoreOptions,
} from "./postgres_store.ts";

export type { PostgresTaskStore, PostgresTaskStoreOptions } from "./postgres_store.ts";
export {
  createPostgresPushOutbox,
  type PostgresPushOutbox,
  type PostgresPushOutboxOptions,
} from "./postgres_push_outbox.ts";
export {
  createPostgresPushConfigStore,
  type PostgresPushConfigStoreOptions,
} from "./postgres_push_store.ts";
export type { TaskStorage };

/**
 * Connect to PostgreSQL, bring the schema up to date and listen for
 * wake-ups; resolves once the store is ready.
 *
 * @throws {TypeError} for an unknown option (naming it and the known ones) or a bad one.
 * @throws {Error} "Cannot start the PostgreSQL task store: …" when the
 * database cannot be reached or a migration cannot apply (naming it and why).
 */
export async function createPostgresTaskStore(
  options: PostgresTaskStoreOptions,
): Promise<PostgresTaskStore> {
  const store = new PostgresStore(options);
  await store.open();
  return store;
}
