/**
 * The memory store's half that keeps tasks (`get`, `put`, `list`, eviction):
 * all a gateway's default store needs. `createMemoryTaskStore`
 * (memory_task_store.ts) adds the log half of the {@linkcode TaskStorage} port.
 *
 * @module
 */
import {
  isTerminalState,
  type StoredTask,
  type TaskListPage,
  type TaskListQuery,
  type TaskStore,
} from "../task_store.ts";
import { ShortLivedMap } from "../core/_short_lived_map.ts";
import { rememberJson } from "./_task_json.ts";
import type { A2ATaskState } from "../types.ts";
import { stringify } from "../core/_builtins.ts";

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

/** What the tasks half tells the log half. */
export interface TaskLogs {
  /** A task ended: keep its log as text; answers its length. */
  seal(id: string): number;
  /** A task was dropped: drop its log. */
  drop(id: string): void;
}

/** The bounds of {@linkcode MemoryTaskStoreOptions}, each a non-negative number. */
type PositiveOption =
  | "maxTerminalTasks"
  | "terminalTtlMs"
  | "maxTerminalBytes"
  | "maxTerminalTasksPerOwner"
  | "leaseTtlMs";

/** {@linkcode MemoryTaskStoreOptions}' bounds, resolved: each a non-negative number. */
export type MemoryBounds = Readonly<Record<PositiveOption, number>> & {
  readonly now: () => number;
  readonly shared: boolean;
};

/** The bounds a store takes when its options give none. */
export const DEFAULT_BOUNDS: MemoryBounds = {
  maxTerminalTasks: 5_000,
  terminalTtlMs: 3_600_000,
  maxTerminalBytes: 64 << 20,
  maxTerminalTasksPerOwner: 1_000,
  leaseTtlMs: 10_000,
  now: Date.now,
  shared: false,
};

/**
 * `options` checked, over the defaults (in `createMemoryTaskStore` only: a
 * gateway's default store has no options to check).
 */
export function resolveBounds(options: MemoryTaskStoreOptions): MemoryBounds {
  const bounds: Record<string, unknown> = { ...DEFAULT_BOUNDS };
  const names: readonly PositiveOption[] = [
    "maxTerminalTasks",
    "terminalTtlMs",
    "maxTerminalBytes",
    "maxTerminalTasksPerOwner",
    "leaseTtlMs",
  ];
  for (const name of names) {
    const value = options[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new RangeError(
        `Cannot create the memory task store: ${name} must be a non-negative finite number, got ${value}`,
      );
    }
    bounds[name] = value;
  }
  bounds.now = options.now ?? Date.now;
  bounds.shared = options.shared === true;
  return bounds as MemoryBounds;
}

/** A gateway's default store: {@linkcode MemoryTasks} with default bounds, not shared. */
export function createDefaultTaskStore(): TaskStore {
  return new MemoryTasks(DEFAULT_BOUNDS);
}

/**
 * The memory store's tasks and their eviction; with `log`, the log half of a
 * shared store (task_store.ts) is told when a task ends and is dropped.
 */
export class MemoryTasks implements TaskStore {
  // A live task's record is held here only while it runs: held so that it
  // does not outlive its request in the old generation (_short_lived_map.ts).
  readonly #tasks = new ShortLivedMap<string, StoredTask | PackedTask>();
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
  readonly #log: TaskLogs | undefined;
  readonly shared: boolean;
  readonly leaseTtlMs: number;

  constructor(
    bounds: MemoryBounds,
    log?: (ttl: number, now: () => number) => TaskLogs,
  ) {
    this.#maxTerminal = bounds.maxTerminalTasks;
    this.#ttl = bounds.terminalTtlMs;
    this.#maxBytes = bounds.maxTerminalBytes;
    this.#maxPerOwner = bounds.maxTerminalTasksPerOwner;
    this.#now = bounds.now;
    this.shared = bounds.shared;
    this.leaseTtlMs = bounds.leaseTtlMs;
    this.#log = log?.(this.leaseTtlMs, this.#now);
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
    if (!isTerminalState(record.task.status.state)) {
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
    const bytes = packed.json.length + (this.#log?.seal(id) ?? 0);
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

  /** Whether task `id` is kept (live or terminal). */
  holds(id: string): boolean {
    return this.#tasks.has(id);
  }

  /** Task `id` as kept (a terminal one packed), without evicting. */
  entryOf(id: string): StoredTask | PackedTask | undefined {
    return this.#tasks.get(id);
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
    this.#log?.drop(mark.id);
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
export class PackedTask {
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
    this.json = stringify(record.task);
    rememberJson(record.task, this.json);
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
export const stateOf = (entry: StoredTask | PackedTask): A2ATaskState =>
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
