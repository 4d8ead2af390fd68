// The requests of one run to the remote agent, each bounded by `timeoutMs`
// and the run's I/O signal: one request and its answer, one stream read
// until reading can stop, and a known task followed to its end after its
// stream drops (re-attached, or polled). What the answers mean is
// `_task_reader.ts`; what the run does with them, and when reading can
// stop, is the run's (`_run.ts`).
import { delay, type Logger, messageOf } from "@seam/host";
import type { StreamResponse } from "@a2a-js/sdk";
import {
  ConnectionLost,
  Deadline,
  isA2AError,
  isNetworkError,
  RemoteHttpError,
  RemoteProtocolError,
  TimedOut,
} from "./_async.ts";
import { clipped } from "./_failure.ts";
import { answerArrived, failedStatusOf } from "./_fetch.ts";
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
  /** The `SubscribeToTask` requests this run made, held to `reconnect.maxReattaches`. */
  #reattaches = 0;
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
   * the wait. An answer that is not a stream throws. `events` counts the
   * events read, those that brought news (`changed`: the state, the output
   * or the agent's last word) and those that brought progress (news this run
   * had not seen before).
   */
  async consume(
    open: (signal: AbortSignal) => AsyncGenerator<StreamResponse, void, undefined>,
    events = { count: 0, news: 0, progress: 0 },
  ): Promise<boolean> {
    const deadline = this.#deadline();
    try {
      for await (const event of open(deadline.signal)) {
        if (events.count++ === 0) deadline.disarm();
        const news = this.#task.read(event);
        if (news.changed) events.news++;
        if (news.progress) events.progress++;
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

  /**
   * Follow a known task to its end: re-attach its stream (`SubscribeToTask`)
   * after a drop, or poll it (`GetTask`), with bounded retries and backoff.
   * Only progress (what the run had not seen before) resets the retries, and
   * a run re-attaches at most `maxReattaches` times whatever it brings: a
   * remote that drops its stream after every event, however new, is let go.
   */
  async follow(streaming: boolean): Promise<void> {
    const remote = this.#remote;
    const { retries, delayMs, maxDelayMs, maxReattaches } = remote.reconnect;
    const id = this.#task.taskId!;
    let failures = streaming ? 1 : 0;
    let last: unknown = this.lastDrop ?? (streaming ? "the stream ended early" : undefined);
    while (!this.#run.shouldStop()) {
      if (failures > retries) {
        throw new ConnectionLost(
          `lost remote task "${id}"${last === undefined ? "" : ` (${messageOf(last)})`}${
            retries > 0 ? ` and ${retries} attempt(s) to re-attach failed` : " (reconnect is off)"
          }`,
          { taskId: id, retries },
        );
      }
      const wait = failures === 0
        ? remote.pollIntervalMs
        : Math.min(maxDelayMs, delayMs * 2 ** (failures - 1));
      if (streaming && this.#reattaches >= maxReattaches) {
        this.call = "SubscribeToTask";
        throw new ConnectionLost(
          `lost remote task "${id}"${
            last === undefined ? "" : ` (${messageOf(last)})`
          } after ${this.#reattaches} re-attach(es) in this run: the limit of ${maxReattaches} was reached (reconnect.maxReattaches)`,
          { taskId: id, option: "reconnect.maxReattaches", maxReattaches },
        );
      }
      await delay(wait, this.io.signal);
      try {
        if (streaming) {
          this.call = "SubscribeToTask";
          this.#reattaches++;
          const events = { count: 0, news: 0, progress: 0 };
          const drained = await this.consume(
            (signal) =>
              remote.client.resubscribeTask({ tenant: remote.tenant, id }, this.options(signal)),
            events,
          );
          if (drained) return;
          // Only progress (the snapshot's included) counts as a recovered connection: a
          // stream that drops after a repeated WORKING, or after flipping back to a state
          // or a word seen before, time after time, is not one.
          if (events.progress > 0) {
            failures = 1;
            last = this.lastDrop ?? "the stream ended before the task did";
          } else {
            failures++;
            last = this.lastDrop ??
              `the re-attached stream ended before the task did${
                events.news > 0
                  ? ", bringing only what this run had seen before"
                  : events.count > 0
                  ? ", bringing nothing new"
                  : ""
              }`;
          }
        } else {
          this.call = "GetTask";
          const snapshot = await this.unary((signal) =>
            remote.client.getTask(
              { tenant: remote.tenant, id, historyLength: 0 },
              this.options(signal),
            )
          );
          this.#run.take(this.#task.readTask(snapshot));
          failures = 0;
        }
      } catch (error) {
        if (this.io.signal.aborted) return;
        if (error instanceof RemoteProtocolError || error instanceof RemoteHttpError) throw error;
        // A 429 refuses for a limit over there (a seam gateway's streams per principal),
        // whatever its body: an answer, not a lost connection to retry.
        const limited = this.failedStatus === 429;
        if (streaming && (isA2AError(error) || limited)) {
          // It will not stream this task (it ended, it cannot re-attach, or it holds too
          // many streams already): read it instead.
          this.#run.logger().debug(
            `A2A run ${this.#run.id}: SubscribeToTask refused${
              limited ? " for a limit (HTTP 429)" : ""
            } (${clipped(messageOf(error))}); polling GetTask`,
          );
          streaming = false;
          failures = 0;
          continue;
        }
        if (isA2AError(error) || limited) throw error;
        last = error;
        failures++;
      }
    }
  }
}
