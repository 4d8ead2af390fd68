import { MemoryLog } from "./_memory_log.ts";
import {
  type JsonObject,
  type StoredTaskAt,
  type TaskAppend,
  type TaskCommandHandler,
  type TaskLogEntry,
  type TaskStorage,
  TaskStorageError,
} from "./task_storage.ts";
import type { A2ATask, A2ATaskState } from "./types.ts";

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

const TERMINAL: ReadonlySet<string> = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
]);

/** Whether a task in `state` has ended (completed, failed, canceled or rejected). */
export function isTerminalState(state: A2ATaskState): boolean {
  return TERMINAL.has(state);
}

function checkPositive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `Cannot create the memory task store: ${name} must be a non-negative finite number, got ${value}`,
    );
  }
  return value;
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

/** The memory store's own state, behind {@linkcode createMemoryTaskStore}. */
class MemoryTaskStoreImpl implements MemoryTaskStore {
  readonly #tasks = new Map<string, StoredTask | PackedTask>();
  // Terminal tasks in the order they ended: a queue (a Map used as a queue
  // slows down as deleted slots pile up at its front). `#ended` holds each
  // terminal task's current entry; an entry no longer there is stale.
  readonly #ended = new Map<string, Mark>();
  #queue: Mark[] = [];
  #head = 0;
  #bytes = 0;
  // Per owner: its terminal tasks in the order they ended, as a queue with
  // stale entries skipped lazily (like the main queue), and how many are kept.
  readonly #perOwner = new Map<string | undefined, OwnerQueue>();
  readonly #maxTerminal: number;
  readonly #ttl: number;
  readonly #maxBytes: number;
  readonly #maxPerOwner: number;
  readonly #now: () => number;
  readonly #log: MemoryLog;
  readonly shared: boolean;
  readonly leaseTtlMs: number;

