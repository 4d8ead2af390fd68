/**
 * Where the gateway keeps push-notification configs: the port and its
 * in-memory implementation.
 *
 * @module
 */

import type { TaskStorage } from "./task_storage.ts";

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

/**
 * Where push configs are kept, per task. Methods may answer synchronously or
 * with a promise. The gateway checks that the caller may see the task before
 * it calls any of them, and bounds the configs per task itself; a store
 * bounds what it keeps overall.
 *
 * Implement it to share configs between gateway instances (with a durable
 * {@linkcode PushOutbox}); {@linkcode createMemoryPushConfigStore} is the
 * default.
 */
export interface PushConfigStore {
  /**
   * Keep `config` for its task, replacing one with the same id. Answer
   * `false` when the store has no room for it (the client is told to try
   * again later).
   */
  put(config: A2APushNotificationConfig): boolean | Promise<boolean>;
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
 * `maxConfigs`.
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
 * ```
 */
export function createMemoryPushConfigStore(
  options: MemoryPushConfigStoreOptions = {},
): PushConfigStore & {
  list(taskId: string): readonly A2APushNotificationConfig[];
  put(config: A2APushNotificationConfig): boolean;
} {
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
    put(config) {
      const configs = byTask.get(config.taskId);
      if (!configs?.has(config.id)) {
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
