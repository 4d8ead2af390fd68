// One run: a message to the remote agent and the task it starts, followed
// to its end over a stream (re-attached when it drops) or by polling. This
// is the I/O half; what the remote's answers mean is `_task_reader.ts`, and
// each request (its bounds, the re-attaching and the polling) `_calls.ts`.
import { type ContentInput, type JsonValue, type Logger, messageOf } from "@seam/host";
import {
  cancelOnAbort,
  type SubagentFailure,
  type SubagentInputAnswer,
  SubagentInputs,
  type SubagentResultInput,
  type SubagentResumeRequest,
  type SubagentRunHandle,
  subagentRunPath,
  type SubagentStopReason,
  type SubagentUsageInput,
} from "@seam/subagent";
import type { SendMessageRequest } from "@a2a-js/sdk";
import { type Alarm, type FailureData, RemoteProtocolError, type TimedOut } from "./_async.ts";
import { RemoteCalls } from "./_calls.ts";
import { rearmsIdle } from "./_reconnect.ts";
import { cancelRefused, failureOf } from "./_failure.ts";
import { answerMessage, remoteAskOf } from "./_input_request.ts";
import {
  assertResumable,
  deadlineAlarm,
  emitHop,
  emitText,
  firstRequest,
  idleAlarm,
  readerOptions,
  resumePlan,
  runHandle,
  runResult,
  taskMessage,
  waitingForAnswer,
} from "./_run_parts.ts";
import { type TaskNews, TaskReader } from "./_task_reader.ts";
import type { RemoteContext, RunPlan } from "./_remote.ts";
import { type Piece, sendRequest } from "./_wire.ts";

/**
 * Where a run is:
 * - `starting`: the message is out, no task known yet (`started` pending);
 * - `streaming`: the task is known, its first stream is read;
 * - `following`: the task is followed after that stream (re-attached) or polled;
 * - `asking`: the task waits for input (INPUT_REQUIRED, AUTH_REQUIRED) and the
 *   run asks its parent (the idle timeout and the deadline paused);
 * - `cancelling`: cancelled with its task known; the I/O stopped, `CancelTask`
 *   sent, the result (`aborted`) waits for its answer to say whether the
 *   remote refused (bounded by `timeoutMs`);
 * - `ending`: the result is settled; the I/O winds down (a task still live is cancelled);
 * - `ended`: settled and wound down;
 * - `handed-over`: ended, its interrupted task continued by a `resume` run.
 */
type RunState =
  | "starting"
  | "streaming"
  | "following"
  | "asking"
  | "cancelling"
  | "ending"
  | "ended"
  | "handed-over";

const noop = (): void => {};
let runCounter = 0;

/** One run; `handle` is what the provider returns from `start` and `resume`. */
export class A2ARun {
  readonly id: string;
  readonly started: Promise<void>;
  readonly result: Promise<SubagentResultInput>;
  readonly handle: SubagentRunHandle;
  readonly #remote: RemoteContext;
  readonly #plan: RunPlan;
  readonly #task: TaskReader;
  readonly #calls: RemoteCalls;
  readonly #idle: Alarm;
  readonly #deadline: Alarm | undefined;
  /** The input requests the remote task raised, asked in the parent's scope. */
  readonly #inputs: SubagentInputs;
  /** The run ids from the root down to this run (sent to a seam gateway). */
  readonly #path: readonly string[];
  #state: RunState = "starting";
  #resolveStarted!: () => void;
  #rejectStarted!: (error: Error) => void;
  #resolveResult!: (result: SubagentResultInput) => void;
  #driving: Promise<void>;
  #remoteCancel: Promise<FailureData | undefined> | undefined;
  #disposal: Promise<void> | undefined;
  #unbindSignal = noop;

