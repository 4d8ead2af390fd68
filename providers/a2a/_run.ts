// One run: a message to the remote agent and the task it starts, followed
// to its end over a stream (re-attached when it drops) or by polling.
import {
  type AgentRef,
  type ContentBlock,
  type ContentInput,
  delay,
  type JsonValue,
  type Logger,
} from "@seam/host";
import {
  type OutputSchema,
  subagentProgress,
  type SubagentResultInput,
  type SubagentRunHandle,
  type SubagentStopReason,
  validateStructuredOutput,
} from "@seam/subagent";
import type {
  Artifact,
  Message,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskStatus,
} from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import {
  Deadline,
  isA2AError,
  isNetworkError,
  messageOf,
  RemoteProtocolError,
  TimedOut,
} from "./_async.ts";
import {
  readSeamReport,
  SEAM_EXTENSION_URI,
  type SeamMessageFields,
  type SeamRemoteProvider,
  type SeamTaskReport,
} from "./_extension.ts";
import {
  appendPieces,
  blocksToParts,
  isTerminal,
  partsToPieces,
  type Piece,
  stateName,
  TaskStates,
  textOfPieces,
  userMessage,
} from "./_wire.ts";

/** What every run of one provider shares. */
export interface RemoteContext {
  readonly client: Client;
  readonly providerName: string;
  /** The request `tenant` (a seam gateway's provider), or `""`. */
  readonly tenant: string;
  /** The addressed provider of a seam gateway; `undefined` for other agents. */
  readonly seam: SeamRemoteProvider | undefined;
  readonly streaming: boolean;
  readonly timeoutMs: number;
  readonly pollIntervalMs: number;
  readonly reconnect: {
    readonly retries: number;
    readonly delayMs: number;
    readonly maxDelayMs: number;
  };
  readonly serviceParameters: Record<string, string> | undefined;
  readonly logger: Logger | undefined;
  readonly offerResume: boolean;
  readonly offerSendMessage: boolean;
  /**
   * Read the task once more (`GetTask`) when its stream ends it, for its
   * artifacts: the SDK client's v0.3 HTTP+JSON stream drops `append`, so
   * streamed chunks cannot be assembled reliably.
   */
  readonly refreshOnEnd: boolean;
  readonly live: Set<A2ARun>;
}

/** One run's request, as planned by the provider. */
export interface RunPlan {
  readonly prompt: readonly ContentBlock[];
  readonly parent: AgentRef;
  readonly signal?: AbortSignal;
  readonly outputSchema?: OutputSchema;
  /** The caller's delegation depth (forwarded to a seam gateway). */
  readonly depth: number;
  /** The seam extension for the message (seam gateways only). */
  readonly extension?: SeamMessageFields;
  /** The context to continue (a resume). */
  readonly contextId?: string;
  /** The interrupted task to continue (a resume after INPUT_REQUIRED or AUTH_REQUIRED). */
  readonly taskId?: string;
  /** Whether this run continues an earlier run's context. */
  readonly resumed: boolean;
}

const noop = (): void => {};
let runCounter = 0;

type Consumed = { readonly ended: boolean; readonly events: number };

/** One run; `handle` is what the provider returns from `start` and `resume`. */
export class A2ARun {
  readonly id: string;
  readonly started: Promise<void>;
  readonly result: Promise<SubagentResultInput>;
  readonly handle: SubagentRunHandle;
  readonly #remote: RemoteContext;
  readonly #plan: RunPlan;
  /** Aborted to stop every request of the drive (a cancel once the task is known, or the end). */
  readonly #io = new AbortController();
  #phase: string;
  #taskId: string | undefined;
  #contextId: string | undefined;
  #state = 0;
  #remoteTerminal = false;
  #interrupted = false;
  #handedOver = false;
  #messageOnly = false;
  #confirmContinuation: boolean;
  #artifacts = new Map<string, Piece[]>();
  #statusMessage: Piece[] | undefined;
  #report: SeamTaskReport | undefined;
  #lastDrop: unknown;
  #settled = false;
  #isStarted = false;
  #resolveStarted!: () => void;
  #rejectStarted!: (error: Error) => void;
  #resolveResult!: (result: SubagentResultInput) => void;
  #driving: Promise<void>;
  #remoteCancel: Promise<void> | undefined;
  #disposal: Promise<void> | undefined;
  #unbindSignal = noop;

