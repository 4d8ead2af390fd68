/**
 * The storage port for many gateway instances: a {@linkcode TaskStore} grown
 * into a task snapshot plus a per-task ordered event log with a generation
 * counter, reads from a generation, live wake-ups, ownership leases and a
 * channel to the instance that owns a task's run.
 */
import type { StoredTask, TaskStore } from "./task_store.ts";

/** A JSON object: an event, a command or a reply as the storage carries it. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** One entry of a task's event log. */
export interface TaskLogEntry {
  /**
   * The task's generation after this change: 1 for the task's creation, +1
   * per change, never reused.
   */
  readonly generation: number;
  /** The change as an A2A stream frame: `{task}`, `{statusUpdate}` or `{artifactUpdate}`. */
  readonly event: JsonObject;
}

/** A task as a {@linkcode TaskStorage} holds it: the snapshot, its generation and its owner instance. */
export interface StoredTaskAt extends StoredTask {
  /** The generation of the last change written (the snapshot includes it). */
  readonly generation: number;
}

/** One atomic write of {@linkcode TaskStorage.append}. */
export interface TaskAppend {
  /** The task's snapshot once the events are applied. */
  readonly record: StoredTask;
  /**
   * The generation the stored task has now (0: the task must not exist yet).
   * Anything else is a conflict: another writer got there first.
   */
  readonly expected: number;
  /**
   * The changes, in order: they get the generations `expected + 1`,
   * `expected + 2`, …; at least one.
   */
  readonly events: readonly JsonObject[];
  /** The instance that owns the task's run from now on; `undefined` once it ended. */
  readonly instance: string | undefined;
  /**
   * The JSON bodies of the push notifications these events announce, in
   * order. A storage that keeps the push outbox (a `PushOutbox` whose
   * `enqueuedBy` is this storage) writes one notification per push
   * config the task has, in the same transaction as the events, so a state
   * change is announced to every webhook at least once or not committed at
   * all. Other storages ignore them.
   */
  readonly pushes?: readonly string[];
}

/** What {@linkcode TaskStorage.orphans} leaves out. */
export interface TaskOrphansOptions {
  /**
   * Answer none of the tasks this instance runs (the caller's own id: it
   * looks for others'). Tasks that name no instance are still answered.
   */
  readonly excludeInstance?: string;
}

/** What {@linkcode TaskStorage.waiting} selects. Every given field must match. */
export interface TaskWaitingQuery {
  /** Only tasks of this principal (`undefined` matches tasks created without auth). */
  readonly owner: string | undefined;
  /** Only tasks of this context. */
  readonly contextId: string;
  /** Only tasks of this provider. */
  readonly provider?: string;
  /** At most this many tasks. */
  readonly limit: number;
}

/** Why a {@linkcode TaskStorage} refused: a conflicting writer, or the storage out of reach. */
export type TaskStorageErrorCode = "CONFLICT" | "UNAVAILABLE";

/**
 * An error a {@linkcode TaskStorage} answers that the gateway acts on:
 * `CONFLICT` (an append whose expected generation is not the stored one)
 * and `UNAVAILABLE` (the database cannot be reached; try again later).
 */
export class TaskStorageError extends Error {
  /** What went wrong. */
  readonly code: TaskStorageErrorCode;

  /** An error with `code` and a message saying what went wrong. */
  constructor(code: TaskStorageErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TaskStorageError";
    this.code = code;
  }
}

/** Whether `error` is a {@linkcode TaskStorageError} with `code` (by its code, across copies). */
export function isTaskStorageError(error: unknown, code: TaskStorageErrorCode): boolean {
  return error instanceof Error && error.name === "TaskStorageError" &&
    (error as TaskStorageError).code === code;
}

/**
 * Answers the commands sent to one instance (a cancel, a steering message);
 * the reply travels back to the sender.
 */
export type TaskCommandHandler = (command: JsonObject) => Promise<JsonObject>;

/**
 * Where many gateway instances keep tasks together. Beyond the
 * {@linkcode TaskStore} reads:
 * - a task's changes are an ordered log; {@linkcode append} writes the
 *   snapshot and the new entries in one atomic step, and only when the task
 *   is still at the generation the writer expects (one writer at a time: the
 *   owner, or whoever ends an orphan; an ended task still takes an append,
 *   a steering message its run took as it ended);
 * - {@linkcode read} answers entries after a generation, in order, and
 *   {@linkcode subscribe} wakes a listener after every committed append, on
 *   any instance: a change is announced only once it is committed;
 * - a task names the instance that runs it; an instance keeps its lease with
 *   {@linkcode heartbeat}, and once it lapses for {@linkcode leaseTtlMs} its
 *   live tasks are {@linkcode orphans} for another instance to end;
 * - {@linkcode send} delivers a command to the instance that runs a task,
 *   whose {@linkcode serve} handler answers it.
 *
 * `@seam/gateway/testing` has the conformance suite every implementation
 * passes (`testTaskStorage`).
 */
