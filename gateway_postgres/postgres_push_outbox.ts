/** The gateway's {@linkcode PushOutbox} on PostgreSQL (see {@linkcode createPostgresPushOutbox}). */
import {
  isTaskStorageError,
  type PushDelivery,
  type PushDeliveryOptions,
  type PushNotification,
  type PushOutbox,
  resolvePushDelivery,
} from "@seam/gateway";
import { type PostgresTaskStore, type StoreInternals, storeInternals } from "./postgres_store.ts";

/** Options of {@linkcode createPostgresPushOutbox}. */
export interface PostgresPushOutboxOptions extends PushDeliveryOptions {
  /**
   * How long a claim lasts beyond `timeoutMs`, in ms: an instance that dies
   * holding one leaves it to another once it lapses. Default 5,000; at least
   * 250 (the request's timeout starts after the claim returns: with no margin
   * a slow webhook would outlive the claim and be sent the row twice at once).
   */
  readonly leaseMarginMs?: number;
  /** Requests this instance has in flight at once (one per webhook). Default 8. */
  readonly concurrency?: number;
  /**
   * How often this instance looks for notifications other instances wrote
   * and retries that came due, in ms (its own appends wake it at once).
   * Default 1,000.
   */
  readonly pollIntervalMs?: number;
}

/** A {@linkcode PushOutbox} in PostgreSQL; `close()` stops this instance's deliveries (the rows stay). */
export interface PostgresPushOutbox extends PushOutbox {
  /** The task store whose appends write this outbox. */
  readonly enqueuedBy: PostgresTaskStore;
  /** How many notifications wait in the outbox (every instance's), for tests and metrics. */
  pending(): Promise<number>;
}

interface OutboxRow {
  seq: string;
  id: string;
  task_id: string;
  config_id: string;
  url: string;
  token: string | null;
  authentication: string | null;
  body: string;
  created_at: number;
  attempts: number;
  claim: string;
  /**
   * Whether its config was still in `push_configs` when it was claimed, with
   * the delivery target the row was written with (url, token,
   * authentication): not deleted, not re-created elsewhere, not replaced.
   */
  live: boolean;
  /** When this instance claimed it (ms since the epoch, its own clock). */
  claimedAt: number;
}

type OutboxState = "open" | "closing" | "closed";
/** How a claim ends: the row deleted (the first three), rescheduled, or released uncounted. */
type Settle = "delivered" | "drop" | "discard" | "retry" | "release";
/** Whether the database answered the last time this instance asked. */
type Reach = "reachable" | "unreachable";

/** The longest time between two trims (`maxQueuedPerWebhook`); ten polls if that is sooner. */
const TRIM_EVERY_MS = 5_000;
const ENQUEUE_RETRY_MAX_MS = 2_000;
/** How its refusals name it. */
const OUTBOX = "the PostgreSQL push outbox";
/** The options of {@linkcode PostgresPushOutboxOptions} beside the delivery ones. */
const OWN_OPTIONS = [
  "leaseMarginMs",
  "concurrency",
  "pollIntervalMs",
] satisfies (keyof PostgresPushOutboxOptions)[];

function toNotification(row: OutboxRow): PushNotification {
  return {
    id: row.id,
    taskId: row.task_id,
    configId: row.config_id,
    url: row.url,
    ...(row.token === null ? {} : { token: row.token }),
    ...(row.authentication === null ? {} : { authentication: JSON.parse(row.authentication) }),
    body: row.body,
    createdAt: row.created_at,
  };
}

class PgPushOutbox implements PostgresPushOutbox {
  readonly enqueuedBy: PostgresTaskStore;
  #state: OutboxState = "open";
  #reach: Reach = "reachable";
  #closing: Promise<void> | undefined;
  #pumping: Promise<void> | undefined;
  #again = false;
  #lastTrim = 0;
  readonly #trimEveryMs: number;
  readonly #inflight = new Set<Promise<void>>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  /** Aborts requests in flight (the close grace ran out) and enqueue retries. */
  readonly #requests = new AbortController();
  readonly #db: StoreInternals;
  readonly #stopWaking: () => void;
  readonly #delivery: PushDelivery;
  readonly #leaseMs: number;
  readonly #concurrency: number;
  readonly #pollMs: number;

