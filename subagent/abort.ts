/**
 * The cancel reason an aborted `signal` carries: an `Error`'s message (a
 * `DOMException` included), a non-empty string as it is, anything else
 * `"aborted"`.
 *
 * @example
 * ```ts
 * import { abortReasonOf } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * assert.equal(abortReasonOf(AbortSignal.abort("the user pressed stop")), "the user pressed stop");
 * assert.equal(abortReasonOf(AbortSignal.abort(new Error("deadline"))), "deadline");
 * assert.equal(abortReasonOf(AbortSignal.abort(42)), "aborted");
 * ```
 */
export function abortReasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.message !== "") return reason.message;
  if (typeof reason === "string" && reason !== "") return reason;
  return "aborted";
}

/** Options of {@linkcode cancelOnAbort}. */
export interface CancelOnAbortOptions {
  /**
   * For a signal that is already aborted: cancel in a microtask instead of
   * at once (so the caller can finish building what `cancel` reaches).
   * Default false.
   */
  readonly defer?: boolean;
}

/**
 * Bridge `signal` to `cancel`: call `cancel(abortReasonOf(signal))` once,
 * when the signal aborts (an already-aborted signal too). Returns the
 * unbind, which stops listening (idempotent; call it once the run settled,
 * so a settled run holds no listener on a long-lived signal).
 *
 * @example
 * ```ts
 * import { cancelOnAbort } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const reasons: string[] = [];
 * const controller = new AbortController();
 * const unbind = cancelOnAbort(controller.signal, (reason) => reasons.push(reason));
 * controller.abort("enough");
 * unbind();
 * assert.deepEqual(reasons, ["enough"]);
 * ```
 */
export function cancelOnAbort(
  signal: AbortSignal,
  cancel: (reason: string) => void,
  options: CancelOnAbortOptions = {},
): () => void {
  const onAbort = (): void => cancel(abortReasonOf(signal));
  if (signal.aborted) {
    if (options.defer) queueMicrotask(onAbort);
    else onAbort();
    return noop;
  }
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function noop(): void {}
