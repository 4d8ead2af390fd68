/**
 * A task whose run has not ended: the state machine SUBMITTED → WORKING →
 * terminal, the text streamed so far, the subscribers hearing it, and the
 * requests that end it early (a client's cancel, the deadline, shutdown).
 * What it makes only once needed lives beside it: its subscribers
 * (_task_subscribers.ts), the input requests it waits on
 * (_pending_inputs.ts), its deadline (_task_deadline.ts) and the count of
 * its follow-up messages (_steering_caps.ts); how its run's end reads on it
 * is _run_outcome.ts.
 */
import type { AgentRef, Logger } from "@seam/host";
import type {
  SubagentInputAnswer,
  SubagentInputRequest,
  SubagentResult,
  SubagentRun,
} from "@seam/subagent";
import type { RunChain } from "./_kept_runs.ts";
import { inputRequestParts, PendingInputs } from "./_pending_inputs.ts";
import { type EarlyEndCause, forcedEndWords, runOutcome } from "./_run_outcome.ts";
import type { StreamEvent, StreamFraming, TaskSubscriber } from "../http/_sse.ts";
import { SteeringCount } from "./_steering_caps.ts";
import { TaskSubscribers } from "./_task_subscribers.ts";
import {
  agentMessage,
  artifactUpdate,
  isoNow,
  OUTPUT_ARTIFACT,
  statusUpdate,
  streamedArtifact,
  type TaskRecord,
} from "./_task_view.ts";
import { TaskDeadline } from "./_task_deadline.ts";
import { isTerminalState } from "../task_store.ts";
import type { A2AArtifact, A2AMessage, A2ATaskState } from "../types.ts";
import { SEAM_EXTENSION_URI } from "../types.ts";

/** What the engine does for a task: store it, settle its runs, forget it once stored. */
export interface LiveTaskHooks {
  readonly logger: Logger;
  /** Store the record; a promise when the store answers later (never rejects). */
  persist(record: TaskRecord): Promise<void> | undefined;
  /**
   * The task ended: by its run's `result`, or without one (a fault, or ended
   * early without the run's confirmation). The chain is the engine's to
   * dispose or keep.
   */
  settled(task: LiveTask, result: SubagentResult | undefined): void;
  /** The task's final state was stored: forget it. */
  stored(task: LiveTask): void;
  /**
   * Every change as a stream event, whether anyone subscribed here or not
   * (set on a shared storage, which journals them).
   */
  readonly publish?: ((task: LiveTask, event: StreamEvent) => void) | undefined;
  /**
   * Every status update and every whole artifact, as it happens (push
   * notifications); `terminal` with the last. Absent: no event is built
   * for it.
   */
  readonly event?: (record: TaskRecord, event: StreamEvent, terminal: boolean) => void;
  /** Every state change of a task the client sees (the run inspector); absent when it is off. */
  readonly changed?: (task: LiveTask) => void;
}

/** Why a task is being ended early, with the timer that tears its child down if it hangs. */
interface EarlyEnd {
  readonly cause: EarlyEndCause;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Where a task's run is. `interrupted`: the child waits for an answer to an
 * input request (the task is INPUT_REQUIRED or AUTH_REQUIRED, its deadline
 * paused).
 */
export type TaskPhase = "submitted" | "working" | "interrupted" | "ended";

/** Limits that hold per task. */
export interface LiveTaskLimits {
  readonly maxSubscribers: number;
  readonly maxBufferedBytes: number;
  readonly maxSteeringMessages: number;
  /** The JSON size of all follow-up messages' parts together. */
  readonly maxSteeringBytes: number;
  /** 0: none. */
  readonly deadlineMs: number;
  /** How long a cancelled run may take to confirm before the task ends without it. */
  readonly cancelGraceMs: number;
  /** Input requests of all the task's runs together that wait at once (`maxPendingInputsPerTask`). */
  readonly maxPendingInputs: number;
}

/** A task whose run has not ended yet (see the module doc). */
export class LiveTask {
  readonly record: TaskRecord;
  readonly run: SubagentRun;
  readonly parent: AgentRef;
  readonly chain: RunChain;
  /** How the message that started it is answered: as a task, or as a direct message (never stored). */
  readonly reply: "task" | "message";
  #phase: TaskPhase = "submitted";
  #streamed: string[] | undefined;
  #subscribers: TaskSubscribers | undefined;
  #earlyEnd: EarlyEnd | undefined;
  /** Set when the task has a deadline (`taskTimeoutMs`). */
  #deadline: TaskDeadline | undefined;
  // Made when first needed: a task that completes at once waits on no input,
  // and its blocking send is woken directly (bench/README.md, "Gateway",
  // session 6: a Map, an array, a promise and two reactions fewer per task).
  #inputs: PendingInputs | undefined;
  #waiting: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** A request beyond `maxPendingInputs` was refused (the warning is given once per task). */
  #warned = false;
  #done: Promise<void> | undefined;
  #resolveDone: (() => void) | undefined;
  /** The task ended and its final state was stored. */
  #over = false;
  /** The follow-up messages taken so far: made at the first. */
  #steering: SteeringCount | undefined;
  #stopProgress: (() => void) | undefined;
  readonly #hooks: LiveTaskHooks;
  readonly #limits: LiveTaskLimits;

