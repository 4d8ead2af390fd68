import type { A2ATask, A2ATaskState } from "./types.ts";

const TERMINAL: ReadonlySet<string> = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
]);

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

/** Whether a task in `state` has ended (completed, failed, canceled or rejected). */
export function isTerminalState(state: A2ATaskState): boolean {
  return TERMINAL.has(state);
}
