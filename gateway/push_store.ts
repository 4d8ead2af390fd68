/**
 * Where the gateway keeps push-notification configs: the port and its
 * in-memory implementation.
 *
 * @module
 */

import { refuseUnknownOptions } from "@seam/host";
import type { TaskStorage } from "./task_storage.ts";
import { stringify } from "./core/_builtins.ts";

/** How the gateway authenticates to a webhook (A2A `AuthenticationInfo`): `Authorization: {scheme} {credentials}`. */
export interface A2APushAuthentication {
  /** An HTTP authentication scheme (`Bearer`, `Basic`, …). */
  readonly scheme: string;
  /** The credentials for that scheme (the token for `Bearer`). */
  readonly credentials?: string;
}

/** A webhook registered for a task (A2A `TaskPushNotificationConfig`), as accepted. */
export interface A2APushNotificationConfig {
  /** The config's id, unique within its task (the gateway assigns one when the client gives none). */
  readonly id: string;
  /** The task it belongs to. */
  readonly taskId: string;
  /** Where notifications are POSTed (it passed the gateway's webhook policy). */
  readonly url: string;
  /** A token for the receiver to check, sent as `X-A2A-Notification-Token`. */
  readonly token?: string;
  /** Credentials sent as `Authorization`. */
  readonly authentication?: A2APushAuthentication;
  /** The tenant (provider) it was registered through, when one was named. */
  readonly tenant?: string;
}

/** What the gateway asks of {@linkcode PushConfigStore.put} beside the config. */
export interface PushConfigPutOptions {
  /**
   * The most configs a task may have (the gateway's `push.maxConfigsPerTask`):
   * a put that would add one beyond it keeps nothing and answers
   * `"task-full"` (replacing one of the same id is fine). A positive
   * integer; absent: no bound per task. A store refuses anything else with
   * a `RangeError` (rather than read it as some bound or none).
   */
  readonly maxPerTask?: number;
}

/**
 * What {@linkcode PushConfigStore.put} came to: `true` kept; `false` the
 * store has no room (the client is told to try again later); `"task-full"`
 * the task already has `maxPerTask` configs (the client is told to delete
 * one first).
 */
export type PushConfigPutResult = boolean | "task-full";

/**
 * Where push configs are kept, per task. Methods may answer synchronously or
 * with a promise. The gateway checks that the caller may see the task before
 * it calls any of them; a store bounds what it keeps overall.
 *
 * The configs per task are bounded too: the gateway lists the task's
 * configs before each put, and passes the bound to `put` (`maxPerTask`). A
 * store that several gateway instances share should check that bound in
 * `put`, in the same atomic step as the write: two instances that listed at
 * the same time would otherwise both add one. A store that ignores it still
 * has the gateway's check (exact for one instance).
 *
 * Implement it to share configs between gateway instances (with a durable
 * {@linkcode PushOutbox}); {@linkcode createMemoryPushConfigStore} is the
 * default.
 */
export interface PushConfigStore {
  /**
   * Keep `config` for its task, replacing one with the same id. Answer
   * `false` when the store has no room for it, `"task-full"` when it would
   * be another config of a task that already has `options.maxPerTask` (see
   * {@linkcode PushConfigPutResult}).
   *
   * A store that wraps another (to log, count, or filter) must pass
   * `options` on: `put: (c) => inner.put(c)` drops the bound, and instances
   * sharing the inner store could then pass it together (the gateway's own
   * check before the put still holds for one instance).
   */
  put(
    config: A2APushNotificationConfig,
    options?: PushConfigPutOptions,
  ): PushConfigPutResult | Promise<PushConfigPutResult>;
  /** The task's configs, in the order they were first put. */
  list(
    taskId: string,
  ): readonly A2APushNotificationConfig[] | Promise<readonly A2APushNotificationConfig[]>;
  /** Remove one config; nothing happens when there is none. */
  delete(taskId: string, id: string): void | Promise<void>;
  /**
   * The task ended: no notification will be sent for it again. Its configs
   * stay readable, but a store may now evict them to make room.
   */
  release(taskId: string): void | Promise<void>;
  /**
   * The task storage this store keeps its configs in, when it is one: an
   * outbox that the storage writes in its appends (`PushOutbox.enqueuedBy`)
   * reads the configs there, so it needs a store with the same storage.
   */
  readonly storedIn?: TaskStorage;
}

