/**
 * The in-memory task store, the default: {@linkcode createMemoryTaskStore}.
 * It implements the whole {@linkcode TaskStorage} port (so several gateways
 * in one process can share it as instances).
 *
 * @module
 */
import { refuseUnknownOptions } from "@seam/host";
import { MemoryLog } from "./_memory_log.ts";
import { waitingFromList } from "./_waiting.ts";
import {
  MemoryTasks,
  type MemoryTaskStoreOptions,
  resolveBounds,
  stateOf,
} from "./_memory_tasks.ts";
import {
  type JsonObject,
  type StoredTaskAt,
  type TaskAppend,
  type TaskCommandHandler,
  type TaskLogEntry,
  type TaskOrphansOptions,
  type TaskStorage,
  TaskStorageError,
  type TaskWaitingQuery,
} from "../task_storage.ts";
import { isArray } from "../core/_builtins.ts";
import {
  isTerminalState,
  type StoredTask,
  type TaskListPage,
  type TaskListQuery,
} from "../task_store.ts";

export type { MemoryTaskStoreOptions };

/**
 * The in-memory {@linkcode TaskStore}: synchronous, with a view of its size.
 * It implements the whole {@linkcode TaskStorage} port too.
 */
export interface MemoryTaskStore extends TaskStorage {
  /** The task with this id, if kept. */
  get(id: string): StoredTask | undefined;
  /** Keep (or update) a task, then evict what is over the bounds. */
  put(record: StoredTask): void;
  /** Tasks matching `query`, newest first. */
  list(query: TaskListQuery): TaskListPage;
  /** Write a change atomically (see {@linkcode TaskStorage.append}). */
  append(change: TaskAppend): number;
  /** Entries of a task's log after a generation (see {@linkcode TaskStorage.read}). */
  read(id: string, after: number, limit: number): readonly TaskLogEntry[];
  /** The tasks waiting for input that `query` selects (see {@linkcode TaskStorage.waiting}). */
  waiting(query: TaskWaitingQuery): readonly StoredTaskAt[];
  /** How many tasks it holds (live and terminal). */
  readonly size: number;
  /** How many bytes the kept terminal tasks take (their JSON text). */
  readonly terminalBytes: number;
}

/**
 * A bounded in-memory {@linkcode TaskStore}: it keeps every live task, and
 * terminal tasks until there are more than `maxTerminalTasks` of them (the
 * oldest go first) or they ended more than `terminalTtlMs` ago. It needs no
 * timer: eviction happens as tasks are put, got and listed. A live task is
 * kept by reference; a terminal one, which no longer changes, as its JSON
 * text (one string for the garbage collector to move instead of a dozen
 * objects per task: under load this is what the young generation kept), so
 * `get` and `list` answer it as a fresh copy.
 *
 * @example Terminal tasks are evicted, live ones never
 * ```ts
 * import { createMemoryTaskStore, type StoredTask } from "@seam/gateway";
 * import assert from "node:assert/strict";
 *
 * const store = createMemoryTaskStore({ maxTerminalTasks: 1 });
 * const record = (id: string, done: boolean): StoredTask => ({
 *   task: {
 *     id,
 *     contextId: "c",
 *     status: { state: done ? "TASK_STATE_COMPLETED" : "TASK_STATE_WORKING" },
 *   },
 *   owner: undefined,
 *   provider: "echo",
 *   updatedAt: Date.now(),
 * });
 * store.put(record("live", false));
 * store.put(record("old", true));
 * store.put(record("new", true));
 * assert.equal(store.get("old"), undefined);
 * assert.ok(store.get("new"));
 * assert.ok(store.get("live"));
 * ```
 *
 * @throws {TypeError} for an unknown option, naming it and the known ones.
 * @throws {RangeError} for a bound that is not a non-negative finite number.
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): MemoryTaskStore {
  refuseUnknownOptions(
    "create the memory task store",
    options,
    [
      "maxTerminalTasks",
      "terminalTtlMs",
      "maxTerminalBytes",
      "maxTerminalTasksPerOwner",
      "now",
      "shared",
      "leaseTtlMs",
    ] satisfies (keyof MemoryTaskStoreOptions)[],
  );
  return new MemoryTaskStoreImpl(options);
}

/**
 * The memory store: {@linkcode MemoryTasks} keeps the tasks; this adds the
 * {@linkcode TaskStorage} half (logs, leases, commands), which only a shared
 * store uses, so a gateway's default store leaves it out of its bundle.
 */
class MemoryTaskStoreImpl extends MemoryTasks implements MemoryTaskStore {
  readonly #log: MemoryLog;

  constructor(options: MemoryTaskStoreOptions) {
    let log!: MemoryLog;
    super(resolveBounds(options), (ttl, now) => log = new MemoryLog(ttl, now));
    this.#log = log;
  }

  append(change: TaskAppend): number {
    const id = change.record?.task?.id;
    if (typeof id !== "string" || !isArray(change.events) || change.events.length === 0) {
      throw new TypeError(
        "Cannot append to a task's log: give a record with a task id and at least one event",
      );
    }
    const current = this.#log.generationOf(id);
    if (current !== change.expected || (current === 0 && this.holds(id))) {
      throw new TaskStorageError(
        "CONFLICT",
        `Cannot append to task "${id}": it is at generation ${current}, not ${change.expected}`,
      );
    }
    const terminal = isTerminalState(change.record.task.status.state);
    const instance = terminal ? undefined : change.instance;
    const generation = this.#log.add(id, change.events, instance);
    const record: StoredTask = { ...change.record, generation };
    if (instance !== undefined) (record as { instance?: string }).instance = instance;
    else delete (record as { instance?: string }).instance;
    this.put(record);
    this.#log.notify(id, generation);
    return generation;
  }

  read(id: string, after: number, limit: number): readonly TaskLogEntry[] {
    return this.#log.read(id, after, limit);
  }

  subscribe(id: string, listener: (generation: number) => void): () => void {
    return this.#log.subscribe(id, listener);
  }

  heartbeat(instance: string): void {
    this.#log.heartbeat(instance);
  }

  orphans(limit: number, options?: TaskOrphansOptions): readonly StoredTaskAt[] {
    const ids = this.#log.orphanIds((id) => {
      const entry = this.entryOf(id);
      return entry !== undefined && !isTerminalState(stateOf(entry));
    }, options?.excludeInstance);
    const found = ids.map((id) => this.get(id) as StoredTaskAt);
    return found.sort((a, b) => a.updatedAt - b.updatedAt).slice(0, limit);
  }

  waiting(query: TaskWaitingQuery): readonly StoredTaskAt[] {
    return waitingFromList(this, query) as readonly StoredTaskAt[];
  }

  send(instance: string, command: JsonObject, timeoutMs: number): Promise<JsonObject> {
    return this.#log.send(instance, command, timeoutMs);
  }

  serve(instance: string, handler: TaskCommandHandler): () => void {
    return this.#log.serve(instance, handler);
  }
}