export interface TaskStorage extends TaskStore {
  /** Whether other gateway instances use this storage too (then the gateway journals every change). */
  readonly shared: boolean;
  /** How long an instance's lease lasts after its last heartbeat, in ms. */
  readonly leaseTtlMs: number;
  /** The task with this id; a task written by {@linkcode append} carries its generation and instance. */
  get(id: string): StoredTask | undefined | Promise<StoredTask | undefined>;
  /**
   * Write `change` atomically: the snapshot, its events and its owner.
   *
   * @returns the task's new generation.
   * @throws {TaskStorageError} `CONFLICT` when the stored generation is not `change.expected`.
   */
  append(change: TaskAppend): number | Promise<number>;
  /** At most `limit` entries of task `id` after generation `after`, oldest first. */
  read(
    id: string,
    after: number,
    limit: number,
  ): readonly TaskLogEntry[] | Promise<readonly TaskLogEntry[]>;
  /**
   * Call `listener` with the new generation after each committed append of
   * task `id` (from any instance). It may also be called with 0 (anything
   * may have changed: once listening is in place, after a reconnect) or
   * with a generation it already saw: read from your own cursor.
   *
   * @returns how to stop listening.
   */
  subscribe(id: string, listener: (generation: number) => void): () => void;
  /** Renew the lease of `instance` for {@linkcode leaseTtlMs}. */
  heartbeat(instance: string): void | Promise<void>;
  /**
   * Whether the lease of `instance` is current (renewed within
   * {@linkcode leaseTtlMs}). Optional: the gateway asks it before sending a
   * follow-up to the instance that kept its context's run, so that one gone
   * is not waited for as long as a command's timeout; without it, the
   * follow-up waits for that timeout before a fresh run starts.
   */
  leased?(instance: string): boolean | Promise<boolean>;
  /**
   * At most `limit` live tasks whose instance's lease lapsed (or which have
   * none), the least recently changed first (the smallest `updatedAt`; ties
   * in any order), so a backlog larger than `limit` is worked through in
   * turn. With `options.excludeInstance`, none of that instance's tasks: the
   * caller's own, which it would skip (its lease lapsed while it still runs
   * them, a database outage say), and which would otherwise fill every page
   * and hide the real orphans behind them for as long as they lasted.
   *
   * A storage written before `options` existed ignores them; the gateway
   * still skips the tasks it runs, but then more than `limit` of its own can
   * keep another instance's orphans from ever being ended.
   */
  orphans(
    limit: number,
    options?: TaskOrphansOptions,
  ): readonly StoredTaskAt[] | Promise<readonly StoredTaskAt[]>;
  /**
   * At most `query.limit` tasks of `query.owner` in context
   * `query.contextId` (of `query.provider`, when given) that wait for input
   * (`TASK_STATE_INPUT_REQUIRED` or `TASK_STATE_AUTH_REQUIRED`), newest
   * `updatedAt` first (ties: `id` descending). A message naming only its
   * context answers the one such task, whichever instance runs it; with
   * several it is refused naming them. Optional: without it the gateway
   * reads them with {@linkcode list}, once per state; with it, in one read
   * a storage can answer from an index of the waiting tasks alone, however
   * many tasks the context holds.
   */
  waiting?(query: TaskWaitingQuery): readonly StoredTaskAt[] | Promise<readonly StoredTaskAt[]>;
  /**
   * Deliver `command` to the handler `instance` serves and answer its reply.
   *
   * @throws {TaskStorageError} `UNAVAILABLE` when no reply came within `timeoutMs`.
   */
  send(instance: string, command: JsonObject, timeoutMs: number): Promise<JsonObject>;
  /**
   * Answer the commands sent to `instance` with `handler`.
   *
   * @returns how to stop serving.
   */
  serve(instance: string, handler: TaskCommandHandler): () => void;
}

/** Whether `store` implements the whole {@linkcode TaskStorage} port. */
export function isTaskStorage(store: TaskStore): store is TaskStorage {
  const s = store as Partial<TaskStorage>;
  return (["append", "read", "subscribe", "heartbeat", "orphans", "send", "serve"] as const)
    .every((method) => typeof s[method] === "function") && typeof s.shared === "boolean";
}
