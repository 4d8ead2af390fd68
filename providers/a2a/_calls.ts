// The requests of one run to the remote agent, each bounded by `timeoutMs`
// and the run's I/O signal: one request and its answer, one stream read
// until reading can stop, and a known task followed to its end after its
// stream drops (re-attached, or polled). What the answers mean is
// `_task_reader.ts`; what the run does with them, and when reading can
// stop, is the run's (`_run.ts`).
import { delay, type Logger, messageOf } from "@seam/host";
import type { SendMessageRequest, StreamResponse } from "@a2a-js/sdk";
import {
  ConnectionLost,
  Deadline,
  type FailureData,
  isA2AError,
  isNetworkError,
  RemoteHttpError,
  RemoteProtocolError,
  TimedOut,
} from "./_async.ts";
import { cancelsDescendants, RemoteDescendants } from "./_descendants.ts";
import { SEAM_EXTENSION_URI } from "./_extension.ts";
import { a2aCodeOf, clipped } from "./_failure.ts";
import { answerArrived, failedStatusOf } from "./_fetch.ts";
import {
  type FollowFailure,
  newTally,
  ReconnectPolicy,
  type StreamTally,
  tallied,
} from "./_reconnect.ts";
import type { TaskNews, TaskReader } from "./_task_reader.ts";
import type { RemoteContext, RunPlan } from "./_remote.ts";

/**
 * Whether the SDK client threw `error` for an event it could not read: a
 * plain `Error` (its A2A errors are branded; one that carries an A2A error is
 * the remote's error answer, and so is a v0.3 HTTP+JSON error event, which it
 * words "REST error: …" when it has no class for the code, as for -32603), a
 * `SyntaxError`, or its own `InvalidAgentResponseError` (a v0.3 HTTP+JSON
 * event without a payload; the remote's error answers carry their `transport`).
 */
function isUnreadable(error: unknown): boolean {
  if (isA2AError(error)) {
    return error.name === "InvalidAgentResponseError" && !("transport" in error);
  }
  return error instanceof SyntaxError ||
    (error instanceof Error && error.constructor === Error && !isA2AError(error.cause) &&
      // The SDK's own wording: its error has no code or class to tell it by.
      // deno-lint-ignore seam/no-message-compare
      !error.message.startsWith("REST error: "));
}

/** How a request of a follow failed, for the reconnect policy. */
function followFailure(error: unknown, status: number | undefined): FollowFailure {
  if (error instanceof RemoteProtocolError || error instanceof RemoteHttpError) return "protocol";
  // A 429 refuses for a limit over there (a seam gateway's streams per principal),
  // whatever its body: an answer, not a lost connection to retry.
  if (status === 429) return "limited";
  return isA2AError(error) ? "refused" : "lost";
}

/** The run the requests serve: it acts on what they bring and says when reading can stop. */
export interface CallsOwner {
  readonly id: string;
  /** The logger of the run's notes. */
  logger(): Logger;
  /** Act on what one answer or event brought. */
  take(news: TaskNews): void;
  /** Whether reading can stop: the task ended or waits, the agent replied, or the run settled. */
  shouldStop(): boolean;
}

/** A seam gateway's descendants update: no news of the task; progress when it told something new. */
const TREE_NEWS: TaskNews = Object.freeze({
  text: "",
  changed: false,
  progress: true,
  first: false,
});
const TREE_REPEATED: TaskNews = Object.freeze({ ...TREE_NEWS, progress: false });

/** One run's requests, and what the run's result reports of the last one that failed. */
export class RemoteCalls {
  /** Aborted to stop every request of the drive (a cancel once the task is known, or the end). */
  readonly io = new AbortController();
  /** The request under way, for notes (`SendStreamingMessage`, `GetTask`, …). */
  call: string;
  /** The HTTP status of the last request that failed with one (for `result.error`). */
  failedStatus: number | undefined;
  /** Why the last stream dropped (a network error), for the error that gives up on the task. */
  lastDrop: unknown;
  /** A seam gateway's descendants of the task's run, as nested runs of this one. */
  readonly descendants: RemoteDescendants | undefined;
  /** What to do after a drop, a refusal or a failure (made at the first follow; spans the run). */
  #policy: ReconnectPolicy | undefined;
  readonly #remote: RemoteContext;
  readonly #plan: RunPlan;
  readonly #task: TaskReader;
  readonly #run: CallsOwner;