/** Options of {@linkcode createMemoryPushConfigStore}. */
export interface MemoryPushConfigStoreOptions {
  /**
   * How many configs are kept in all. When full, the configs of the task
   * released longest ago go first; when no task was released, `put` answers
   * `false`. Default 10,000.
   */
  readonly maxConfigs?: number;
}

/**
 * A {@linkcode PushConfigStore} in this process's memory, bounded by
 * `maxConfigs` (and per task by `put`'s `maxPerTask`).
 *
 * @example
 * ```ts
 * import { createMemoryPushConfigStore } from "@seam/gateway";
 * import assert from "node:assert/strict";
 *
 * const store = createMemoryPushConfigStore({ maxConfigs: 1 });
 * assert.equal(store.put({ id: "a", taskId: "t1", url: "https://example.com/hook" }), true);
 * assert.equal(store.put({ id: "b", taskId: "t2", url: "https://example.com/hook" }), false);
 * store.release("t1");
 * assert.equal(store.put({ id: "b", taskId: "t2", url: "https://example.com/hook" }), true);
 * assert.deepEqual(store.list("t1"), []);
 * const another = { id: "c", taskId: "t2", url: "https://example.com/other" };
 * assert.equal(store.put(another, { maxPerTask: 1 }), "task-full");
 * ```
 *
 * @throws {RangeError} when `maxConfigs` is not a positive integer (and
 * `put`, when its `maxPerTask` is not one).
 * @throws {TypeError} for an unknown option, naming it and the known ones.
 */
export function createMemoryPushConfigStore(
  options: MemoryPushConfigStoreOptions = {},
): PushConfigStore & {
  list(taskId: string): readonly A2APushNotificationConfig[];
  put(config: A2APushNotificationConfig, options?: PushConfigPutOptions): PushConfigPutResult;
} {
  refuseUnknownOptions("create push config store", options, ["maxConfigs"]);
  const max = options.maxConfigs ?? 10_000;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new RangeError(
      `Cannot create push config store: maxConfigs must be a positive integer, got ${max}`,
    );
  }
  const byTask = new Map<string, Map<string, A2APushNotificationConfig>>();
  /** Released tasks that still hold configs, oldest first (a Set keeps insertion order). */
  const released = new Set<string>();
  let size = 0;
  const drop = (taskId: string): void => {
    size -= byTask.get(taskId)?.size ?? 0;
    byTask.delete(taskId);
    released.delete(taskId);
  };
  return {
    put(config, options) {
      const perTask = options?.maxPerTask;
      if (perTask !== undefined && (!Number.isSafeInteger(perTask) || perTask < 1)) {
        throw new RangeError(
          `Cannot store a push config: maxPerTask must be a positive integer, got ${
            typeof perTask === "number" ? perTask : stringify(perTask)
          }`,
        );
      }
      const configs = byTask.get(config.taskId);
      if (!configs?.has(config.id)) {
        if ((configs?.size ?? 0) >= (perTask ?? Infinity)) return "task-full";
        while (size >= max) {
          const oldest = released.values().next();
          if (oldest.done) return false;
          drop(oldest.value);
        }
      }
      const kept = byTask.get(config.taskId) ?? new Map();
      if (!kept.has(config.id)) size++;
      kept.set(config.id, { ...config });
      byTask.set(config.taskId, kept);
      return true;
    },
    list(taskId) {
      const configs = byTask.get(taskId);
      return configs ? [...configs.values()] : [];
    },
    delete(taskId, id) {
      const configs = byTask.get(taskId);
      if (!configs?.delete(id)) return;
      size--;
      if (configs.size === 0) drop(taskId);
    },
    release(taskId) {
      if (byTask.has(taskId)) released.add(taskId);
    },
  };
}