  constructor(
    record: TaskRecord,
    start: { run: SubagentRun; parent: AgentRef; chain: RunChain },
    hooks: LiveTaskHooks,
    limits: LiveTaskLimits,
  ) {
    this.record = record;
    this.run = start.run;
    this.parent = start.parent;
    this.chain = start.chain;
    this.reply = start.chain.context.reply;
    this.#hooks = hooks;
    this.#limits = limits;
    if (limits.deadlineMs > 0) {
      this.#deadline = new TaskDeadline(limits.deadlineMs, () => {
        this.endEarly("deadline", `the task's deadline (${this.#limits.deadlineMs} ms) passed`);
      });
    }
  }

  /** Fulfils once the task ended and its final state was stored. */
  get done(): Promise<void> {
    return this.#done ??= this.#over
      ? Promise.resolve()
      : new Promise<void>((resolve) => this.#resolveDone = resolve);
  }

  /** The input requests the task waits on, oldest first. */
  get waitingInputs(): readonly SubagentInputRequest[] {
    return this.#inputs ? this.#inputs.requests : [];
  }

  /**
   * Wait for an answer to `request` from a follow-up message: the task goes
   * INPUT_REQUIRED (AUTH_REQUIRED for authentication) with the request in
   * its status message, its streams end there (as A2A's do at an
   * interrupted state) and its deadline pauses. Answers `undefined` once
   * `signal` aborts (answered elsewhere, or cancelled). While
   * `maxPendingInputs` requests wait, one more is refused at once (the
   * reason names the bound; a warning is logged once per task) and the
   * task's state does not change.
   */
  awaitInput(
    request: SubagentInputRequest,
    signal: AbortSignal,
  ): Promise<SubagentInputAnswer | undefined> {
    if (this.#phase === "ended" || signal.aborted) return Promise.resolve(undefined);
    const max = this.#limits.maxPendingInputs;
    if (this.#inputs && this.#inputs.size >= max) {
      if (!this.#warned) {
        this.#warned = true;
        this.#hooks.logger.warn(
          `Task "${this.record.task.id}" waits on ${max} input requests: refusing more (maxPendingInputsPerTask; said once)`,
        );
      }
      return Promise.resolve({
        outcome: "refused",
        reason:
          `too many input requests: task "${this.record.task.id}" waits on ${max} (maxPendingInputsPerTask)`,
      });
    }
    const inputs = this.#inputs ??= new PendingInputs(() => {
      if (this.#phase === "interrupted") this.#resumeWork();
    });
    return new Promise((resolve) => {
      inputs.add(request, signal, resolve);
      this.#interrupt(request);
    });
  }

  /** Answer the request `requestId` waits on; false when none such waits. */
  answerInput(requestId: string, answer: SubagentInputAnswer): boolean {
    return this.#inputs?.answer(requestId, answer) ?? false;
  }

  /** Fulfils at the task's end or at its next interrupted state, whichever comes first. */
  untilSettledOrInterrupted(): Promise<void> {
    if (this.#phase === "interrupted" || this.#over) return Promise.resolve();
    // One promise per wait, woken by the end or an interruption (a race of
    // two new promises per SendMessage was measurable garbage).
    return this.#waiting ??= new Promise<void>((resolve) => this.#wake = resolve);
  }

  /** Wake the blocking wait, if one waits. */
  #wakeWaiter(): void {
    const wake = this.#wake;
    this.#wake = this.#waiting = undefined;
    wake?.();
  }

  #interrupt(request: SubagentInputRequest): void {
    const first = this.#phase !== "interrupted";
    this.#phase = "interrupted";
    if (first) this.#deadline?.pause();
    const t = this.record.task;
    this.#setState(
      request.kind === "authentication" ? "TASK_STATE_AUTH_REQUIRED" : "TASK_STATE_INPUT_REQUIRED",
      agentMessage(t, inputRequestParts(request)),
      true,
    );
    this.#wakeWaiter();
  }

  #resumeWork(): void {
    this.#phase = "working";
    this.#deadline?.resume();
    this.#setState("TASK_STATE_WORKING");
  }

  /** Where the run is. */
  get phase(): TaskPhase {
    return this.#phase;
  }

  /** The text streamed so far, while no final artifact replaced it. */
  get streamed(): readonly string[] | undefined {
    return this.#streamed;
  }

  /** The streams open on the task on this instance. */
  get subscribers(): Iterable<TaskSubscriber> {
    return this.#subscribers ?? [];
  }

  /** Stop the task's progress listener when it ends. */
  set stopProgress(stop: (() => void) | undefined) {
    this.#stopProgress = stop;
  }

  /** Follow the run: WORKING once the child exists, the terminal state from its result. */
  observe(): void {
    const { run } = this;
    let ready = false;
    const startedSettled = run.started.then(() => {
      ready = true;
      this.markWorking();
    }, () => {
      ready = true;
    });
    // A result may settle before readiness reaches us: end only once
    // readiness settled, so WORKING always precedes the terminal state.
    const ending = (result: SubagentResult | undefined, error?: unknown): void => {
      try {
        this.finish(result, error);
      } catch (failure) {
        this.#hooks.logger.error("Ending a task failed", failure);
      }
    };
    run.result.then(
      (result) => ready ? ending(result) : startedSettled.then(() => ending(result)),
      (error) =>
        ready ? ending(undefined, error) : startedSettled.then(() => ending(undefined, error)),
    );
  }

  /** SUBMITTED → WORKING (once). */
  markWorking(): void {
    if (this.#phase === "submitted") {
      this.#phase = "working";
      this.#setState("TASK_STATE_WORKING");
    }
  }

  /** A piece of streamed text: an artifact update (the task is WORKING before the first). */
  appendText(text: string): void {
    if (this.#phase === "ended" || typeof text !== "string" || text === "") return;
    this.markWorking();
    const first = this.#streamed === undefined;
    (this.#streamed ??= []).push(text);
    if (!this.#subscribers && !this.#hooks.publish) return;
    const artifact = { artifactId: OUTPUT_ARTIFACT, name: OUTPUT_ARTIFACT, parts: [{ text }] };
    this.#broadcast(artifactUpdate(this.record.task, artifact, !first, false), false);
  }

  /**
   * A new subscriber, its first frame (`first`, written now) already in its
   * stream.
   *
   * @throws {GatewayError} beyond the subscriber cap.
   */
  subscribe(framing: StreamFraming, first: StreamEvent): TaskSubscriber {
    const subscribers = this.#subscribers ??= new TaskSubscribers();
    return subscribers.open(this.record.task.id, framing, first, this.#limits);
  }

  /**
   * Count a steering message against the caps (_steering_caps.ts).
   *
   * @throws {GatewayError} beyond them.
   */
  admitSteering(bytes: number): void {
    (this.#steering ??= new SteeringCount()).admit(bytes, this.record.task.id, this.#limits);
  }

  /** Take back a steering message the run did not take. */
  releaseSteering(bytes: number): void {
    this.#steering?.release(bytes);
  }

  /**
   * End the task early: cancel its run with `reason`; unless the run ends
   * within the cancel grace (none at shutdown), the task ends without it.
   * The first request wins.
   */
  endEarly(cause: EarlyEnd["cause"], reason: string): void {
    if (this.#phase === "ended" || this.#earlyEnd) return;
    const early: EarlyEnd = { cause, timer: undefined };
    this.#earlyEnd = early;
    try {
      this.run.cancel(reason);
    } catch (error) {
      this.#hooks.logger.error(`Cancelling run "${this.run.id}" failed`, error);
    }
    // Cancelling may have ended the run synchronously.
    if ((this.#phase as TaskPhase) === "ended") return;
    const grace = this.#limits.cancelGraceMs;
    const force = () => {
      early.timer = undefined;
      this.forceEnd(forcedEndWords(cause, reason, grace));
    };
    if (cause === "shutdown") force();
    else early.timer = setTimeout(force, grace);
  }

  /** End the task now, whatever its run does; `why` is the status message. */
  forceEnd(why: string): boolean {
    if (this.#phase === "ended") return false;
    const failed = this.#earlyEnd?.cause === "deadline";
    this.#seam().stopReason = failed ? "error" : "aborted";
    this.#keepStreamed();
    this.#end(
      failed ? "TASK_STATE_FAILED" : "TASK_STATE_CANCELED",
      agentMessage(this.record.task, [{ text: why }]),
      undefined,
    );
    return true;
  }

  /** End the task by its run's result (or the fault that rejected it). */
  finish(result: SubagentResult | undefined, error?: unknown): boolean {
    if (this.#phase === "ended") return false;
    const t = this.record.task;
    const { state, parts, explanation } = runOutcome(
      result,
      error,
      this.#seam(),
      this.#earlyEnd?.cause,
      this.#limits.deadlineMs,
    );
    if (parts.length > 0) {
      const artifact: A2AArtifact = { artifactId: OUTPUT_ARTIFACT, name: OUTPUT_ARTIFACT, parts };
      t.artifacts = [artifact];
      this.#streamed = undefined;
      if (this.#subscribers || this.#hooks.publish || this.#hooks.event) {
        const event = artifactUpdate(t, artifact, false, true);
        this.#broadcast(event, false);
        this.#hooks.event?.(this.record, event, false);
      }
    } else this.#keepStreamed();
    this.#end(
      state,
      explanation === undefined ? undefined : agentMessage(t, [{ text: explanation }]),
      result,
    );
    return true;
  }

  #seam(): Record<string, unknown> {
    return (this.record.task.metadata as Record<string, Record<string, unknown>>)[
      SEAM_EXTENSION_URI
    ];
  }

  #end(
    state: A2ATaskState,
    message: A2AMessage | undefined,
    result: SubagentResult | undefined,
  ): void {
    this.#phase = "ended";
    this.#inputs?.settleAll();
    this.#deadline?.stop();
    if (this.#earlyEnd?.timer !== undefined) clearTimeout(this.#earlyEnd.timer);
    if (this.#stopProgress) {
      try {
        this.#stopProgress();
      } catch (error) {
        this.#hooks.logger.error("Stopping a progress source failed", error);
      }
      this.#stopProgress = undefined;
    }
    const stored = this.#setState(state, message);
    this.#hooks.settled(this, result);
    if (stored) stored.then(() => this.#stored());
    else this.#stored();
  }

  /** The final state was stored: the engine forgets the task, its waiters wake. */
  #stored(): void {
    this.#hooks.stored(this);
    this.#over = true;
    this.#resolveDone?.();
    this.#wakeWaiter();
  }

  #setState(
    state: A2ATaskState,
    message?: A2AMessage,
    endsStreams = isTerminalState(state),
  ): Promise<void> | undefined {
    const record = this.record;
    const now = Date.now();
    const status: TaskRecord["task"]["status"] = { state, timestamp: isoNow(now) };
    if (message) status.message = message;
    record.task.status = status;
    record.updatedAt = now;
    const stored = this.#hooks.persist(record);
    const tap = this.#hooks.event;
    if (this.#subscribers || this.#hooks.publish || tap) {
      const event = statusUpdate(record.task, status);
      this.#broadcast(event, endsStreams);
      tap?.(record, event, isTerminalState(state));
    }
    this.#hooks.changed?.(this);
    return stored;
  }

  /**
   * The text streamed so far becomes the output artifact, whole, told to the
   * event tap only (subscribers heard its pieces as they came).
   */
  #keepStreamed(): void {
    if (!this.#streamed) return;
    const artifact = streamedArtifact(this.#streamed);
    this.record.task.artifacts = [artifact];
    this.#streamed = undefined;
    this.#hooks.event?.(
      this.record,
      artifactUpdate(this.record.task, artifact, false, true),
      false,
    );
  }

  #broadcast(event: StreamEvent, final: boolean): void {
    this.#hooks.publish?.(this, event);
    this.#subscribers?.deliver(event, final, this.#hooks.logger);
  }
}