  constructor(remote: RemoteContext, plan: RunPlan, task: TaskReader, run: CallsOwner) {
    this.#remote = remote;
    this.#plan = plan;
    this.#task = task;
    this.#run = run;
    this.call = remote.streaming ? "SendStreamingMessage" : "SendMessage";
    this.descendants = remote.seam && new RemoteDescendants({
      runId: run.id,
      provider: remote.providerName,
      parent: plan.parent,
      place: plan.place,
      logger: () => run.logger(),
      cancel: cancelsDescendants(remote.client)
        ? (remoteId) => void this.cancelTask(task.taskId!, remoteId)
        : undefined,
    });
  }

  options(signal: AbortSignal): {
    signal: AbortSignal;
    serviceParameters?: Record<string, string>;
  } {
    const trace = this.#plan.traceHeaders;
    const serviceParameters = trace
      ? { ...this.#remote.serviceParameters, ...trace }
      : this.#remote.serviceParameters;
    return serviceParameters ? { signal, serviceParameters } : { signal };
  }

  #timeoutMessage(): string {
    return `the remote agent did not answer ${this.call} within ${this.#remote.timeoutMs} ms (timeoutMs)`;
  }

  /** A request's deadline: `timeoutMs` for its answer (or first event), within the run's own signal. */
  #deadline(): Deadline {
    return new Deadline(this.io.signal, this.#remote.timeoutMs, () => this.#timeoutMessage());
  }

