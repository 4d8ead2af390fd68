/**
 * Where the engine's tasks live, chosen once when the engine is made:
 * {@linkcode TaskHome}. The engine and the bindings know this interface,
 * never the cluster: {@linkcode LocalHome} is one gateway on its own store;
 * the cluster's home (cluster/_shared_home.ts) is one instance of many on a
 * shared `TaskStorage`, where a task may run on another instance.
 *
 * @module
 */
import type { StreamFraming, TaskSubscriber } from "../http/_sse.ts";
import type { SendParams } from "../http/_validate.ts";
import type { StoredTask } from "../task_store.ts";
import type { A2ATask } from "../types.ts";
import type { LiveTask, LiveTaskHooks } from "./_live_task.ts";
import { StoreWriter } from "./_store_writer.ts";

/** The result of sending a message: the task runs here, or on another instance. */
export type Sent = SentHere | SentElsewhere;

/** A message sent to a task that runs here. */
export interface SentHere {
  /** The task. */
  readonly live: LiveTask;
  /** The task's id. */
  readonly taskId: string;
  /** Whether the message carried the seam extension. */
  readonly extension: boolean;
}

/**
 * A message sent to a task another instance runs (a steered task, or a
 * follow-up in a context whose run another keeps).
 */
export interface SentElsewhere {
  readonly live: undefined;
  /** The task's id. */
  readonly taskId: string;
  /** Whether the message carried the seam extension. */
  readonly extension: boolean;
  /**
   * The task as a blocking send answers it: once it settled or is
   * interrupted (after what the message led to), unless `returnImmediately`.
   */
  answer(params: SendParams, principal: string | undefined): Promise<A2ATask>;
  /** A stream of the task from its start. */
  stream(framing: StreamFraming): TaskSubscriber;
}

/** A task as a principal may see it: its record, and the live task while it runs here. */
export interface Found {
  readonly record: StoredTask;
  readonly live: LiveTask | undefined;
}

/** The way to a task another instance runs: its commands go there. */
export interface Elsewhere {
  /** Cancel it there; answers its state once its run ended (or the cancel timed out). */
  cancel(principal: string | undefined): Promise<A2ATask>;
  /**
   * Send it a message there; `answering`: as the answer to the input it
   * waits for (a message naming only its context), refused there if it no
   * longer waits.
   */
  message(
    params: SendParams,
    principal: string | undefined,
    extension: boolean,
    answering?: boolean,
  ): Promise<Sent>;
}

/**
 * Where the engine's tasks live (see the module doc). A home leaves out
 * what it has nothing to do for (one gateway alone: no lease to wait for,
 * no other instance, nothing to close).
 */
export interface TaskHome {
  /** Before a new task here: a promise to wait for, if any (the lease). */
  admit?(): Promise<void> | undefined;
  /**
   * `record`, which no run here holds: the way to the instance that runs
   * it, or undefined when none does (it ended, or runs nowhere).
   */
  locate?(record: StoredTask): Elsewhere | undefined;
  /**
   * The tasks of `principal` (on `tenant`'s provider, when named) that wait
   * for input in `contextId` as the shared storage holds them, the newest
   * first, at most `limit` (none on one gateway alone: every task runs here,
   * and its phase says).
   */
  waiting?(
    principal: string | undefined,
    tenant: string | undefined,
    contextId: string,
    limit: number,
  ): Promise<readonly StoredTask[]>;
  /**
   * A follow-up in a context for which no run is kept here: sent to the
   * instance that keeps the context's run, if another does; undefined (or a
   * promise of it) to start it here.
   */
  continueElsewhere?(
    params: SendParams,
    principal: string | undefined,
    provider: string,
    extension: boolean,
  ): Promise<Sent | undefined> | undefined;
  /**
   * A task just made here (one that answers with a task): stored. Answers
   * undefined to announce it at once, or what the send answers once it is
   * stored (announced by then).
   */
  created(
    live: LiveTask,
    onLive: ((live: LiveTask) => void) | undefined,
    extension: boolean,
  ): Promise<Sent> | undefined;
  /** Store a task's record as it now is. */
  persist(record: StoredTask): Promise<void> | undefined;
  /** Settles once a task's answered state is stored where any instance reads it (if not yet). */
  committed?(taskId: string): Promise<void> | undefined;
  /** A steering message `live`'s run took as the task ended: stored with the task. */
  amend(live: LiveTask): Promise<void> | undefined;
  /** The run of `record`, which just ended, is kept here for a follow-up. */
  kept?(record: StoredTask): void;
  /** A task's final state is stored: nothing more to write of it. */
  stored?(taskId: string): void;
  /** Each change of a task this instance runs, as it happens (none: nothing needs them). */
  readonly publish?: LiveTaskHooks["publish"];
  /** A stream of `live`, just made by a send, from its start (its first frame the task, `first`). */
  stream(live: LiveTask, framing: StreamFraming, first: () => A2ATask): TaskSubscriber;
  /**
   * `SubscribeToTask`: a stream of `found` after `cursor` (from now, or the
   * start of its log, without one); undefined when there is nothing to
   * subscribe to.
   */
  subscribe(
    found: Found,
    framing: StreamFraming,
    cursor: number | undefined,
    first: (live: LiveTask) => A2ATask,
  ): Promise<TaskSubscriber | undefined> | TaskSubscriber | undefined;
  /** Stop: what it holds open ends. */
  close?(): Promise<void> | undefined;
}

/**
 * One gateway on its own store: every task runs here, and its record is
 * written to the store as it changes (a failed write handled as
 * {@linkcode StoreWriter} says).
 */
export class LocalHome extends StoreWriter implements TaskHome {
  created(live: LiveTask): undefined {
    this.persist(live.record);
  }

  amend(live: LiveTask): Promise<void> | undefined {
    return this.persist(live.record);
  }

  stream(live: LiveTask, framing: StreamFraming, first: () => A2ATask): TaskSubscriber {
    return live.subscribe(framing, { task: first() });
  }

  subscribe(
    found: Found,
    framing: StreamFraming,
    _cursor: number | undefined,
    first: (live: LiveTask) => A2ATask,
  ): TaskSubscriber | undefined {
    return found.live?.subscribe(framing, { task: first(found.live) });
  }
}
