/** How a PostgreSQL failure reaches the gateway: out of reach, a conflict, or anything else. */
import { TaskStorageError } from "@seam/gateway";

/** Codes of the client's own connection errors (postgres.js, and the socket's). */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
]);

/** Whether `error` says the database is out of reach (not that a query was wrong). */
export function isUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  if (CONNECTION_CODES.has(code)) return true;
  // SQLSTATE classes: 08 connection exception, 57 operator intervention
  // (the server shutting down), 53 insufficient resources.
  return /^(08|57|53)[0-9A-Z]{3}$/.test(code);
}

/**
 * `error` as the port's error: `UNAVAILABLE` when out of reach or a lock
 * wait timed out, `CONFLICT` for a unique clash.
 */
export function storageError(error: unknown, action: string): unknown {
  if (error instanceof TaskStorageError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isUnavailable(error)) {
    return new TaskStorageError(
      "UNAVAILABLE",
      `Cannot ${action}: PostgreSQL is unreachable (${message})`,
      { cause: error },
    );
  }
  if ((error as { code?: unknown } | null)?.code === "55P03") {
    // lock_not_available: a lock_timeout ran out (or NOWAIT found it held);
    // the same request may pass a moment later, so it answers 503 too.
    return new TaskStorageError(
      "UNAVAILABLE",
      `Cannot ${action}: PostgreSQL did not grant a lock in time (${message})`,
      { cause: error },
    );
  }
  if ((error as { code?: unknown } | null)?.code === "23505") {
    return new TaskStorageError("CONFLICT", `Cannot ${action}: ${message}`, { cause: error });
  }
  return error;
}

/**
 * Run `write` until it passes, again after a failure that says the database
 * is out of reach (backing off from 50 ms to 1 s, each wait `sleep`'s, which
 * a closed store never ends), for at most `ms`; rejects with the last
 * failure. Only for a write that may run twice.
 */
export async function retryUnreachable<T>(
  ms: number,
  sleep: (ms: number) => Promise<void>,
  write: () => Promise<T>,
): Promise<T> {
  const end = Date.now() + ms;
  for (let delay = 50;; delay = Math.min(delay * 2, 1_000)) {
    try {
      return await write();
    } catch (error) {
      if (!isUnavailable(error) || Date.now() + delay > end) throw error;
    }
    await sleep(delay);
  }
}