  constructor(options: MemoryTaskStoreOptions) {
    this.#maxTerminal = checkPositive(options.maxTerminalTasks, "maxTerminalTasks", 5_000);
    this.#ttl = checkPositive(options.terminalTtlMs, "terminalTtlMs", 3_600_000);
    this.#maxBytes = checkPositive(options.maxTerminalBytes, "maxTerminalBytes", 64 << 20);
    this.#maxPerOwner = checkPositive(
      options.maxTerminalTasksPerOwner,
      "maxTerminalTasksPerOwner",
      1_000,
    );
    this.#now = options.now ?? Date.now;
    this.shared = options.shared === true;
    this.leaseTtlMs = checkPositive(options.leaseTtlMs, "leaseTtlMs", 10_000);
    this.#log = new MemoryLog(this.leaseTtlMs, this.#now);
  }

  get size(): number {
    return this.#tasks.size;
  }

  get terminalBytes(): number {
    return this.#bytes;
  }

  get(id: string): StoredTask | undefined {
    const mark = this.#ended.get(id);
    if (mark !== undefined && mark.at <= this.#now() - this.#ttl) {
      this.#evict();
      return undefined;
    }
    return unpack(this.#tasks.get(id));
  }

  put(record: StoredTask): void {
    const id = record.task.id;
    if (!TERMINAL.has(record.task.status.state)) {
      this.#forget(id);
      this.#tasks.set(id, record);
      return;
    }
    let packed: PackedTask;
    try {
      packed = new PackedTask(record);
    } catch (error) {
      // Never keep the live entry (a reference to a record that is terminal
      // by now) outside the eviction bookkeeping: the caller may put again.
      this.#forget(id);
      this.#tasks.delete(id);
      throw error;
    }
    this.#forget(id);
    this.#tasks.set(id, packed);
    const bytes = packed.json.length + this.#log.seal(id);
    const mark: Mark = { id, owner: record.owner, at: this.#now(), bytes };
    this.#ended.set(id, mark);
    this.#queue.push(mark);
    this.#bytes += mark.bytes;
    let own = this.#perOwner.get(record.owner);
    if (!own) this.#perOwner.set(record.owner, own = { marks: [], head: 0, kept: 0 });
    own.marks.push(mark);
    own.kept++;
    // One owner over its share loses its own oldest, nobody else's.
    while (own.kept > this.#maxPerOwner && own.head < own.marks.length) {
      const oldest = own.marks[own.head++];
      if (this.#ended.get(oldest.id) === oldest) this.#drop(oldest);
    }
    if (own.head > 1024 && own.head * 2 > own.marks.length) {
      own.marks = own.marks.slice(own.head);
      own.head = 0;
    }
    this.#evict();
  }

  list(query: TaskListQuery): TaskListPage {
    this.#evict();
    const matches: (StoredTask | PackedTask)[] = [];
    for (const entry of this.#tasks.values()) {
      if (entry.owner !== query.owner) continue;
      if (query.provider !== undefined && entry.provider !== query.provider) continue;
      if (query.contextId !== undefined && contextOf(entry) !== query.contextId) continue;
      if (query.state !== undefined && stateOf(entry) !== query.state) continue;
      if (query.updatedAfter !== undefined && entry.updatedAt <= query.updatedAfter) continue;
      matches.push(entry);
    }
    matches.sort(compareNewestFirst);
    let start = 0;
    const after = query.after;
    if (after) {
      while (start < matches.length && compareNewestFirst(matches[start], after) <= 0) start++;
    }
    const page = matches.slice(start, start + query.limit).map((entry) => unpack(entry)!);
    return { tasks: page, total: matches.length };
  }

  append(change: TaskAppend): number {
    const id = change.record?.task?.id;
    if (typeof id !== "string" || !Array.isArray(change.events) || change.events.length === 0) {
      throw new TypeError(
        "Cannot append to a task's log: give a record with a task id and at least one event",
      );
    }
    const current = this.#log.generationOf(id);
    if (current !== change.expected || (current === 0 && this.#tasks.has(id))) {
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

  orphans(limit: number): readonly StoredTaskAt[] {
    const ids = this.#log.orphanIds(limit, (id) => {
      const entry = this.#tasks.get(id);
      return entry !== undefined && !TERMINAL.has(stateOf(entry));
    });
    return ids.map((id) => this.get(id) as StoredTaskAt);
  }

  send(instance: string, command: JsonObject, timeoutMs: number): Promise<JsonObject> {
    return this.#log.send(instance, command, timeoutMs);
  }

  serve(instance: string, handler: TaskCommandHandler): () => void {
    return this.#log.serve(instance, handler);
  }

  /** Drop a terminal task's bookkeeping (it is put again, or evicted). */
  #forget(id: string): void {
    const mark = this.#ended.get(id);
    if (!mark) return;
    this.#ended.delete(id);
    this.#bytes -= mark.bytes;
    const own = this.#perOwner.get(mark.owner);
    if (own && --own.kept === 0) this.#perOwner.delete(mark.owner);
  }

  #drop(mark: Mark): void {
    this.#forget(mark.id);
    this.#tasks.delete(mark.id);
    this.#log.drop(mark.id);
  }

  #evict(): void {
    const cutoff = this.#now() - this.#ttl;
    while (this.#head < this.#queue.length) {
      const entry = this.#queue[this.#head];
      if (this.#ended.get(entry.id) !== entry) {
        this.#head++; // stale: the task was put again, or evicted per owner, since
        continue;
      }
      if (
        this.#ended.size <= this.#maxTerminal && this.#bytes <= this.#maxBytes &&
        entry.at > cutoff
      ) break;
      this.#head++;
      this.#drop(entry);
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }
}

/** One owner's terminal tasks, oldest first from `head` (stale marks skipped). */
interface OwnerQueue {
  marks: Mark[];
  head: number;
  kept: number;
}

/** A terminal task's place in the eviction queue. */
interface Mark {
  readonly id: string;
  readonly owner: string | undefined;
  readonly at: number;
  /** The length of its JSON text (UTF-16 units: close enough to bytes for a bound). */
  readonly bytes: number;
}

/** A terminal task as the memory store keeps it: its JSON text and what `list` filters on. */
class PackedTask {
  readonly id: string;
  readonly contextId: string;
  readonly state: A2ATaskState;
  readonly owner: string | undefined;
  readonly provider: string;
  readonly updatedAt: number;
  readonly generation: number | undefined;
  readonly json: string;

  constructor(record: StoredTask) {
    this.id = record.task.id;
    this.contextId = record.task.contextId;
    this.state = record.task.status.state;
    this.owner = record.owner;
    this.provider = record.provider;
    this.updatedAt = record.updatedAt;
    this.generation = record.generation;
    this.json = JSON.stringify(record.task);
  }
}

function unpack(entry: StoredTask | PackedTask | undefined): StoredTask | undefined {
  if (!(entry instanceof PackedTask)) return entry;
  const out: StoredTask = {
    task: JSON.parse(entry.json),
    owner: entry.owner,
    provider: entry.provider,
    updatedAt: entry.updatedAt,
  };
  if (entry.generation !== undefined) {
    (out as { generation?: number }).generation = entry.generation;
  }
  return out;
}

const idOf = (entry: StoredTask | PackedTask | { readonly id: string }): string =>
  "task" in entry ? entry.task.id : entry.id;
const contextOf = (entry: StoredTask | PackedTask): string =>
  entry instanceof PackedTask ? entry.contextId : entry.task.contextId;
const stateOf = (entry: StoredTask | PackedTask): A2ATaskState =>
  entry instanceof PackedTask ? entry.state : entry.task.status.state;

/** Newest `updatedAt` first, then `id` descending. */
function compareNewestFirst(
  a: StoredTask | PackedTask,
  b: StoredTask | PackedTask | { readonly updatedAt: number; readonly id: string },
): number {
  if (a.updatedAt !== b.updatedAt) return b.updatedAt - a.updatedAt;
  const x = idOf(a);
  const y = idOf(b);
  return x < y ? 1 : x > y ? -1 : 0;
}
