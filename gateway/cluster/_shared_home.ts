/**
 * The {@linkcode TaskHome} of one instance of many on a shared
 * {@linkcode TaskStorage}: a task made here is journaled (its creation
 * committed before it is announced) and streamed from its log; a task
 * another instance runs is reached by a command (_forward.ts, over
 * _protocol.ts), and waited on in the storage; a follow-up in a context whose
 * run another instance keeps goes there (_continue_elsewhere.ts). The
 * instance itself (lease, journals, log streams, reaper) is the
 * {@linkcode Cluster}.
 *
 * @module
 */
import type { Engine, EngineOptions } from "../core/_engine.ts";
import { invalidParams } from "../core/_errors.ts";
import type { Elsewhere, Found, Sent, SentElsewhere, TaskHome } from "../core/_home.ts";
import type { LiveTask } from "../core/_live_task.ts";
import { storeFailure } from "../core/_store_errors.ts";
import type { TaskRecord } from "../core/_task_view.ts";
import { type StreamFraming, TaskSubscriber } from "../http/_sse.ts";
import type { SendParams } from "../http/_validate.ts";
import { isTaskStorage, type JsonObject } from "../task_storage.ts";
import { isTerminalState, type StoredTask } from "../task_store.ts";
import { type A2ATask, SEAM_EXTENSION_URI } from "../types.ts";
import { Cluster, type ClusterOptions } from "./_cluster.ts";
import { continueElsewhere } from "./_continue_elsewhere.ts";
import { readWaiting } from "../memory/_waiting.ts";
import { type ClusterEngine, forward, untilSettledOrInterrupted } from "./_forward.ts";
import type { ClusterCommand, ClusterReply } from "./_protocol.ts";

/**
 * The home of an engine on a shared storage (`TaskStorage` with `shared`);
 * undefined on another store (`GatewayFeatures.cluster`).
 */
export function createSharedHome(engine: Engine, options: EngineOptions): SharedHome | undefined {
  const store = options.store;
  if (!isTaskStorage(store) || !store.shared) return undefined;
  return new SharedHome(engine, {
    storage: store,
    logger: options.logger,
    maxSubscribers: options.task.maxSubscribers,
    maxBufferedBytes: options.task.maxBufferedBytes,
    commandTimeoutMs: options.task.cancelGraceMs + 2_000,
    engine,
    push: options.push,
  });
}

/** Where an engine's tasks live among instances (see the module doc). */
export class SharedHome implements TaskHome {
  /** This instance among the others. */
  readonly cluster: Cluster;
  readonly #engine: ClusterEngine;
  readonly #options: ClusterOptions;
  /** The task whose creation is being announced: its stream is its log from the start. */
  #creating: LiveTask | undefined;

  constructor(engine: ClusterEngine, options: ClusterOptions) {
    this.#engine = engine;
    this.#options = options;
    this.cluster = new Cluster(options);
  }

  /**
   * Before a new task: wait for the first heartbeat, then refuse it while the
   * storage is out of reach.
   *
   * @throws {GatewayError} 503.
   */
  admit(): Promise<void> {
    return this.cluster.admit();
  }

