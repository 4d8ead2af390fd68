/**
 * How push notifications leave the gateway: the {@linkcode PushOutbox} port,
 * one delivery attempt ({@linkcode sendPushNotification}), the retry schedule
 * ({@linkcode pushRetryDelay}) and the in-memory outbox that puts them
 * together ({@linkcode createMemoryPushOutbox}).
 *
 * A durable outbox (one that survives restarts) keeps the same shape: it
 * writes each notification in `enqueue`, and a worker claims them, calls
 * `sendPushNotification`, and deletes a notification once it is delivered
 * or dropped, or schedules the next attempt with `pushRetryDelay`. One that
 * lives in the gateway's task storage names it in `enqueuedBy`: then the
 * notifications are written by the append that commits the change they
 * announce (a transactional outbox), not by `enqueue`.
 *
 * @module
 */
import { createLogger, type Logger, refuseUnknownOptions } from "@seam/host";
import type { A2APushAuthentication } from "./push_store.ts";
import type { TaskStorage } from "./task_storage.ts";

/** One notification for one webhook: the unit an outbox delivers, at least once. */
export interface PushNotification {
  /**
   * Unique per notification and the same on every attempt: sent as
   * `X-A2A-Notification-Id`, the receiver's key to drop duplicates.
   */
  readonly id: string;
  /** The task it is about. */
  readonly taskId: string;
  /** The config it is sent for. */
  readonly configId: string;
  /** Where it goes (a URL that passed the gateway's webhook policy). */
  readonly url: string;
  /** Sent as `X-A2A-Notification-Token`. */
  readonly token?: string;
  /** Sent as `Authorization: {scheme} {credentials}`. */
  readonly authentication?: A2APushAuthentication;
  /** The JSON text of the A2A `StreamResponse` (`{statusUpdate}` or `{artifactUpdate}`), bounded by the gateway. */
  readonly body: string;
  /** When the gateway created it, in ms since the epoch. */
  readonly createdAt: number;
}

/**
 * Where the gateway hands notifications over. Once `enqueue` returned (or
 * its promise fulfilled), the outbox owns delivery: at least once, in
 * order per webhook, with bounded retries. Notifications of one task reach
 * `enqueue` in the order its events happened.
 */
export interface PushOutbox {
  /**
   * The task storage that writes this outbox's notifications itself (a
   * transactional outbox, such as `@seam/gateway-postgres`'s). When it is
   * the gateway's `taskStore`, the gateway hands the body of each
   * notification to the append that commits the change it announces
   * (`TaskAppend.pushes`) and the storage writes one per push config of the
   * task in that transaction: nothing is lost between a commit and its
   * notification, even when the instance dies right after. `enqueue` is
   * then called only for a change no append carries. Such an outbox sends a
   * notification only while its config is still in the storage, with the
   * target (url, token, authentication) the notification carries: an append
   * that read the configs before a delete may commit after that delete's
   * {@linkcode discard}, and a deleted config must hear nothing more (nor
   * the old URL of a config created again under its id, or replaced, the
   * old token).
   */
  readonly enqueuedBy?: TaskStorage;
  /** Accept a notification for delivery. */
  enqueue(notification: PushNotification): void | Promise<void>;
  /**
   * The config was deleted: drop what is still waiting for it, a retry
   * included; nothing more is sent for it (a request already on its way may
   * still land, and is not retried).
   */
  discard(taskId: string, configId: string): void | Promise<void>;
  /**
   * Stop delivering: no new attempts after what is already queued has had
   * its chance within a grace period; every timer and request is released
   * when the promise fulfils. The gateway's `close()` calls it.
   */
  close(): Promise<void>;
}

/** What one attempt came to. */
export type PushAttemptOutcome =
  | { readonly kind: "delivered"; readonly status: number }
  /** Worth another attempt (network error, timeout, 408, 429, 5xx); `retryAfterMs` from `Retry-After`. */
  | { readonly kind: "retry"; readonly reason: string; readonly retryAfterMs?: number }
  /** Not worth another (any other 4xx, a redirect: redirects are never followed). */
  | { readonly kind: "drop"; readonly reason: string };

/** The webhook request's timeout when none is given, in ms (A2A recommends 10–30 s). */
export const PUSH_TIMEOUT_MS = 10_000;