  constructor(store: PostgresTaskStore, options: PostgresPushOutboxOptions) {
    this.#db = storeInternals(store, "the PostgreSQL push outbox");
    this.enqueuedBy = store;
    const delivery = this.#delivery = resolvePushDelivery(options, OUTBOX, OWN_OPTIONS);
    const { integer } = delivery;
    this.#leaseMs = delivery.timeoutMs +
      integer(options.leaseMarginMs, "leaseMarginMs", 5_000, 250);
    this.#concurrency = integer(options.concurrency, "concurrency", 8);
    this.#pollMs = integer(options.pollIntervalMs, "pollIntervalMs", 1_000, 10);
    this.#trimEveryMs = Math.min(TRIM_EVERY_MS, this.#pollMs * 10);
    this.#stopWaking = this.#db.onPushed(() => this.#kick());
    this.#tick();
  }

  async enqueue(n: PushNotification): Promise<void> {
    let wait = 50;
    for (;;) {
      if (this.#state !== "open") {
        return this.#drop(n, "the outbox is closed", 0);
      }
      try {
        await this.#db.run("enqueue a push notification", () =>
          this.#db.sql`
            INSERT INTO push_outbox (id, task_id, config_id, url, token, authentication, body, created_at)
            VALUES (${n.id}, ${n.taskId}, ${n.configId}, ${n.url}, ${n.token ?? null},
              ${n.authentication ? JSON.stringify(n.authentication) : null}, ${n.body},
              ${n.createdAt})`);
        this.#kick();
        return;
      } catch (error) {
        // Out of reach: hold it (in order: the gateway awaits this) until the database is back.
        if (!isTaskStorageError(error, "UNAVAILABLE")) throw error;
        this.#unreachable(error);
        try {
          await abortableDelay(wait, this.#requests.signal);
        } catch {
          return this.#drop(n, "the outbox closed while the database was out of reach", 0);
        }
        wait = Math.min(wait * 2, ENQUEUE_RETRY_MAX_MS);
      }
    }
  }

  async discard(taskId: string, configId: string): Promise<void> {
    await this.#db.run("discard push notifications", () =>
      this.#db.sql`
        DELETE FROM push_outbox WHERE task_id = ${taskId} AND config_id = ${configId}`);
  }

  async pending(): Promise<number> {
    const rows = await this.#db.run(
      "count push notifications",
      () => this.#db.sql<{ n: number }[]>`SELECT count(*)::integer AS n FROM push_outbox`,
    );
    return rows[0]?.n ?? 0;
  }

  close(): Promise<void> {
    return this.#closing ??= (async () => {
      this.#state = "closing";
      this.#stopWaking();
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      await this.#pumping;
      const inflight = Promise.all([...this.#inflight]);
      await this.#delivery.drain(inflight, () => {
        this.#state = "closed";
        // What is still in flight is released for another instance.
        this.#requests.abort();
      });
    })();
  }

  /** Look again every poll interval. */
  #tick(): void {
    this.#later(this.#pollMs, () => {
      this.#kick();
      this.#tick();
    });
  }

  #later(ms: number, fn: () => void): void {
    if (this.#state !== "open") return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
  }

  /** Claim what is due now (one pass at a time; a kick during one asks for another). */
  #kick(): void {
    if (this.#state !== "open") return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#pump().finally(() => {
      this.#pumping = undefined;
      if (this.#again) {
        this.#again = false;
        this.#kick();
      }
    });
  }

  async #pump(): Promise<void> {
    if (Date.now() - this.#lastTrim >= this.#trimEveryMs) {
      this.#lastTrim = Date.now();
      await this.#trim();
    }
    const free = this.#concurrency - this.#inflight.size;
    if (free <= 0 || this.#state !== "open") return;
    let rows: OutboxRow[];
    try {
      const at = Date.now();
      rows = await this.#claim(free);
      for (const row of rows) row.claimedAt = at;
      this.#reachable();
    } catch (error) {
      this.#unreachable(error);
      return;
    }
    for (const row of rows) {
      const delivery = this.#deliver(row).catch((error) =>
        this.#delivery.logger.error("A push delivery failed", error)
      ).finally(() => {
        this.#inflight.delete(delivery);
        // A slot is free, and the webhook's next notification may be due.
        this.#kick();
      });
      this.#inflight.add(delivery);
    }
    if (rows.length === free) this.#again = true;
  }

  /**
   * Claim up to `limit` due notifications, each the oldest of its webhook's
   * (so a webhook hears them in order, one at a time, across instances),
   * skipping rows another instance is claiming right now. Each says whether
   * its config still exists and still sends where the row would (`live`):
   * the row keeps its own copy of the target, and a config deleted then
   * created again under its id, or replaced in place, must not have the old
   * URL sent the old token. The authentication is compared as JSON (its
   * meaning, not its text's key order).
   */
  #claim(limit: number): Promise<OutboxRow[]> {
    const sql = this.#db.sql;
    const claim = crypto.randomUUID();
    return this.#db.run("claim push notifications", () =>
      sql<OutboxRow[]>`
        UPDATE push_outbox o SET attempts = o.attempts + 1, claim = ${claim},
          lease_until = now() + make_interval(secs => ${this.#leaseMs / 1000})
        WHERE o.seq IN (
          SELECT q.seq FROM push_outbox q
          WHERE q.due_at <= now() AND (q.lease_until IS NULL OR q.lease_until < now())
            AND NOT EXISTS (SELECT 1 FROM push_outbox p WHERE p.url = q.url AND p.seq < q.seq)
          ORDER BY q.seq LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING o.seq::text AS seq, o.id, o.task_id, o.config_id, o.url, o.token,
          o.authentication, o.body, o.created_at, o.attempts, o.claim,
          EXISTS (SELECT 1 FROM push_configs c WHERE c.task_id = o.task_id AND c.id = o.config_id
            AND c.url = o.url AND c.token IS NOT DISTINCT FROM o.token
            AND c.authentication::jsonb IS NOT DISTINCT FROM o.authentication::jsonb) AS live`);
  }

  async #deliver(row: OutboxRow): Promise<void> {
    const n = toNotification(row);
    if (!row.live) {
      // Its config was deleted (or now sends elsewhere): a row that an append
      // committed after the delete and its discard (it read the configs
      // before the delete did), or a retry due after the delete. A deleted
      // config hears nothing more, and a replaced one's old target neither.
      return await this.#finish(row, "discard", "");
    }
    if (row.attempts > this.#delivery.maxAttempts) {
      // Its last claims were by instances that stopped before they finished.
      return await this.#finish(row, "drop", `${row.attempts - 1} attempts were made`);
    }
    const outcome = await this.#delivery.send(n, this.#requests.signal);
    if (this.#requests.signal.aborted && outcome.kind === "retry") {
      return await this.#finish(row, "release", "the outbox closed");
    }
    if (outcome.kind === "delivered") return await this.#finish(row, "delivered", "");
    if (outcome.kind === "drop") {
      return await this.#finish(row, "drop", `the webhook refused it (${outcome.reason})`);
    }
    if (row.attempts >= this.#delivery.maxAttempts) {
      return await this.#finish(
        row,
        "drop",
        `${row.attempts} attempts failed, the last: ${outcome.reason}`,
      );
    }
    const wait = this.#delivery.retryWait(row.attempts, outcome.retryAfterMs);
    await this.#finish(row, "retry", outcome.reason, wait);
    this.#later(wait, () => this.#kick());
  }

  /**
   * Settle a claim: delete the row (delivered, dropped, its config deleted),
   * schedule its next attempt, or release it uncounted. Only while the claim is still ours.
   * While the database is out of reach this is retried until the claim is
   * about to lapse (the webhook's next notifications wait behind it); then
   * the row is tried again by whoever claims it (at least once, never lost).
   */
  async #finish(
    row: OutboxRow,
    how: Settle,
    why: string,
    waitMs = 0,
  ): Promise<void> {
    const until = row.claimedAt + this.#leaseMs - 1_000;
    for (let wait = 50;; wait = Math.min(wait * 2, 1_000)) {
      try {
        await this.#settle(row, how, why, waitMs);
        break;
      } catch (error) {
        if (
          !isTaskStorageError(error, "UNAVAILABLE") || Date.now() + wait > until ||
          this.#state === "closed"
        ) {
          this.#delivery.logger.warn(
            `Push notification ${row.id} could not be settled (${how}); it is tried again once its claim lapses`,
            error,
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
    if (how === "drop") this.#drop(toNotification(row), why, row.attempts);
  }

  #settle(
    row: OutboxRow,
    how: Settle,
    why: string,
    waitMs: number,
  ): Promise<unknown> {
    const sql = this.#db.sql;
    return this.#db.run(
      "settle a push notification",
      () =>
        how === "delivered" || how === "drop" || how === "discard"
          ? sql`DELETE FROM push_outbox WHERE seq = ${row.seq} AND claim = ${row.claim}`
          : how === "retry"
          ? sql`
            UPDATE push_outbox SET claim = NULL, lease_until = NULL, last_error = ${why},
              due_at = now() + make_interval(secs => ${waitMs / 1000})
            WHERE seq = ${row.seq} AND claim = ${row.claim}`
          : sql`
            UPDATE push_outbox SET claim = NULL, lease_until = NULL, attempts = attempts - 1
            WHERE seq = ${row.seq} AND claim = ${row.claim}`,
    );
  }

  /** Drop what waits beyond `maxQueuedPerWebhook` for a webhook, oldest first. */
  async #trim(): Promise<void> {
    let rows: { id: string; task_id: string; config_id: string; url: string }[];
    try {
      rows = await this.#db.run("trim the push outbox", () =>
        this.#db.sql<typeof rows>`
          DELETE FROM push_outbox o USING (
            SELECT seq, row_number() OVER (PARTITION BY url ORDER BY seq DESC) AS n FROM push_outbox
          ) r
          WHERE o.seq = r.seq AND r.n > ${this.#delivery.maxQueuedPerWebhook}
            AND (o.lease_until IS NULL OR o.lease_until < now())
          RETURNING o.id, o.task_id, o.config_id, o.url`);
    } catch {
      return; // the claim that follows says so
    }
    for (const row of rows.slice(0, 10)) {
      this.#delivery.logger.warn(
        `Push notification ${row.id} for task "${row.task_id}" (config "${row.config_id}") to ${
          row.url.slice(0, 200)
        } was dropped: ${this.#delivery.maxQueuedPerWebhook} newer ones wait for this webhook (maxQueuedPerWebhook)`,
      );
    }
    if (rows.length > 10) {
      this.#delivery.logger.warn(
        `… and ${rows.length - 10} more push notifications (maxQueuedPerWebhook)`,
      );
    }
  }

  #reachable(): void {
    if (this.#reach === "unreachable") {
      this.#delivery.logger.info("The push outbox reaches PostgreSQL again");
    }
    this.#reach = "reachable";
  }

  #unreachable(error: unknown): void {
    // Said once per outage; the rows wait in the database meanwhile.
    if (this.#reach === "reachable") {
      this.#delivery.logger.warn(
        "The push outbox cannot reach PostgreSQL; its notifications wait",
        error,
      );
    }
    this.#reach = "unreachable";
  }

  #drop(n: PushNotification, why: string, attempts: number): void {
    this.#delivery.logger.warn(
      `Push notification ${n.id} for task "${n.taskId}" (config "${n.configId}") to ${
        n.url.slice(0, 200)
      } was dropped${attempts ? ` after ${attempts} attempts` : ""}: ${why}`,
    );
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A durable {@linkcode PushOutbox} in the task store's database (table
 * `push_outbox` of its schema), shared by every gateway instance on it. Given
 * to the gateway beside that task store (`push.outbox`, with
 * `createPostgresPushConfigStore` as `push.configStore`), it is written by
 * the append that commits each state change: one row per push config of the
 * task, in the change's transaction, so a committed change is announced at
 * least once even if the instance dies the moment after.
 *
 * Every instance delivers: it claims due rows with `FOR UPDATE SKIP LOCKED`
 * and a lease (`timeoutMs` + `leaseMarginMs`), at most `concurrency` at once
 * and only the oldest row of each webhook, so a webhook hears its
 * notifications in order, one at a time. A 2xx deletes the row; a network
 * error, timeout, 408, 429 or 5xx schedules the next attempt with backoff
 * (`pushRetryDelay`, at least `Retry-After`) up to `maxAttempts`; any other
 * 4xx or a redirect drops it (logged). A claim whose instance died lapses
 * and another instance tries again (the attempt counted), and `close()`
 * leaves what it did not deliver for the others or the next start: nothing
 * is lost with an instance. While the database is out of reach the rows
 * wait; a delivery whose settling could not be written is tried again once
 * its claim lapses (the receiver drops the duplicate by
 * `X-A2A-Notification-Id`).
 *
 * A deleted config hears nothing more: a row whose config is no longer in
 * `push_configs` when it is claimed, or is there with another URL, token or
 * authentication than the row was written with (deleted and created again
 * under its id, or replaced in place), is deleted unsent. That covers the
 * row of an append that read the configs before a delete or a replace and
 * committed after it (and the delete's `discard`), and a retry due after
 * it: the old URL is not sent the old token.
 *
 * @example
 * ```ts ignore
 * const taskStore = await createPostgresTaskStore({ url });
 * const outbox = createPostgresPushOutbox(taskStore, { maxAttempts: 8 });
 * const gateway = createGateway({
 *   scope: host.scope,
 *   taskStore,
 *   push: { configStore: createPostgresPushConfigStore(taskStore), outbox },
 * });
 * // … on shutdown: the gateway closes the outbox, then
 * await taskStore.close();
 * ```
 *
 * @throws {TypeError} when `store` is not one `createPostgresTaskStore` made,
 * or for an unknown option (naming it and the known ones).
 * @throws {RangeError} naming an option out of range.
 */
export function createPostgresPushOutbox(
  store: PostgresTaskStore,
  options: PostgresPushOutboxOptions = {},
): PostgresPushOutbox {
  return new PgPushOutbox(store, options);
}