  /** A request under `deadline` failed: keep the HTTP status it failed with; a lapsed deadline throws `TimedOut`. */
  #failed(deadline: Deadline): void {
    this.failedStatus = failedStatusOf(deadline.signal);
    if (deadline.timedOut) {
      throw new TimedOut(this.#timeoutMessage(), {
        option: "timeoutMs",
        ms: this.#remote.timeoutMs,
      });
    }
  }

  /**
   * One request and its answer, bounded by `timeoutMs` and the run's own
   * signal. An OK answer that arrived whole and still cannot be read (not
   * JSON, not a JSON-RPC response to this request, no result) throws
   * {@linkcode RemoteProtocolError}: the remote broke the protocol, and
   * asking again will not mend it (a broken connection is retried).
   */
  async unary<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = this.#deadline();
    try {
      return await call(deadline.signal);
    } catch (error) {
      this.#failed(deadline);
      if (
        answerArrived(deadline.signal) && !isA2AError(error) &&
        !(error instanceof RemoteProtocolError) && !this.io.signal.aborted
      ) {
        throw new RemoteProtocolError(
          `the remote agent broke the protocol: its ${this.call} answer cannot be read (${
            clipped(messageOf(error))
          })`,
        );
      }
      throw error;
    } finally {
      deadline.release();
    }
  }

  /**
   * Read one stream until reading can stop (`true`) or the stream drops
   * (`false`: it ended early, or the connection broke). The first event must
   * come within `timeoutMs`; after it `idleTimeoutMs` and `deadlineMs` bound
   * the wait. An answer that is not a stream throws. `events` tallies the
   * events read, those that brought news and those that brought progress.
   */
  async consume(
    open: (signal: AbortSignal) => AsyncGenerator<StreamResponse, void, undefined>,
    events: StreamTally = newTally(),
  ): Promise<boolean> {
    const deadline = this.#deadline();
    try {
      for await (const event of open(deadline.signal)) {
        if (events.count++ === 0) deadline.disarm();
        const tree = this.descendants?.take(event);
        const news = tree === undefined ? this.#task.read(event) : tree ? TREE_NEWS : TREE_REPEATED;
        tallied(events, news);
        this.#run.take(news);
        if (this.#run.shouldStop()) return true;
      }
      this.lastDrop = undefined;
      return false;
    } catch (error) {
      this.#failed(deadline);
      if (this.io.signal.aborted) return true;
      if (isNetworkError(error)) {
        this.lastDrop = error;
        return false;
      }
      // Once an event stream answered (or past its first event) the stream was taken: what
      // the SDK then refuses (an event that is not JSON, not JSON-RPC 2.0, of another
      // request, too large) is malformed, and asking again will not mend it.
      if ((events.count > 0 || answerArrived(deadline.signal)) && isUnreadable(error)) {
        throw new RemoteProtocolError(messageOf(error));
      }
      throw error;
    } finally {
      deadline.release();
    }
  }

  /** The task as it is now (`GetTask`, without its history). */
  getTask(id: string): ReturnType<RemoteContext["client"]["getTask"]> {
    const remote = this.#remote;
    this.call = "GetTask";
    return this.unary((signal) =>
      remote.client.getTask({ tenant: remote.tenant, id, historyLength: 0 }, this.options(signal))
    );
  }

  /**
   * Follow a known task to its end: re-attach its stream (`SubscribeToTask`)
   * after a drop, or poll it (`GetTask`), with bounded retries and backoff,
   * as the reconnect policy (`_reconnect.ts`) says.
   */
  async follow(streaming: boolean): Promise<void> {
    const policy = this.#policy ??= new ReconnectPolicy(this.#remote.reconnect);
    const id = this.#task.taskId!;
    policy.begin(streaming, this.lastDrop);
    while (!this.#run.shouldStop()) {
      const step = policy.next(id);
      if (step.kind === "give-up") {
        if (step.limit === "reattaches") this.call = "SubscribeToTask";
        throw new ConnectionLost(step.message, step.data);
      }
      await delay(step.waitMs, this.io.signal);
      try {
        if (step.kind === "reattach") {
          const events = newTally();
          if (await this.#reattach(id, events)) return;
          policy.reattachEnded(events, this.lastDrop);
        } else {
          this.#run.take(this.#task.readTask(await this.getTask(id)));
          policy.polled();
        }
      } catch (error) {
        if (this.io.signal.aborted) return;
        const kind = followFailure(error, this.failedStatus);
        const after = policy.failed(kind, error);
        if (after === "throw") throw error;
        if (after === "poll") this.#pollingAfter(error, kind === "limited");
      }
    }
  }

  /** Re-attach the task's stream and read it until reading can stop (`true`) or it drops. */
  #reattach(id: string, events: StreamTally): Promise<boolean> {
    const remote = this.#remote;
    this.call = "SubscribeToTask";
    return this.consume(
      (signal) =>
        remote.client.resubscribeTask({ tenant: remote.tenant, id }, this.options(signal)),
      events,
    );
  }

  #pollingAfter(refusal: unknown, limited: boolean): void {
    this.#run.logger().debug(
      `A2A run ${this.#run.id}: SubscribeToTask refused${
        limited ? " for a limit (HTTP 429)" : ""
      } (${clipped(messageOf(refusal))}); polling GetTask`,
    );
  }

  /** Send `request` to the running task (`SendMessage`); a refusal is an `Error` naming the run. */
  async steer(request: SendMessageRequest): Promise<void> {
    const remote = this.#remote;
    try {
      await this.unary((signal) => remote.client.sendMessage(request, this.options(signal)));
    } catch (error) {
      throw new Error(
        `Cannot send a message to run "${this.#run.id}": the remote agent did not take it (${
          clipped(messageOf(error))
        })`,
        { cause: error },
      );
    }
  }

  /**
   * Cancel task `id` (`CancelTask`), or only its descendant run `descendant`
   * (named in the seam extension), bounded by `timeoutMs`. A refusal (an
   * error answer, or none in time) is warned of, never thrown, and answered
   * as `remoteCancel` data: `{refused: true, message, code?, timedOut?}`.
   */
  async cancelTask(id: string, descendant?: string): Promise<FailureData | undefined> {
    const remote = this.#remote;
    const deadline = new Deadline(
      undefined,
      remote.timeoutMs,
      () => `the remote agent did not answer CancelTask within ${remote.timeoutMs} ms`,
    );
    try {
      await remote.client.cancelTask(
        {
          tenant: remote.tenant,
          id,
          metadata: descendant === undefined
            ? undefined
            : { [SEAM_EXTENSION_URI]: { runId: descendant } },
        },
        this.options(deadline.signal),
      );
      return undefined;
    } catch (error) {
      const why = deadline.timedOut ? deadline.signal.reason : error;
      const message = clipped(messageOf(why));
      // Heard, not swallowed: the run still ends aborted, but the remote task may go on.
      this.#run.logger().warn(
        `A2A run ${this.#run.id}: the remote agent refused CancelTask "${id}"${
          descendant === undefined ? "" : ` of descendant ${clipped(descendant, 100)}`
        } (${message}); ${descendant === undefined ? "its task" : "it"} may still run`,
      );
      const code = a2aCodeOf(error);
      return {
        refused: true,
        message,
        ...(code === undefined ? {} : { code }),
        ...(deadline.timedOut ? { timedOut: true } : {}),
      };
    } finally {
      deadline.release();
    }
  }
}
