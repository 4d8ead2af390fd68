/**
 * Wait `ms` milliseconds, or reject with `signal.reason` as soon as `signal`
 * aborts (at once when it already has). The timer and the listener are
 * always released, so nothing outlives an aborted wait.
 *
 * @example
 * ```ts
 * import { delay } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const controller = new AbortController();
 * const waiting = delay(10_000, controller.signal);
 * controller.abort(new Error("stop"));
 * await assert.rejects(waiting, /stop/);
 * ```
 */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