/**
 * Make one delivery attempt: `POST url` with the body, its authentication,
 * token and id, never following a redirect. Never throws.
 *
 * @example
 * ```ts ignore
 * const outcome = await sendPushNotification(notification, { signal });
 * if (outcome.kind === "retry") scheduleIn(pushRetryDelay(attempt, {}));
 * ```
 */
export async function sendPushNotification(
  notification: PushNotification,
  options: {
    readonly signal?: AbortSignal;
    readonly timeoutMs?: number;
    readonly fetch?: typeof fetch;
  } = {},
): Promise<PushAttemptOutcome> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-a2a-notification-id": notification.id,
  };
  const auth = notification.authentication;
  if (auth?.scheme) {
    headers.authorization = auth.credentials ? `${auth.scheme} ${auth.credentials}` : auth.scheme;
  }
  if (notification.token) headers["x-a2a-notification-token"] = notification.token;
  const timeoutMs = options.timeoutMs ?? PUSH_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const outer = options.signal;
  const onAbort = () => controller.abort();
  outer?.addEventListener("abort", onAbort, { once: true });
  if (outer?.aborted) controller.abort();
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(notification.url, {
      method: "POST",
      headers,
      body: notification.body,
      redirect: "manual",
      signal: controller.signal,
    });
  } catch (error) {
    const why = outer?.aborted
      ? "the outbox closed"
      : controller.signal.aborted
      ? `no answer within ${timeoutMs} ms`
      : error instanceof Error
      ? error.message
      : String(error);
    return { kind: "retry", reason: why.slice(0, 200) };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
  // The answer's body is never read; release it.
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to release.
  }
  const status = response.status;
  if (status >= 200 && status < 300) return { kind: "delivered", status };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
    return {
      kind: "retry",
      reason: `HTTP ${status}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  return {
    kind: "drop",
    reason: status >= 300 && status < 400
      ? `HTTP ${status} (redirects are not followed)`
      : `HTTP ${status}`,
  };
}

function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The retry schedule's settings. */
export interface PushRetryOptions {
  /** The delay before the first retry, in ms. Default 500. */
  readonly baseDelayMs?: number;
  /** The longest delay, in ms (a `Retry-After` is capped to it too). Default 30,000. */
  readonly maxDelayMs?: number;
}

/**
 * The delay before attempt `attempt + 1` after `attempt` failed (1-based):
 * exponential from `baseDelayMs`, capped at `maxDelayMs`, with "equal
 * jitter" (half fixed, half random) so webhooks that failed together do not
 * retry together.
 */
export function pushRetryDelay(attempt: number, options: PushRetryOptions = {}): number {
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 30_000;
  const exp = Math.min(cap, base * 2 ** Math.min(30, attempt - 1));
  return Math.round(exp / 2 + Math.random() * exp / 2);
}

/**
 * The options every outbox takes (`createMemoryPushOutbox`'s, and
 * `@seam/gateway-postgres`'s `createPostgresPushOutbox`'s), read by
 * {@linkcode resolvePushDelivery}.
 */
export interface PushDeliveryOptions extends PushRetryOptions {
  /**
   * Attempts per notification, the first included (in a shared outbox, a
   * claim whose instance died counts). Default 5.
   */
  readonly maxAttempts?: number;
  /** How long one request may take, in ms. Default 10,000. */
  readonly timeoutMs?: number;
  /**
   * Notifications waiting per webhook URL; beyond it the oldest waiting ones
   * are dropped (with a warning), so a dead webhook keeps the latest states.
   * Default 100.
   */
  readonly maxQueuedPerWebhook?: number;
  /**
   * How long `close()` lets the deliveries under way finish, in ms (a shared
   * outbox leaves the rest to another instance). Default 2,000.
   */
  readonly closeGraceMs?: number;
  /** Where drops (and the outbox's own trouble) are reported. Default: a console logger named `"push"`. */
  readonly logger?: Logger;
  /** The fetch to send with. Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/**
 * {@linkcode PushDeliveryOptions} checked, with their defaults, and the
 * steps every outbox takes by them.
 */
export interface PushDelivery {
  /** Attempts per notification, the first included (default 5). */
  readonly maxAttempts: number;
  /** How long one request may take, in ms (default {@linkcode PUSH_TIMEOUT_MS}). */
  readonly timeoutMs: number;
  /** Notifications waiting per webhook URL (default 100). */
  readonly maxQueuedPerWebhook: number;
  /** How long `close()` lets deliveries finish, in ms (default 2,000). */
  readonly closeGraceMs: number;
  /** Where drops are reported (default: a console logger named `"push"`). */
  readonly logger: Logger;
  /** One attempt ({@linkcode sendPushNotification}) with `timeoutMs` and `fetch`; `signal` aborts it. */
  send(notification: PushNotification, signal: AbortSignal): Promise<PushAttemptOutcome>;
  /**
   * The wait before the next attempt after attempt `attempt` (1-based)
   * failed: {@linkcode pushRetryDelay}, or the webhook's `Retry-After` if
   * longer, at most `maxDelayMs`.
   */
  retryWait(attempt: number, retryAfterMs: number | undefined): number;
  /**
   * How `close()` ends the deliveries: `inflight` has `closeGraceMs` to
   * settle, then `abort()` stops what is left; fulfils once `inflight` has
   * settled, with no timer left.
   */
  drain(inflight: Promise<unknown>, abort: () => void): Promise<void>;
  /**
   * One of the outbox's own integer options, checked in the same words:
   * `fallback` when absent, else a safe integer of at least `min` (default 1).
   *
   * @throws {RangeError} naming the outbox and the option.
   */
  integer(value: number | undefined, name: string, fallback: number, min?: number): number;
}

/** Every option of {@linkcode PushDeliveryOptions}. */
const DELIVERY_OPTIONS = [
  "maxAttempts",
  "timeoutMs",
  "maxQueuedPerWebhook",
  "closeGraceMs",
  "logger",
  "fetch",
  "baseDelayMs",
  "maxDelayMs",
] satisfies (keyof PushDeliveryOptions)[];

/**
 * Check the options every outbox takes and fill in their defaults (the
 * in-memory outbox and `@seam/gateway-postgres`'s take them so); `outbox`
 * names it in refusals (`"the PostgreSQL push outbox"`). Given `own`, the
 * names of the outbox's other options, it refuses any option that is
 * neither one of those nor a delivery option.
 *
 * @throws {RangeError} naming the outbox and an option that is not an
 *   integer of at least its minimum (1; 0 for the waits).
 * @throws {TypeError} with `own`, naming an unknown option and the known ones.
 */
export function resolvePushDelivery(
  options: PushDeliveryOptions,
  outbox: string,
  own?: readonly string[],
): PushDelivery {
  if (own !== undefined) {
    refuseUnknownOptions(`create ${outbox}`, options, [...own, ...DELIVERY_OPTIONS]);
  }
  const integer = (value: number | undefined, name: string, fallback: number, min = 1) => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < min) {
      throw new RangeError(
        `Cannot create ${outbox}: ${name} must be an integer of at least ${min}, got ${value}`,
      );
    }
    return value;
  };
  const maxAttempts = integer(options.maxAttempts, "maxAttempts", 5);
  const timeoutMs = integer(options.timeoutMs, "timeoutMs", PUSH_TIMEOUT_MS);
  const maxQueuedPerWebhook = integer(options.maxQueuedPerWebhook, "maxQueuedPerWebhook", 100);
  const closeGraceMs = integer(options.closeGraceMs, "closeGraceMs", 2_000, 0);
  const retry = {
    baseDelayMs: integer(options.baseDelayMs, "baseDelayMs", 500, 0),
    maxDelayMs: integer(options.maxDelayMs, "maxDelayMs", 30_000, 0),
  };
  const fetch = options.fetch;
  return {
    maxAttempts,
    timeoutMs,
    maxQueuedPerWebhook,
    closeGraceMs,
    logger: options.logger ?? createLogger({ name: "push" }),
    send: (notification, signal) =>
      sendPushNotification(notification, { signal, timeoutMs, fetch }),
    retryWait: (attempt, retryAfterMs) =>
      Math.min(retry.maxDelayMs, Math.max(retryAfterMs ?? 0, pushRetryDelay(attempt, retry))),
    drain: async (inflight, abort) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => timer = setTimeout(resolve, closeGraceMs));
      await Promise.race([inflight, grace]);
      clearTimeout(timer);
      abort();
      await inflight;
    },
    integer,
  };
}