  constructor(remote: RemoteContext, plan: RunPlan) {
    this.id = `${remote.providerName}-${++runCounter}`;
    this.#remote = remote;
    this.#plan = plan;
    this.#inputs = new SubagentInputs(plan.parent.scope, this.id);
    this.#path = [...subagentRunPath(plan.parent.scope), this.id];
    this.#task = new TaskReader(readerOptions(remote, plan));
    this.#calls = new RemoteCalls(remote, plan, this.#task, {
      id: this.id,
      logger: () => this.#logger,
      take: (news) => this.#take(news),
      shouldStop: () => this.#shouldStop(),
    });
    this.#idle = idleAlarm(remote, (why) => this.#expire(why));
    this.#deadline = deadlineAlarm(remote, (why) => this.#expire(why));
    this.started = new Promise<void>((resolve, reject) => {
      this.#resolveStarted = resolve;
      this.#rejectStarted = reject;
    });
    this.started.catch(noop);
    this.result = new Promise((resolve) => this.#resolveResult = resolve);
    remote.live.add(this);
    const signal = plan.signal;
    if (signal) {
      this.#unbindSignal = cancelOnAbort(signal, (reason) => this.cancel(reason), { defer: true });
    }
    this.#deadline?.arm();
    // One microtask first: a cancel in the same tick as start() sends nothing.
    this.#driving = Promise.resolve().then(() => this.#drive()).catch((error) => {
      this.#logger.error(`A2A run ${this.id} failed unexpectedly`, error);
      this.#fail(error);
    });
    this.handle = runHandle(
      this,
      remote,
      (requestId, answer) => this.#inputs.respond(requestId, answer),
    );
  }

  get #logger(): Logger {
    return this.#remote.logger ?? this.#plan.parent.scope.logger;
  }

  /** Whether the result is settled, or decided (`cancelling`: nothing else may settle it). */
  get #settled(): boolean {
    return this.#state === "cancelling" || this.#state === "ending" || this.#state === "ended" ||
      this.#state === "handed-over";
  }

  // ---- the drive ----

  async #drive(): Promise<void> {
    if (this.#settled) return;
    const task = this.#task;
    try {
      let request = this.#request();
      // One exchange per message: the first, then one per answer to an interruption.
      for (;;) {
        await this.#exchange(request);
        if (this.#settled || task.condition !== "interrupted") break;
        const answer = await this.#askParent();
        if (answer === undefined) break;
        request = answer;
      }
    } catch (error) {
      this.#fail(error); // a no-op once cancel() settled the run
    } finally {
      this.#calls.io.abort(new Error("the run ended"));
      this.#idle.stop();
      this.#deadline?.stop();
      // The drive stops only at an end or a stop, so this settles nothing real;
      // it keeps the rule "the result always settles" whatever happened above.
      if (!this.#settled) this.#fail(new Error("the run stopped before its task ended"));
      if (task.condition === "live") await this.#cancelRemote();
      if (this.#state === "ending") this.#state = "ended";
    }
  }

  /** Send one message and read what it brings until reading can stop. */
  async #exchange(request: SendMessageRequest): Promise<void> {
    const remote = this.#remote;
    const task = this.#task;
    if (remote.streaming) {
      const drained = await this.#calls.consume((signal) =>
        remote.client.sendMessageStream(request, this.#calls.options(signal))
      );
      if (!drained) {
        if (task.taskId === undefined) {
          throw this.#calls.lastDrop ??
            new RemoteProtocolError("the stream ended before the remote agent created a task");
        }
        if (this.#state === "streaming") this.#state = "following";
        await this.#calls.follow(true);
      }
      if (remote.refreshOnEnd && task.condition === "ended" && !this.#settled) {
        const snapshot = await this.#calls.getTask(task.taskId!);
        task.replaceArtifacts(snapshot?.artifacts);
        this.#finishFromRemote();
      }
    } else {
      const answer = await this.#calls.unary(
        (signal) => remote.client.sendMessage(request, this.#calls.options(signal)),
      );
      this.#take(task.readAnswer(answer as never));
      if (!this.#shouldStop()) await this.#calls.follow(false);
    }
  }

  /**
   * The remote task waits for input: ask the parent (the request travels up
   * its scopes to a handler, or `run.respond` answers it) and answer
   * `undefined` when the run ended meanwhile or at the refusal, else the
   * message that answers the task. A refusal goes to a seam gateway as its
   * `answer` (the child there decides); another agent has no way to hear one,
   * so the run ends at the interruption (`error`, its code the state's;
   * `resume()` may still answer it). The idle timeout and the deadline do
   * not count the wait.
   */
  async #askParent(): Promise<SendMessageRequest | undefined> {
    const task = this.#task;
    const remote = this.#remote;
    const asked = remoteAskOf(task.statusPieces, task.state, task.taskId, this.#path);
    let answered: Promise<SubagentInputAnswer>;
    try {
      answered = this.#inputs.ask(asked.ask, asked.relay);
    } catch (error) {
      throw new RemoteProtocolError(
        `the remote agent's input request is malformed: ${messageOf(error)}`,
      );
    }
    this.#state = "asking";
    this.#idle.stop();
    this.#deadline?.pause();
    const answer = await answered;
    if (this.#settled) return undefined;
    this.#state = "following";
    this.#deadline?.resume();
    if (answer.outcome === "refused" && asked.remoteId === undefined) {
      this.#finishFromRemote(answer.reason);
      return undefined;
    }
    task.answered();
    this.#idle.arm();
    this.#calls.call = remote.streaming ? "SendStreamingMessage" : "SendMessage";
    const message = answerMessage(answer, asked.remoteId, {
      taskId: task.taskId!,
      contextId: task.contextId,
      depth: this.#plan.depth,
    }, asked.functionCall);
    return sendRequest(remote.tenant, message, !remote.streaming);
  }

  /** Whether reading can stop: the task ended or waits, the agent replied, or the run settled. */
  #shouldStop(): boolean {
    const condition = this.#task.condition;
    return condition === "ended" || condition === "interrupted" || condition === "reply" ||
      (this.#settled && condition !== "unknown");
  }

  /** Act on what one answer or event brought. */
  #take(news: TaskNews): void {
    if (news.first && this.#state === "starting") {
      this.#state = this.#remote.streaming ? "streaming" : "following";
      this.#resolveStarted();
      this.#emitHop();
    }
    if (this.#settled) return;
    // Progress, not any change: a remote flipping back to what it said
    // before (WORKING and SUBMITTED by turns, two words) is idle all the same.
    if (rearmsIdle(news)) this.#idle.arm();
    this.#emit(news.text);
    switch (this.#task.condition) {
      case "unknown":
      case "live":
        return;
      case "interrupted":
        // The remote task waits for input (INPUT_REQUIRED) or authentication
        // (AUTH_REQUIRED): reading stops, and the drive asks the parent.
        return;
      case "ended":
        // A stream whose chunks cannot be trusted ends after one more read (see #drive).
        if (this.#remote.refreshOnEnd && this.#remote.streaming) return;
        return this.#finishFromRemote();
      case "reply":
        return this.#finishFromRemote();
    }
  }

  #request(): SendMessageRequest {
    return firstRequest(this.#remote, this.#plan, this.#path);
  }

  #emitHop(): void {
    emitHop(this.#remote, this.#plan, this.id, this.#task.taskId);
  }

  #emit(text: string): void {
    if (!this.#settled) emitText(this.#plan, this.id, text);
  }

  // ---- endings ----

  #finishFromRemote(refused?: string): void {
    if (this.#settled) return;
    const outcome = this.#task.outcome(this.#plan.outputSchema, this.#remote.offerResume, refused);
    this.#finish(
      outcome.stopReason,
      outcome.pieces,
      outcome.error,
      outcome.structured,
      outcome.usage,
    );
  }

  #fail(error: unknown): void {
    if (this.#settled) {
      this.#logger.debug(`A2A run ${this.id} (already ended): ${messageOf(error)}`);
      return;
    }
    const failure = failureOf(
      error,
      this.#calls.call,
      this.#state === "starting",
      this.#calls.failedStatus,
    );
    this.#logger.warn(`A2A run ${this.id}: ${failure.message}`);
    this.#finish("error", this.#task.pieces(), failure);
  }

  /** An idle timeout or the deadline: end `error`, and stop the I/O as a cancel does. */
  #expire(why: TimedOut): void {
    if (this.#settled) return;
    this.#fail(why);
    this.#stopIo("timed out");
    this.#inputs.cancelAll("the run timed out");
  }

  /**
   * Stop every request once the task is known (or there is none); until
   * then keep listening for it (bounded by `timeoutMs`) so it can be cancelled.
   */
  #stopIo(why: string): void {
    if (this.#task.condition !== "unknown") this.#calls.io.abort(new Error(why));
  }

  #finish(
    stopReason: SubagentStopReason,
    pieces: readonly Piece[],
    error?: SubagentFailure,
    structured?: JsonValue,
    usage?: SubagentUsageInput,
  ): void {
    if (this.#settled && this.#state !== "cancelling") return;
    const wasStarting = this.#state === "starting";
    this.#state = "ending";
    this.#unbindSignal();
    this.#idle.stop();
    this.#deadline?.stop();
    if (wasStarting) {
      this.#rejectStarted(
        new Error(error?.message ?? `the run ended "${stopReason}" before the remote task existed`),
      );
    }
    this.#calls.descendants?.end(stopReason);
    const result = runResult(stopReason, pieces, error, structured, usage);
    this.#resolveResult(result);
  }

  /** Cancel the remote task (`CancelTask`), once; a refusal is warned of and answered as data, never thrown. */
  #cancelRemote(): Promise<FailureData | undefined> {
    return this.#remoteCancel ??= this.#calls.cancelTask(this.#task.taskId!);
  }

  // ---- the handle ----

  /**
   * End the run `aborted`: at once while no task is live; else once
   * `CancelTask` is answered (within `timeoutMs`) and the drive stopped, a
   * refusal in the result's `error` (the remote task may still run).
   */
  cancel(reason?: string): void {
    if (this.#settled) return;
    const task = this.#task;
    const taskId = task.taskId;
    const live = taskId !== undefined &&
      (task.condition === "live" || task.condition === "interrupted");
    if (live) this.#state = "cancelling";
    else this.#finish("aborted", task.pieces());
    this.#stopIo("cancelled");
    this.#inputs.cancelAll(reason ?? "the run was cancelled");
    if (!live) return;
    void Promise.all([this.#cancelRemote(), this.#driving]).then(([refused]) => {
      this.#finish("aborted", task.pieces(), refused && cancelRefused(taskId, refused));
      this.#state = "ended";
    });
  }

  /** Cancel if live, wait for the drive to stop, cancel a task still live. Memoized. */
  dispose(): Promise<void> {
    return this.#disposal ??= (async () => {
      this.#unbindSignal();
      this.cancel("disposed");
      try {
        await this.#driving;
        const condition = this.#task.condition;
        if (
          (condition === "live" || condition === "interrupted") && this.#state !== "handed-over"
        ) {
          await this.#cancelRemote();
        }
        await this.#remoteCancel;
      } finally {
        this.#remote.live.delete(this);
      }
    })();
  }

  /** A message to the running task (`SendMessage` with its `taskId`). */
  async sendMessage(content: ContentInput): Promise<void> {
    try {
      await this.started;
    } catch {
      throw new TypeError(`Cannot send a message to run "${this.id}": it never started`);
    }
    if (this.#settled) {
      throw new TypeError(
        `Cannot send a message to run "${this.id}": it has finished${
          this.#remote.offerResume ? "; use resume()" : ""
        }`,
      );
    }
    if (this.#state === "asking" || this.#task.condition === "interrupted") {
      // The remote would take any message now as the answer to what it asks.
      throw new TypeError(waitingForAnswer(this.id, this.#inputs.pending));
    }
    await this.#calls.steer(
      taskMessage(this.#remote, content, this.#task.taskId, this.#task.contextId),
    );
  }

  /** A follow-up in the task's context (on the same task after INPUT_REQUIRED), as a new run. */
  resume(content: ContentInput, request?: SubagentResumeRequest): SubagentRunHandle {
    const task = this.#task;
    assertResumable(this.id, this.#disposal !== undefined, this.#settled, task.contextId);
    const continueTask = task.condition === "interrupted" && this.#state !== "handed-over" &&
        this.#remoteCancel === undefined
      ? task.taskId
      : undefined;
    if (continueTask !== undefined) this.#state = "handed-over";
    const plan = resumePlan(
      this.#remote,
      this.#plan,
      content,
      request,
      task.contextId,
      continueTask,
    );
    const run = new A2ARun(this.#remote, plan);
    return run.handle;
  }
}
