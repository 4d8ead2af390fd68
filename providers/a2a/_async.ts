// Signals, deadlines and error classification. Every timer and listener made
// here is released on every path, so nothing outlives the call it bounds.
// The errors carry what a run's `result.error` reports as `data`.
import type { JsonValue } from "@seam/host";

/** Details of a failure, as JSON (a `result.error`'s `data`). */
export type FailureData = { readonly [key: string]: JsonValue };

/** Thrown when a wait the provider bounds runs out: which option, how long. */
export class TimedOut extends Error {
  readonly data: FailureData;
  constructor(message: string, data: FailureData) {
    super(message);
    this.name = "TimedOut";
    this.data = data;
  }
}

/** A problem with what the remote agent sent (a malformed or unexpected event). */
export class RemoteProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RemoteProtocolError";
  }
}

/** The remote agent sent more output than one run holds (`maxOutputChars`). */
export class OutputLimitError extends RemoteProtocolError {
  readonly data: FailureData;
  constructor(message: string, data: FailureData) {
    super(message);
    this.name = "OutputLimitError";
    this.data = data;
  }
}

/**
 * The remote agent's HTTP answer ends the run whatever else it says: an
 * authentication failure (401, 403) or a redirect that is not followed.
 */
export class RemoteHttpError extends Error {
  /** The HTTP status. */
  readonly status: number;
  readonly data: FailureData;
  constructor(status: number, message: string, data: FailureData = {}) {
    super(message);
    this.name = "RemoteHttpError";
    this.status = status;
    this.data = { status, ...data };
  }
}

/** The task's stream dropped and could not be re-attached (or polled). */
export class ConnectionLost extends Error {
  readonly data: FailureData;
  constructor(message: string, data: FailureData) {
    super(message);
    this.name = "ConnectionLost";
    this.data = data;
  }
}

const A2A_ERROR_BRAND = Symbol.for("@a2a-js/sdk.A2AError");

/** Whether `error` is an A2A error the remote answered with (an SDK `A2AError`). */
export function isA2AError(error: unknown): error is Error {
  return typeof error === "object" && error !== null && A2A_ERROR_BRAND in error;
}

const NETWORK_ERROR_NAMES = new Set([
  "TypeError",
  "Http",
  "ConnectionReset",
  "ConnectionAborted",
  "ConnectionRefused",
  "BrokenPipe",
  "UnexpectedEof",
  "Interrupted",
  "BadResource",
]);

/** Whether `error` looks like a failed connection or a broken body (not an answer). */
export function isNetworkError(error: unknown): boolean {
  return error instanceof Error && NETWORK_ERROR_NAMES.has(error.name) && !isA2AError(error);
}

/**
 * A signal linked to `parent` (it aborts when `parent` does) that also
 * aborts with {@linkcode TimedOut} after `ms`, until {@linkcode Deadline.disarm}.
 * {@linkcode Deadline.release} drops the timer and the link.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #parent: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut = false;
  readonly #onAbort = (): void => this.#controller.abort(this.#parent!.reason);

  constructor(parent: AbortSignal | undefined, ms: number, message: () => string) {
    this.#parent = parent;
    if (parent?.aborted) {
      this.#controller.abort(parent.reason);
      return;
    }
    parent?.addEventListener("abort", this.#onAbort, { once: true });
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timedOut = true;
      this.#controller.abort(new TimedOut(message(), { option: "timeoutMs", ms }));
    }, ms);
  }

  /** Aborts on the parent's abort or the deadline. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the deadline passed. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Stop the clock (the parent link stays). */
  disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Stop the clock and drop the link to the parent. */
  release(): void {
    this.disarm();
    this.#parent?.removeEventListener("abort", this.#onAbort);
  }
}

/**
 * A timer that calls `onFire` once `ms` have passed since it was last
 * armed, unless stopped first. Re-arming only notes the time: the one
 * timer, when due, waits out the rest (a stream re-arms it per event, and
 * a timer per event would be churn). Idle until {@linkcode Alarm.arm}.
 */
export class Alarm {
  readonly #ms: number;
  readonly #onFire: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedAt = 0;
  /** While paused: what was left of the count. */
  #left: number | undefined;

  constructor(ms: number, onFire: () => void) {
    this.#ms = ms;
    this.#onFire = onFire;
  }

  /** Start the count (again). */
  arm(): void {
    this.#left = undefined;
    this.#armedAt = Date.now();
    if (this.#timer === undefined) this.#schedule(this.#ms);
  }

  /** Stop the count for good (until armed again). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#left = undefined;
  }

  /** Stop the count, keeping what is left of it for {@linkcode Alarm.resume}. */
  pause(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#left = Math.max(1, this.#armedAt + this.#ms - Date.now());
  }

  /** Go on counting from where {@linkcode Alarm.pause} stopped (nothing when not paused). */
  resume(): void {
    const left = this.#left;
    if (left === undefined) return;
    this.#left = undefined;
    this.#armedAt = Date.now() - (this.#ms - left);
    this.#schedule(left);
  }

  #schedule(wait: number): void {
    this.#timer = setTimeout(() => {
      const left = this.#armedAt + this.#ms - Date.now();
      if (left > 0) return this.#schedule(left);
      this.#timer = undefined;
      this.#onFire();
    }, wait);
  }
}
