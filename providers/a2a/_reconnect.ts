// What a run does after its stream drops, a re-attach ends, a poll answers or
// a request fails: the reconnect policy, a function of plain values and no
// I/O. `RemoteCalls.follow` (`_calls.ts`) drives it; the run's idle alarm
// (`_run.ts`) asks it whether news re-arms the alarm.
//
// The rules, each from a fix to the loop this replaced:
// - only progress (a state, word or output the run had not seen) resets the
//   retries: a stream that drops after repeating itself counts as a failure;
// - a run re-attaches at most `maxReattaches` times, whatever they bring;
// - only progress re-arms the idle alarm;
// - a refusal to stream the task (an A2A error, or HTTP 429 for a limit over
//   there) switches to polling; while polling it is the answer, and thrown;
// - a broken protocol (or an HTTP error) is thrown: asking again will not mend it.
import { messageOf } from "@seam/host";
import type { FailureData } from "./_async.ts";

/** The bounds of following a task, as the provider's options resolved them. */
export interface ReconnectLimits {
  /** Failed attempts in a row before the task is given up (0: reconnect is off). */
  readonly retries: number;
  /** The first backoff after a failure; it doubles per failure up to `maxDelayMs`. */
  readonly delayMs: number;
  readonly maxDelayMs: number;
  /** The most `SubscribeToTask` requests one run makes. */
  readonly maxReattaches: number;
  /** The wait between two `GetTask` polls that went well. */
  readonly pollIntervalMs: number;
}

/** What one stream brought: its events, those with news, those with progress. */
export interface StreamTally {
  count: number;
  news: number;
  progress: number;
}

/** A fresh tally for one stream. */
export function newTally(): StreamTally {
  return { count: 0, news: 0, progress: 0 };
}

/** What one event or answer brought, as the task reader tells it. */
export interface NewsSummary {
  /** It changed the state, the output or the agent's last word. */
  readonly changed: boolean;
  /** It brought what this run had not seen before. */
  readonly progress: boolean;
}

/** Count what one event of a stream brought (its arrival is counted in `count` as it comes). */
export function tallied(tally: StreamTally, news: NewsSummary): void {
  if (news.changed) tally.news++;
  if (news.progress) tally.progress++;
}

/** Whether news re-arms the idle alarm: only progress does (a remote repeating itself is idle). */
export function rearmsIdle(news: NewsSummary): boolean {
  return news.progress;
}

/** The next step of following a task. */
export type FollowStep =
  | { readonly kind: "reattach"; readonly waitMs: number }
  | { readonly kind: "poll"; readonly waitMs: number }
  | {
    readonly kind: "give-up";
    /** What ran out: the retries in a row, or the re-attaches of the run. */
    readonly limit: "retries" | "reattaches";
    readonly message: string;
    readonly data: FailureData;
  };

/**
 * How a request of the follow failed, as the driver classifies it:
 * `protocol`: the remote broke the protocol or answered an HTTP error;
 * `refused`: an A2A error answer; `limited`: HTTP 429; `lost`: anything else
 * (a broken connection, a timeout).
 */
export type FollowFailure = "protocol" | "refused" | "limited" | "lost";

/** What to do after a failed request: throw its error, switch to polling, or retry. */
export type AfterFailure = "throw" | "poll" | "retry";

/**
 * The reconnect policy of one run. The re-attach count spans the run (every
 * `begin`); the failures in a row, the mode and the last reason span one
 * follow, from `begin` until the task ends or is given up.
 */
export class ReconnectPolicy {
  readonly #limits: ReconnectLimits;
  #reattaches = 0;
  #failures = 0;
  #streaming = false;
  #last: unknown;

  constructor(limits: ReconnectLimits) {
    this.#limits = limits;
  }

  /** The `SubscribeToTask` requests the run made so far. */
  get reattaches(): number {
    return this.#reattaches;
  }

  /** Whether the follow re-attaches streams (else it polls). */
  get streaming(): boolean {
    return this.#streaming;
  }

  /**
   * Start following a known task: after its stream dropped (`streaming`; the
   * drop is the first failure, `lastDrop` why it dropped), or to poll it.
   */
  begin(streaming: boolean, lastDrop: unknown): void {
    this.#streaming = streaming;
    this.#failures = streaming ? 1 : 0;
    this.#last = lastDrop ?? (streaming ? "the stream ended early" : undefined);
  }

  /** The next step for task `taskId`: re-attach or poll after a wait, or give up. */
  next(taskId: string): FollowStep {
    const { retries, delayMs, maxDelayMs, maxReattaches, pollIntervalMs } = this.#limits;
    const why = this.#last === undefined ? "" : ` (${messageOf(this.#last)})`;
    if (this.#failures > retries) {
      const attempts = retries > 0
        ? ` and ${retries} attempt(s) to re-attach failed`
        : " (reconnect is off)";
      return {
        kind: "give-up",
        limit: "retries",
        message: `lost remote task "${taskId}"${why}${attempts}`,
        data: { taskId, retries },
      };
    }
    const waitMs = this.#failures === 0
      ? pollIntervalMs
      : Math.min(maxDelayMs, delayMs * 2 ** (this.#failures - 1));
    if (!this.#streaming) return { kind: "poll", waitMs };
    if (this.#reattaches >= maxReattaches) {
      return {
        kind: "give-up",
        limit: "reattaches",
        message: `lost remote task "${taskId}"${why} after ${this.#reattaches} re-attach(es) ` +
          `in this run: the limit of ${maxReattaches} was reached (reconnect.maxReattaches)`,
        data: { taskId, option: "reconnect.maxReattaches", maxReattaches },
      };
    }
    this.#reattaches++;
    return { kind: "reattach", waitMs };
  }

  /**
   * A re-attached stream ended before the task did (`lastDrop`: the network
   * error it dropped with, if any). Only progress counts as a recovered
   * connection: a stream that drops after a repeated WORKING, or after
   * flipping back to a state or a word seen before, time after time, is not one.
   */
  reattachEnded(tally: StreamTally, lastDrop: unknown): void {
    if (tally.progress > 0) {
      this.#failures = 1;
      this.#last = lastDrop ?? "the stream ended before the task did";
      return;
    }
    this.#failures++;
    const brought = tally.news > 0
      ? ", bringing only what this run had seen before"
      : tally.count > 0
      ? ", bringing nothing new"
      : "";
    this.#last = lastDrop ?? `the re-attached stream ended before the task did${brought}`;
  }

  /** A poll answered: the failures in a row are over. */
  polled(): void {
    this.#failures = 0;
  }

  /** A request failed (`error`, classified as `kind`): what to do. */
  failed(kind: FollowFailure, error: unknown): AfterFailure {
    if (kind === "protocol") return "throw";
    if (kind === "refused" || kind === "limited") {
      if (!this.#streaming) return "throw";
      // It will not stream this task (it ended, it cannot re-attach, or it
      // holds too many streams already): read it instead.
      this.#streaming = false;
      this.#failures = 0;
      return "poll";
    }
    this.#last = error;
    this.#failures++;
    return "retry";
  }
}
