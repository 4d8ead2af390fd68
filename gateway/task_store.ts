import { MemoryLog } from "./_memory_log.ts";
import { MemoryTasks, stateOf, TERMINAL } from "./_memory_tasks.ts";
import {
  type JsonObject,
  type StoredTaskAt,
  type TaskAppend,
  type TaskCommandHandler,
  type TaskLogEntry,
  type TaskOrphansOptions,
  type TaskStorage,
  TaskStorageError,
} from "./task_storage.ts";
import type { A2ATask, A2ATaskState } from "./types.ts";
import { isArray } from "./_builtins.ts";

/**
 * A task as a {@linkcode TaskStore} keeps it: the A2A task plus who may see
 * it and where it runs. The gateway calls `put` again with the same record
 * whenever the task changes state; treat the record as a snapshot to copy
 * (a persistent store) or keep by reference (an in-memory one).
 */
export interface StoredTask {
  /** The A2A task. */
  readonly task: A2ATask;
  /** The principal that created it (`undefined` when auth is off); only it may see the task. */
  readonly owner: string | undefined;
  /** The provider it runs on. */
  readonly provider: string;
  /** When it last changed state, in milliseconds since the epoch. */
  readonly updatedAt: number;
  /** Its generation, when a `TaskStorage` keeps its event log (1 at creation, +1 per change). */
  readonly generation?: number;
  /** The gateway instance that runs it, when a `TaskStorage` knows (none once it ended). */
  readonly instance?: string;
}

/** What {@linkcode TaskStore.list} selects. Every given field must match. */
export interface TaskListQuery {
  /** Only tasks of this principal (`undefined` matches tasks created without auth). */
  readonly owner: string | undefined;
  /** Only tasks of this provider. */
  readonly provider?: string;
  /** Only tasks of this context. */
  readonly contextId?: string;
  /** Only tasks in this state. */
  readonly state?: A2ATaskState;
  /** Only tasks updated strictly after this time (ms since the epoch). */
  readonly updatedAfter?: number;
  /** Only tasks strictly after this cursor in the order (newest `updatedAt` first, then `id` descending). */
  readonly after?: { readonly updatedAt: number; readonly id: string };
  /** At most this many tasks. */
  readonly limit: number;
}

/** One page of {@linkcode TaskStore.list}. */
export interface TaskListPage {
  /** The tasks, newest `updatedAt` first (ties: `id` descending). */
  readonly tasks: readonly StoredTask[];
  /** How many tasks match the query without `after` and `limit`. */
  readonly total: number;
}

/**
 * Where the gateway keeps tasks. Methods may answer synchronously or with a
 * promise. A store must never drop a task that is not terminal (submitted or
 * working): a live task has a running child behind it.
 */
export interface TaskStore {
  /** The task with this id, if kept. */
  get(id: string): StoredTask | undefined | Promise<StoredTask | undefined>;
  /** Keep (or update) a task. */
  put(record: StoredTask): void | Promise<void>;
  /** Tasks matching `query`, newest first. */
  list(query: TaskListQuery): TaskListPage | Promise<TaskListPage>;
}

/** Options of {@linkcode createMemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /** How many terminal tasks to keep; the oldest are evicted first. Default 5,000. */
  readonly maxTerminalTasks?: number;
  /** How long a terminal task is kept after it ended, in ms. Default one hour. */
  readonly terminalTtlMs?: number;
  /**
   * How many bytes (of their JSON text) the kept terminal tasks may take in
   * all; the oldest are evicted first. Default 64 MiB.
   */
  readonly maxTerminalBytes?: number;
  /**
   * How many terminal tasks one owner (principal) keeps; beyond it that
   * owner's oldest are evicted first, so one client cannot push out
   * everyone else's. Default 1,000.
   */
  readonly maxTerminalTasksPerOwner?: number;
  /** The clock, for tests. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Whether several gateways in this process share the store (then each
   * journals every change, and streams resume across them). Default false.
   */
  readonly shared?: boolean;
  /** How long an instance's lease lasts after its heartbeat, in ms. Default 10,000. */
  readonly leaseTtlMs?: number;
}

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
  /** How many tasks it holds (live and terminal). */
  readonly size: number;
  /** How many bytes the kept terminal tasks take (their JSON text). */
  readonly terminalBytes: number;
}

/** Whether a task in `state` has ended (completed, failed, canceled or rejected). */
export function isTerminalState(state: A2ATaskState): boolean {
  return TERMINAL.has(state);
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
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): MemoryTaskStore {
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
    super(options, (ttl, now) => log = new MemoryLog(ttl, now));
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
    const terminal = TERMINAL.has(change.record.task.status.state);
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
      return entry !== undefined && !TERMINAL.has(stateOf(entry));
    }, options?.excludeInstance);
    const found = ids.map((id) => this.get(id) as StoredTaskAt);
    return found.sort((a, b) => a.updatedAt - b.updatedAt).slice(0, limit);
  }

  send(instance: string, command: JsonObject, timeoutMs: number): Promise<JsonObject> {
    return this.#log.send(instance, command, timeoutMs);
  }

  serve(instance: string, handler: TaskCommandHandler): () => void {
    return this.#log.serve(instance, handler);
  }
}