  locate(record: StoredTask): Elsewhere | undefined {
    if (isTerminalState(record.task.status.state)) return undefined;
    return {
      cancel: async (principal) => {
        const command: ClusterCommand = { kind: "cancel", taskId: record.task.id, principal };
        return (await this.#forward(record, command, "task")).task;
      },
      message: (params, principal, extension, answering) =>
        this.#message(record, params, principal, extension, answering),
    };
  }

  /**
   * The tasks waiting for input in a context, as the storage holds them
   * (its `waiting`, else `list`), for a message naming only the context.
   *
   * @throws {GatewayError} 503 when the storage cannot be read: no waiting
   * task may be missed for a fresh run.
   */
  async waiting(
    principal: string | undefined,
    tenant: string | undefined,
    contextId: string,
    limit: number,
  ): Promise<readonly StoredTask[]> {
    const query = { owner: principal, provider: tenant || undefined, contextId, limit };
    try {
      return await readWaiting(this.#options.storage, query);
    } catch (error) {
      throw storeFailure(
        error,
        this.#options.logger,
        `Reading context "${contextId.slice(0, 100)}"`,
      );
    }
  }

  /**
   * A message to a task another instance runs: it goes there. Waited on
   * from the generation the task had reached (committed or not) when its
   * owner's run took the message, if it said (it may have asked for input
   * since `record` was read: the message answered that request); what the
   * message led to comes after it. `answering`: the answer to the input the
   * task waits for, from a message that named only its context, which the
   * owner refuses if the task no longer waits.
   */
  async #message(
    record: StoredTask,
    params: SendParams,
    principal: string | undefined,
    extension: boolean,
    answering: boolean | undefined,
  ): Promise<Sent> {
    const command: ClusterCommand = answering
      ? { kind: "message", params, principal, answering: true }
      : { kind: "message", params, principal };
    const { since } = await this.#forward(record, command, "accepted");
    return this.#elsewhere(record.task.id, Math.max(since ?? 0, record.generation ?? 0), extension);
  }

  /**
   * A follow-up in a context whose run this instance does not keep: sent to
   * the instance that does, which resumes it and makes the task
   * (_continue_elsewhere.ts); undefined for a fresh run here.
   */
  async continueElsewhere(
    params: SendParams,
    principal: string | undefined,
    provider: string,
    extension: boolean,
  ): Promise<Sent | undefined> {
    const taskId = await continueElsewhere(
      {
        storage: this.#options.storage,
        logger: this.#options.logger,
        instance: this.cluster.instance,
        commandTimeoutMs: this.#options.commandTimeoutMs,
      },
      params,
      principal,
      provider,
    );
    return taskId === undefined ? undefined : this.#elsewhere(taskId, 0, extension);
  }

  /** What a send to task `taskId`, which another instance runs, answers. */
  #elsewhere(taskId: string, since: number, extension: boolean): SentElsewhere {
    return {
      live: undefined,
      taskId,
      extension,
      answer: (params, principal) => this.#steered(taskId, since, params, principal),
      // A message to a task under way: its stream opens on what the message led to.
      stream: (framing) => this.cluster.stream(taskId, framing, 0, since || undefined),
    };
  }

