// Small promise helpers whose timers and listeners are always released.

/** Thrown by {@linkcode race} when `signal` aborts first. */
export class Aborted extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "Aborted";
  }
}

/** Thrown by {@linkcode race} when the time runs out first. */
export class TimedOut extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TimedOut";
  }
}

function reasonOf(signal: AbortSignal): string {
  const reason = signal.reason;
  return reason instanceof Error ? reason.message : String(reason ?? "aborted");
}

/**
 * Settle like `promise`, unless `signal` aborts first ({@linkcode Aborted})
 * or `timeout.ms` passes first ({@linkcode TimedOut} with `timeout.message`).
 * The loser's rejection is always observed.
 */
export function race<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  timeout?: { readonly at: number; readonly message: string },
): Promise<T> {
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(new Aborted(reasonOf(signal)));
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      done();
      reject(new Aborted(reasonOf(signal)));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (timeout) {
      timer = setTimeout(() => {
        done();
        reject(new TimedOut(timeout.message));
      }, Math.max(0, timeout.at - performance.now()));
    }
    promise.then(
      (value) => {
        done();
        resolve(value);
      },
      (error) => {
        done();
        reject(error);
      },
    );
  });
}

/** Resolve once `promise` settles or `ms` pass, whichever comes first; `true` if it settled. */
export function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise.then(() => true, () => true),
    new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms)),
  ]).finally(() => clearTimeout(timer));
}

/** A promise with its resolver. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => resolve = r);
  return { promise, resolve };
}