  constructor(remote: RemoteContext, plan: RunPlan) {
    this.id = `${remote.providerName}-${++runCounter}`;
    this.#remote = remote;
    this.#plan = plan;
    this.#phase = remote.streaming ? "SendStreamingMessage" : "SendMessage";
    this.#confirmContinuation = plan.resumed && remote.seam !== undefined &&
      plan.taskId === undefined;
    this.started = new Promise<void>((resolve, reject) => {
      this.#resolveStarted = resolve;
      this.#rejectStarted = reject;
    });
    this.started.catch(noop);
    this.result = new Promise((resolve) => this.#resolveResult = resolve);
    remote.live.add(this);
    const signal = plan.signal;
    if (signal?.aborted) {
      queueMicrotask(() => this.cancel("the caller's signal was aborted"));
    } else if (signal) {
      const onAbort = () => this.cancel("the caller's signal was aborted");
      signal.addEventListener("abort", onAbort, { once: true });
      this.#unbindSignal = () => signal.removeEventListener("abort", onAbort);
    }
    // One microtask first: a cancel in the same tick as start() sends nothing.
    this.#driving = Promise.resolve().then(() => this.#drive()).catch((error) => {
      this.#logger.error(`A2A run ${this.id} failed unexpectedly`, error);
      this.#fail(error);
    });
    const handle: { -readonly [K in keyof SubagentRunHandle]: SubagentRunHandle[K] } = {
      id: this.id,
      started: this.started,
      result: this.result,
      cancel: (reason?: string) => this.cancel(reason),
      dispose: () => this.dispose(),
    };
    if (remote.offerSendMessage) handle.sendMessage = (content) => this.sendMessage(content);
    if (remote.offerResume) handle.resume = (content) => this.resume(content);
    this.handle = handle;
  }

  get #logger(): Logger {
    return this.#remote.logger ?? this.#plan.parent.scope.logger;
  }

  // ---- the drive ----

  async #drive(): Promise<void> {
    if (this.#settled) return;
    const remote = this.#remote;
    try {
      if (remote.streaming) {
        const first = await this.#consume((signal) =>
          remote.client.sendMessageStream(this.#request(), this.#options(signal))
        );
        if (!first.ended) {
          if (this.#taskId === undefined) {
            throw this.#lastDrop ??
              new RemoteProtocolError("the stream ended before the remote agent created a task");
          }
          await this.#follow(true);
        }
        if (remote.refreshOnEnd && this.#remoteTerminal && !this.#settled) {
          this.#phase = "GetTask";
          const id = this.#taskId!;
          const task = await this.#unary((signal) =>
            remote.client.getTask(
              { tenant: remote.tenant, id, historyLength: 0 },
              this.#options(signal),
            )
          );
          this.#artifacts.clear();
          for (const artifact of task?.artifacts ?? []) {
            this.#artifacts.set(
              typeof artifact.artifactId === "string" ? artifact.artifactId : "",
              partsToPieces(artifact.parts, remote.seam !== undefined),
            );
          }
          this.#finishFromRemote();
        }
      } else {
        const answer = await this.#unary(
          (signal) => remote.client.sendMessage(this.#request(), this.#options(signal)),
        );
        if (answer && typeof answer === "object" && "messageId" in answer) {
          this.#applyMessage(answer as Message);
        } else {
          this.#applyTask(answer as Task);
        }
        if (!this.#shouldStop()) await this.#follow(false);
      }
    } catch (error) {
      this.#fail(error); // a no-op once cancel() settled the run
    } finally {
      this.#io.abort(new Error("the run ended"));
      if (this.#taskId !== undefined && !this.#remoteTerminal && !this.#interrupted) {
        await this.#cancelRemote();
      }
    }
  }

  #shouldStop(): boolean {
    return this.#remoteTerminal || this.#messageOnly ||
      (this.#settled && this.#taskId !== undefined);
  }

  #request(): SendMessageRequest {
    const plan = this.#plan;
    const seam = plan.extension !== undefined;
    return {
      tenant: this.#remote.tenant,
      message: userMessage(blocksToParts(plan.prompt), {
        contextId: plan.contextId,
        taskId: plan.taskId,
        metadata: seam ? { [SEAM_EXTENSION_URI]: plan.extension } : undefined,
        extensions: seam ? [SEAM_EXTENSION_URI] : undefined,
      }),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        historyLength: 0,
        returnImmediately: !this.#remote.streaming,
      },
      metadata: undefined,
    };
  }

  #options(signal: AbortSignal): {
    signal: AbortSignal;
    serviceParameters?: Record<string, string>;
  } {
    const serviceParameters = this.#remote.serviceParameters;
    return serviceParameters ? { signal, serviceParameters } : { signal };
  }

  #timeoutMessage(): string {
    return `the remote agent did not answer ${this.#phase} within ${this.#remote.timeoutMs} ms (timeoutMs)`;
  }

  /** One request and its answer, bounded by `timeoutMs` and the run's own signal. */
  async #unary<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = new Deadline(
      this.#io.signal,
      this.#remote.timeoutMs,
      () => this.#timeoutMessage(),
    );
    try {
      return await call(deadline.signal);
    } catch (error) {
      if (deadline.timedOut) throw new TimedOut(this.#timeoutMessage());
      throw error;
    } finally {
      deadline.release();
    }
  }

  /**
   * Read one stream until the run can stop (`ended`) or the stream drops
   * (ended early, or the connection broke). The first event must come within
   * `timeoutMs`; an answer that is not a stream throws.
   */
  async #consume(
    open: (signal: AbortSignal) => AsyncGenerator<StreamResponse, void, undefined>,
  ): Promise<Consumed> {
    const deadline = new Deadline(
      this.#io.signal,
      this.#remote.timeoutMs,
      () => this.#timeoutMessage(),
    );
    let events = 0;
    try {
      for await (const event of open(deadline.signal)) {
        if (events++ === 0) deadline.disarm();
        this.#onEvent(event);
        if (this.#shouldStop()) return { ended: true, events };
      }
      this.#lastDrop = undefined;
      return { ended: false, events };
    } catch (error) {
      if (deadline.timedOut) throw new TimedOut(this.#timeoutMessage());
      if (this.#io.signal.aborted) return { ended: true, events };
      if (isNetworkError(error)) {
        this.#lastDrop = error;
        return { ended: false, events };
      }
      throw error;
    } finally {
      deadline.release();
    }
  }

  /**
   * Follow a known task to its end: re-attach its stream (`SubscribeToTask`)
   * after a drop, or poll it (`GetTask`), with bounded retries and backoff.
   */
  async #follow(streaming: boolean): Promise<void> {
    const remote = this.#remote;
    const { retries, delayMs, maxDelayMs } = remote.reconnect;
    const id = this.#taskId!;
    let failures = streaming ? 1 : 0;
    let last: unknown = this.#lastDrop ?? (streaming ? "the stream ended early" : undefined);
    while (!this.#shouldStop()) {
      if (failures > retries) {
        throw new Error(
          `lost remote task "${id}"${last === undefined ? "" : ` (${messageOf(last)})`}${
            retries > 0 ? ` and ${retries} attempt(s) to re-attach failed` : " (reconnect is off)"
          }`,
        );
      }
      const wait = failures === 0
        ? remote.pollIntervalMs
        : Math.min(maxDelayMs, delayMs * 2 ** (failures - 1));
      await delay(wait, this.#io.signal);
      try {
        if (streaming) {
          this.#phase = "SubscribeToTask";
          const consumed = await this.#consume((signal) =>
            remote.client.resubscribeTask({ tenant: remote.tenant, id }, this.#options(signal))
          );
          if (consumed.ended) return;
          last = this.#lastDrop ?? "the stream ended before the task did";
          // News beyond the first snapshot counts as a recovered connection.
          failures = consumed.events > 1 ? 1 : failures + 1;
        } else {
          this.#phase = "GetTask";
          const task = await this.#unary((signal) =>
            remote.client.getTask(
              { tenant: remote.tenant, id, historyLength: 0 },
              this.#options(signal),
            )
          );
          this.#applyTask(task);
          failures = 0;
        }
      } catch (error) {
        if (this.#io.signal.aborted) return;
        if (error instanceof RemoteProtocolError) throw error;
        if (streaming && isA2AError(error)) {
          // It will not stream this task (it ended, or it cannot re-attach): read it instead.
          this.#logger.debug(
            `A2A run ${this.id}: SubscribeToTask refused (${error.message}); polling GetTask`,
          );
          streaming = false;
          failures = 0;
          continue;
        }
        if (isA2AError(error)) throw error;
        last = error;
        failures++;
      }
    }
  }

  // ---- events ----

  #onEvent(event: StreamResponse): void {
    const payload = event?.payload;
    switch (payload?.$case) {
      case "task":
        return this.#applyTask(payload.value);
      case "message":
        return this.#applyMessage(payload.value);
      case "statusUpdate": {
        const update = payload.value;
        this.#noteTask(update.taskId, update.contextId);
        return this.#applyStatus(update.status, update.metadata);
      }
      case "artifactUpdate": {
        const update = payload.value;
        this.#noteTask(update.taskId, update.contextId);
        if (!update.artifact) {
          throw new RemoteProtocolError(
            "the remote agent sent an artifact update with no artifact",
          );
        }
        return this.#applyArtifact(update.artifact, update.append);
      }
      default:
        throw new RemoteProtocolError(
          `the remote agent sent an event that is none of task, message, statusUpdate, artifactUpdate: ${
            JSON.stringify(event)?.slice(0, 200)
          }`,
        );
    }
  }

  #noteTask(taskId: string | undefined, contextId: string | undefined): void {
    if (typeof taskId !== "string" || taskId === "") {
      throw new RemoteProtocolError("the remote agent sent a task event with no task id");
    }
    if (this.#taskId === undefined) {
      this.#taskId = taskId;
      if (contextId) this.#contextId = contextId;
      if (!this.#settled && !this.#isStarted) {
        this.#isStarted = true;
        this.#resolveStarted();
      }
    } else if (taskId !== this.#taskId) {
      throw new RemoteProtocolError(
        `the remote agent sent an event of task "${taskId}" on the stream of task "${this.#taskId}"`,
      );
    }
  }

  #applyTask(task: Task): void {
    if (!task || typeof task !== "object") {
      throw new RemoteProtocolError("the remote agent answered with neither a task nor a message");
    }
    this.#noteTask(task.id, task.contextId);
    for (const artifact of task.artifacts ?? []) this.#applyArtifact(artifact, false);
    this.#applyStatus(task.status, task.metadata);
  }

  #applyMessage(message: Message): void {
    const pieces = partsToPieces(message?.parts, this.#remote.seam !== undefined);
    if (message?.taskId) {
      // An agent message about a task: progress, and its latest word.
      this.#noteTask(message.taskId, message.contextId);
      this.#statusMessage = pieces;
      this.#emit(textOfPieces(pieces));
      return;
    }
    // A direct reply: the run is that message.
    this.#messageOnly = true;
    if (message?.contextId) this.#contextId = message.contextId;
    if (this.#settled) return;
    if (!this.#isStarted) {
      this.#isStarted = true;
      this.#resolveStarted();
    }
    this.#artifacts.set("", pieces);
    this.#state = TaskStates.COMPLETED;
    this.#finishFromRemote();
  }

  #applyStatus(status: TaskStatus | undefined, metadata: Task["metadata"]): void {
    if (!status || typeof status.state !== "number") {
      throw new RemoteProtocolError("the remote agent sent a task status with no state");
    }
    const report = readSeamReport(metadata);
    if (report) this.#report = report;
    if (this.#confirmContinuation && report) {
      this.#confirmContinuation = false;
      if (report.resumedFrom === undefined) {
        throw new RemoteProtocolError(
          `the seam gateway did not continue context "${this.#plan.contextId}": it started a fresh run (it kept no run for a follow-up in that context, or its provider cannot resume); that task was cancelled`,
        );
      }
    }
    if (status.message) {
      this.#statusMessage = partsToPieces(status.message.parts, this.#remote.seam !== undefined);
    }
    const state = status.state;
    this.#state = state;
    switch (state) {
      case TaskStates.SUBMITTED:
      case TaskStates.WORKING:
        return;
      case TaskStates.COMPLETED:
      case TaskStates.FAILED:
      case TaskStates.CANCELED:
      case TaskStates.REJECTED:
        this.#remoteTerminal = true;
        // A stream whose chunks cannot be trusted ends after one more read (see #drive).
        if (this.#remote.refreshOnEnd && this.#remote.streaming) return;
        return this.#finishFromRemote();
      case TaskStates.INPUT_REQUIRED:
      case TaskStates.AUTH_REQUIRED:
        this.#interrupted = true;
        return this.#finishFromRemote();
      default:
        throw new RemoteProtocolError(`the remote task entered ${stateName(state)}`);
    }
  }

  #applyArtifact(artifact: Artifact, append: boolean): void {
    const id = typeof artifact.artifactId === "string" ? artifact.artifactId : "";
    const pieces = partsToPieces(artifact.parts, this.#remote.seam !== undefined);
    const previous = this.#artifacts.get(id);
    if (append && previous) {
      appendPieces(previous, pieces);
      this.#emit(textOfPieces(pieces));
      return;
    }
    const text = textOfPieces(pieces);
    const before = previous ? textOfPieces(previous) : "";
    this.#artifacts.set(id, pieces);
    // A replacement that extends what was streamed adds only its new end.
    this.#emit(text.startsWith(before) ? text.slice(before.length) : text);
  }

  #emit(text: string): void {
    if (text === "" || this.#settled) return;
    const scope = this.#plan.parent.scope;
    if (!scope.hasListeners(subagentProgress)) return;
    scope.emit(subagentProgress, Object.freeze({ runId: this.id, kind: "text" as const, text }));
  }

  // ---- endings ----

  #pieces(): Piece[] {
    const pieces: Piece[] = [];
    for (const artifact of this.#artifacts.values()) pieces.push(...artifact);
    return pieces;
  }

  #finishFromRemote(): void {
    if (this.#settled) return;
    const state = this.#state;
    const exact = this.#report?.stopReason;
    let stopReason: SubagentStopReason = exact ?? stopReasonOf(state);
    const pieces = this.#pieces();
    const notes: string[] = [];
    if (exact !== undefined) {
      // A seam gateway's output is the remote run's output, exactly.
      if (this.#report?.error) notes.push(`[a2a] the remote run broke down: ${this.#report.error}`);
    } else {
      // The agent's word on the state: the output when there is no other,
      // else a note (for an end other than COMPLETED).
      const said = this.#statusMessage ? textOfPieces(this.#statusMessage) : "";
      const usedAsOutput = pieces.length === 0 && this.#statusMessage?.length !== undefined &&
        this.#statusMessage.length > 0;
      if (usedAsOutput) pieces.push(...this.#statusMessage!);
      if (state !== TaskStates.COMPLETED) {
        if (said !== "" && !usedAsOutput) notes.push(`[a2a] ${stateName(state)}: ${said}`);
        if (state === TaskStates.INPUT_REQUIRED || state === TaskStates.AUTH_REQUIRED) {
          notes.push(
            `[a2a] the remote agent stopped in ${stateName(state)}: it needs ${
              state === TaskStates.INPUT_REQUIRED ? "more input" : "authentication"
            } to go on${this.#remote.offerResume ? "; resume() answers it on the same task" : ""}`,
          );
        } else {
          notes.push(`[a2a] the remote task ended in ${stateName(state)}`);
        }
      }
    }
    let structured: JsonValue | undefined;
    const schema = this.#plan.outputSchema;
    if (schema !== undefined && stopReason === "completed") {
      let index = -1;
      for (let i = pieces.length - 1; i >= 0 && index < 0; i--) {
        if (pieces[i].type === "data") index = i;
      }
      if (index < 0) {
        stopReason = "error";
        notes.push(
          "[a2a] the remote agent completed without a structured result (no data part), although an outputSchema was requested",
        );
      } else {
        const value = (pieces[index] as { data: JsonValue }).data;
        const issues = validateStructuredOutput(schema, value);
        if (issues.length > 0) {
          stopReason = "error";
          notes.push(
            `[a2a] the remote agent's structured result does not match the outputSchema: ${
              issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")
            }`,
          );
        } else {
          pieces.splice(index, 1);
          structured = value;
        }
      }
    }
    this.#finish(stopReason, pieces, notes, structured);
  }

  #fail(error: unknown): void {
    if (this.#settled) {
      this.#logger.debug(`A2A run ${this.id} (already ended): ${messageOf(error)}`);
      return;
    }
    const message = `The A2A run failed (${this.#phase}): ${messageOf(error)}`;
    this.#logger.warn(`A2A run ${this.id}: ${message}`);
    this.#finish("error", this.#pieces(), [message]);
  }

  #finish(
    stopReason: SubagentStopReason,
    pieces: readonly Piece[],
    notes: readonly string[],
    structured?: JsonValue,
  ): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#unbindSignal();
    const output: ContentBlock[] = pieces.map((piece) =>
      piece.type === "data" ? { type: "text", text: JSON.stringify(piece.data) } : piece
    );
    for (const note of notes) output.push({ type: "text", text: note });
    if (!this.#isStarted) {
      this.#rejectStarted(
        new Error(notes[0] ?? `the run ended "${stopReason}" before the remote task existed`),
      );
    }
    this.#resolveResult(
      structured === undefined ? { output, stopReason } : { output, structured, stopReason },
    );
  }

  /** Cancel the remote task (`CancelTask`), once; failures are logged, never thrown. */
  #cancelRemote(): Promise<void> {
    return this.#remoteCancel ??= (async () => {
      const remote = this.#remote;
      const id = this.#taskId!;
      const deadline = new Deadline(
        undefined,
        remote.timeoutMs,
        () => `the remote agent did not answer CancelTask within ${remote.timeoutMs} ms`,
      );
      try {
        const task = await remote.client.cancelTask(
          { tenant: remote.tenant, id, metadata: undefined },
          this.#options(deadline.signal),
        );
        if (task?.status && isTerminal(task.status.state)) this.#remoteTerminal = true;
      } catch (error) {
        const why = deadline.timedOut ? deadline.signal.reason : error;
        this.#logger.debug(`A2A run ${this.id}: CancelTask "${id}": ${messageOf(why)}`);
      } finally {
        deadline.release();
      }
    })();
  }

  // ---- the handle ----

  /** End the run `aborted` at once; the remote task is cancelled in the background. */
  cancel(_reason?: string): void {
    if (this.#settled) return;
    this.#finish("aborted", this.#pieces(), []);
    // Until the task's id is known, keep listening for it (bounded by
    // timeoutMs) so the task can be cancelled; after, stop at once.
    if (this.#taskId !== undefined || this.#messageOnly) {
      this.#io.abort(new Error("cancelled"));
    }
  }

  /** Cancel if live, wait for the drive to stop, cancel a task still live. Memoized. */
  dispose(): Promise<void> {
    return this.#disposal ??= (async () => {
      this.#unbindSignal();
      this.cancel("disposed");
      try {
        await this.#driving;
        if (this.#taskId !== undefined && !this.#remoteTerminal && !this.#handedOver) {
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
    const remote = this.#remote;
    const blocks = toBlocks(content);
    const message = userMessage(blocksToParts(blocks), {
      taskId: this.#taskId,
      contextId: this.#contextId,
      extensions: remote.seam ? [SEAM_EXTENSION_URI] : undefined,
    });
    try {
      await this.#unary((signal) =>
        remote.client.sendMessage({
          tenant: remote.tenant,
          message,
          configuration: {
            acceptedOutputModes: [],
            taskPushNotificationConfig: undefined,
            historyLength: 0,
            returnImmediately: true,
          },
          metadata: undefined,
        }, this.#options(signal))
      );
    } catch (error) {
      throw new Error(
        `Cannot send a message to run "${this.id}": the remote agent did not take it (${
          messageOf(error)
        })`,
        { cause: error },
      );
    }
  }

  /** A follow-up in the task's context (on the same task after INPUT_REQUIRED), as a new run. */
  resume(content: ContentInput): SubagentRunHandle {
    const problem = this.#disposal !== undefined
      ? "it was disposed"
      : !this.#settled
      ? "it has not finished"
      : this.#contextId === undefined
      ? "it never reached the remote agent (there is no context to continue)"
      : undefined;
    if (problem) throw new TypeError(`Cannot resume run "${this.id}": ${problem}`);
    const continueTask = this.#interrupted && !this.#handedOver &&
        this.#remoteCancel === undefined
      ? this.#taskId
      : undefined;
    if (continueTask !== undefined) this.#handedOver = true;
    const plan = this.#plan;
    const run = new A2ARun(this.#remote, {
      prompt: toBlocks(content),
      parent: plan.parent,
      depth: plan.depth,
      // A continuation keeps the first run's settings: the caller's depth travels, and
      // so does the depth cap on a context continuation, so a seam gateway that kept
      // no run for the context (and starts a fresh one) still applies it.
      extension: this.#remote.seam
        ? {
          depth: plan.depth,
          ...(continueTask === undefined && plan.extension?.maxDepth !== undefined
            ? { maxDepth: plan.extension.maxDepth }
            : {}),
        }
        : undefined,
      contextId: this.#contextId,
      taskId: continueTask,
      resumed: true,
    });
    return run.handle;
  }
}

function toBlocks(content: ContentInput): readonly ContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** The stop reason of a terminal (or interrupted) A2A state, without the seam extension. */
export function stopReasonOf(state: number): SubagentStopReason {
  switch (state) {
    case TaskStates.COMPLETED:
      return "completed";
    case TaskStates.CANCELED:
      return "aborted";
    case TaskStates.REJECTED:
      return "refusal";
    default:
      return "error";
  }
}