  /**
   * The task a steering message went to (another instance runs it): once it
   * settled or is interrupted, unless `returnImmediately`.
   *
   * @throws {GatewayError} 503 (`STORE_UNAVAILABLE`) when the storage is out
   * of reach as it waits.
   */
  async #steered(
    taskId: string,
    since: number,
    params: SendParams,
    principal: string | undefined,
  ): Promise<A2ATask> {
    if (!params.configuration?.returnImmediately) {
      try {
        await untilSettledOrInterrupted(this.#options.storage, taskId, since);
      } catch (error) {
        // The storage's own failure: 503 while out of reach, never its message.
        throw storeFailure(error, this.#options.logger, `Waiting for task "${taskId}"`);
      }
    }
    const found = await this.#engine.find(taskId, principal, params.tenant);
    return this.#engine.view(found.record, params.configuration?.historyLength);
  }

  /**
   * A new task on a shared storage: journaled from its creation, and
   * announced (streams attached, the request answered) only once that is
   * committed. If it cannot be, the run is stopped and the request answers
   * 503: nothing else knows of the task.
   */
  async created(
    live: LiveTask,
    onLive: ((live: LiveTask) => void) | undefined,
    extension: boolean,
  ): Promise<Sent> {
    const record = live.record;
    const taskId = record.task.id;
    const created = this.cluster.track(
      taskId,
      () => ({ ...record, task: this.#engine.view(record) }),
      () =>
        live.forceEnd(
          "Failed: another gateway instance ended this task (this one's lease had lapsed).",
        ),
    );
    live.observe();
    try {
      await created;
    } catch (error) {
      this.cluster.abandon(taskId);
      this.cluster.unconfirm(taskId);
      live.endEarly("client", "the task store could not record the task");
      live.forceEnd("Failed: the task store could not record this task.");
      throw storeFailure(error, this.#options.logger, `Recording task "${taskId}"`);
    }
    this.#creating = live;
    try {
      onLive?.(live);
    } finally {
      this.#creating = undefined;
    }
    return { live, taskId, extension };
  }

  persist(record: TaskRecord): Promise<void> | undefined {
    return this.cluster.persist(record.task.id);
  }

  /** On a shared storage, a blocking send is answered once committed: any instance finds it so. */
  committed(taskId: string): Promise<void> | undefined {
    return this.cluster.persist(taskId);
  }

  amend(live: LiveTask): Promise<void> {
    return this.cluster.amend(live);
  }

  /**
   * The run of `record`, which just ended, is kept here: its stored end says
   * so (`keptOn`, its seam metadata), for a follow-up that reaches another
   * instance (_continue_elsewhere.ts). Set before the end is written (the
   * journal writes the snapshot as it is then), not in its status event.
   */
  kept(record: StoredTask): void {
    (record.task.metadata as Record<string, Record<string, unknown>>)[SEAM_EXTENSION_URI].keptOn =
      this.cluster.instance;
  }

  stored(taskId: string): void {
    this.cluster.untrack(taskId);
  }

  readonly publish = (task: LiveTask, event: object): void =>
    this.cluster.publish(task.record.task.id, event as JsonObject);

  /**
   * On a shared storage a stream reads the task's log: a new task's from its
   * start; a follow-up's (an answer, a steering message) from the task as
   * the message left it, so it neither shows nor ends at the request an
   * answer answered.
   */
  stream(live: LiveTask, framing: StreamFraming): TaskSubscriber {
    const taskId = live.record.task.id;
    const opening = live === this.#creating ? undefined : this.cluster.emitted(taskId);
    return this.cluster.stream(taskId, framing, 0, opening);
  }

  /**
   * `SubscribeToTask` on a shared storage: the task's log after `cursor`
   * (from its start without one), then its updates, on any instance; an
   * ended task without a cursor is not read from the log.
   *
   * @throws {GatewayError} `invalidParams` for a cursor beyond the task's
   * newest event, which no stream sent (it would wait for ever, past the end).
   */
  async subscribe(
    found: Found,
    framing: StreamFraming,
    cursor: number | undefined,
    first: (live: LiveTask) => A2ATask,
  ): Promise<TaskSubscriber | undefined> {
    let record = found.record;
    if (this.cluster.runs(record.task.id)) {
      // Run here: the live record runs ahead of its log (its end may not be
      // committed yet) and has no generation; the stored one is what the log
      // replays.
      record = await this.#read(record.task.id) ?? record;
    }
    const state = record.task.status.state;
    if (cursor === undefined && isTerminalState(state)) {
      return found.live?.subscribe(framing, { task: first(found.live) });
    }
    if (isTerminalState(state) && cursor! >= (record.generation ?? 0)) {
      // Resumed after the last event: nothing more will come. Past it: an id no stream sent.
      assertSent(record.task.id, cursor!, record.generation ?? 0);
      const done = new TaskSubscriber(framing, 1024);
      done.end();
      return done;
    }
    if (cursor !== undefined && cursor > (record.generation ?? 0)) {
      // A live record does not carry its generation: the storage has the newest.
      assertSent(record.task.id, cursor, (await this.#read(record.task.id))?.generation ?? 0);
    }
    return this.cluster.stream(record.task.id, framing, cursor ?? 0);
  }

  async #read(taskId: string): Promise<StoredTask | undefined> {
    try {
      return await this.#options.storage.get(taskId);
    } catch (error) {
      throw storeFailure(error, this.#options.logger, `Reading task "${taskId}"`);
    }
  }

  close(): Promise<void> {
    return this.cluster.close();
  }

  /** Send `command` to the instance that runs the task (_forward.ts). */
  #forward<K extends ClusterReply["kind"]>(
    record: StoredTask,
    command: ClusterCommand,
    expected: K,
  ): Promise<Extract<ClusterReply, { kind: K }>> {
    const { storage, logger, commandTimeoutMs } = this.#options;
    return forward(storage, logger, commandTimeoutMs, record, command, expected);
  }
}

/** @throws {GatewayError} `invalidParams` for a cursor past the task's newest event. */
function assertSent(taskId: string, cursor: number, newest: number): void {
  if (cursor > newest) {
    throw invalidParams(
      `Last-Event-ID ${cursor} is beyond the newest event of task "${taskId}" (${newest}); resume with the id of an event received, or 0 to replay from the start`,
    );
  }
}
