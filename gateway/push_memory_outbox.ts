/**
 * The in-memory {@linkcode PushOutbox}: a queue per webhook, one request in
 * flight per webhook, bounded retries with backoff, and (beside its config
 * store) nothing sent for a config replaced in place with another target.
 *
 * @module
 */
import { delay } from "@seam/host";
import {
  type PushDelivery,
  type PushDeliveryOptions,
  type PushNotification,
  type PushOutbox,
  resolvePushDelivery,
} from "./push_outbox.ts";
import type { A2APushNotificationConfig, PushConfigStore } from "./push_store.ts";
import { isArray } from "./core/_builtins.ts";

/** Options of {@linkcode createMemoryPushOutbox}. */
export interface MemoryPushOutboxOptions extends PushDeliveryOptions {
  /** Webhook URLs with notifications waiting at once; beyond it a new one's are dropped. Default 1,000. */
  readonly maxWebhooks?: number;
  /**
   * The config store the notifications' configs are kept in (the gateway's
   * `push.configStore`; the gateway passes its own to the outbox it makes
   * when none is given). Before each attempt, the first and every retry, the
   * outbox reads the notification's config there:
   *
   * - kept with another url, token or authentication (replaced in place:
   *   `CreateTaskPushNotificationConfig` with its id and another target):
   *   dropped unsent, and the webhook's queue goes on, so the old target is
   *   not sent what was queued for it;
   * - kept as it was: sent;
   * - not there (the store evicted it: its task ended, the store full), or
   *   the read failed or did not answer within `timeoutMs`: sent as it was
   *   enqueued (its target was valid then, and each state change is owed at
   *   least once); a failed read is logged as a warning.
   *
   * A deleted config stops its notifications through
   * {@linkcode PushOutbox.discard}, which the gateway calls on `Delete`.
   *
   * Without it the outbox sends what it was given: only `discard` stops a
   * notification, and a replaced config's old target still hears what was
   * queued for it.
   */
  readonly configStore?: PushConfigStore;
}

interface Entry {
  readonly notification: PushNotification;
  attempt: number;
  /** Its config was deleted while it was being attempted: no retry. */
  discarded: boolean;
  /** Ends the wait for its next attempt (its config was deleted meanwhile). */
  wake?: () => void;
}

interface Queue {
  readonly url: string;
  readonly entries: Entry[];
  /** The entry being attempted (or waited on for a retry), if any. */
  head: Entry | undefined;
}

type OutboxState = "open" | "closing" | "closed";

/** How its refusals name it. */
const OUTBOX = "push outbox";
/** The options of {@linkcode MemoryPushOutboxOptions} beside the delivery ones. */
const OWN_OPTIONS = ["maxWebhooks", "configStore"] satisfies (keyof MemoryPushOutboxOptions)[];

class MemoryPushOutbox implements PushOutbox {
  readonly #queues = new Map<string, Queue>();
  readonly #workers = new Set<Promise<void>>();
  /** Aborts the waits between retries (close begins). */
  readonly #waits = new AbortController();
  /** Aborts requests in flight (the close grace ran out). */
  readonly #requests = new AbortController();
  #state: OutboxState = "open";
  #closing: Promise<void> | undefined;
  readonly #delivery: PushDelivery;
  readonly #maxWebhooks: number;
  readonly #configs: PushConfigStore | undefined;

  constructor(options: MemoryPushOutboxOptions) {
    this.#delivery = resolvePushDelivery(options, OUTBOX, OWN_OPTIONS);
    this.#maxWebhooks = this.#delivery.integer(options.maxWebhooks, "maxWebhooks", 1_000);
    const store = options.configStore;
    if (store !== undefined && typeof store?.list !== "function") {
      throw new TypeError(
        "Cannot create push outbox: configStore must be a PushConfigStore (it has no list method)",
      );
    }
    this.#configs = store;
  }

  enqueue(notification: PushNotification): void {
    if (this.#state !== "open") {
      this.#drop(notification, "the outbox is closed");
      return;
    }
    let queue = this.#queues.get(notification.url);
    if (!queue) {
      if (this.#queues.size >= this.#maxWebhooks) {
        this.#drop(
          notification,
          `${this.#queues.size} webhooks have notifications waiting (maxWebhooks)`,
        );
        return;
      }
      queue = { url: notification.url, entries: [], head: undefined };
      this.#queues.set(notification.url, queue);
    }
    if (queue.entries.length >= this.#delivery.maxQueuedPerWebhook) {
      const oldest = queue.entries.shift()!;
      this.#drop(
        oldest.notification,
        `${this.#delivery.maxQueuedPerWebhook} notifications wait for this webhook (maxQueuedPerWebhook)`,
      );
    }
    queue.entries.push({ notification, attempt: 0, discarded: false });
    if (queue.head === undefined) this.#start(queue);
  }

  discard(taskId: string, configId: string): void {
    const match = (e: Entry) =>
      e.notification.taskId === taskId && e.notification.configId === configId;
    for (const queue of this.#queues.values()) {
      if (queue.head && match(queue.head)) {
        queue.head.discarded = true;
        queue.head.wake?.();
      }
      const kept = queue.entries.filter((e) => !match(e));
      queue.entries.splice(0, queue.entries.length, ...kept);
    }
  }

  close(): Promise<void> {
    return this.#closing ??= (async () => {
      this.#state = "closing";
      this.#waits.abort();
      await this.#delivery.drain(Promise.all([...this.#workers]), () => {
        this.#state = "closed";
        this.#requests.abort();
      });
    })();
  }

  #start(queue: Queue): void {
    const worker = this.#work(queue).catch((error) =>
      this.#delivery.logger.error("A push delivery worker failed", error)
    );
    this.#workers.add(worker);
    worker.finally(() => this.#workers.delete(worker));
  }

  /** Deliver a queue's notifications one at a time, in order, until it is empty. */
  async #work(queue: Queue): Promise<void> {
    try {
      while (queue.entries.length > 0) {
        if (this.#state === "closed") {
          for (const e of queue.entries) this.#drop(e.notification, "the outbox closed");
          queue.entries.length = 0;
          break;
        }
        const entry = queue.entries.shift()!;
        queue.head = entry;
        await this.#deliver(entry);
        queue.head = undefined;
      }
    } finally {
      queue.head = undefined;
      if (this.#queues.get(queue.url) === queue && queue.entries.length === 0) {
        this.#queues.delete(queue.url);
      }
    }
  }

  async #deliver(entry: Entry): Promise<void> {
    const n = entry.notification;
    for (;;) {
      entry.attempt++;
      // Its config was replaced in place with another target: the old one
      // hears nothing more (as the PostgreSQL outbox does), and the queue goes on.
      if (await this.#target(n) === "gone") return;
      if (entry.discarded) return;
      const outcome = await this.#delivery.send(n, this.#requests.signal);
      if (outcome.kind === "delivered") return;
      if (outcome.kind === "drop") {
        this.#drop(n, `the webhook refused it (${outcome.reason})`);
        return;
      }
      if (entry.discarded) return;
      if (entry.attempt >= this.#delivery.maxAttempts) {
        this.#drop(n, `${entry.attempt} attempts failed, the last: ${outcome.reason}`);
        return;
      }
      if (this.#state !== "open") {
        this.#drop(n, `the outbox is closing (last attempt: ${outcome.reason})`);
        return;
      }
      const wait = this.#delivery.retryWait(entry.attempt, outcome.retryAfterMs);
      const woken = new AbortController();
      entry.wake = () => woken.abort();
      try {
        await delay(wait, AbortSignal.any([this.#waits.signal, woken.signal]));
      } catch {
        // Discarded: nothing more for a deleted config, and the queue goes on at once.
        if (entry.discarded) return;
        this.#drop(n, `the outbox is closing (last attempt: ${outcome.reason})`);
        return;
      } finally {
        entry.wake = undefined;
      }
    }
  }

  /**
   * Whether `n` may be sent now: `"gone"` when its config is kept with
   * another target (replaced in place), else `undefined` (send it). A config
   * not there was evicted (a deleted one is stopped by `discard()`), and a
   * read that fails or does not answer is no reason to lose a state change:
   * both are sent to the target `n` was enqueued with, valid when it was.
   */
  async #target(n: PushNotification): Promise<"gone" | undefined> {
    if (this.#configs === undefined) return undefined;
    let configs: readonly A2APushNotificationConfig[];
    try {
      configs = await this.#read(n.taskId);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.#delivery.logger.warn(
        `Push notification ${n.id} for task "${n.taskId}" (config "${n.configId}"): its config could not be read (${
          why.slice(0, 200)
        }), so it is sent to the target it was enqueued with`,
      );
      return undefined;
    }
    const config = configs.find((c) => c.id === n.configId);
    return config === undefined || sameTarget(config, n) ? undefined : "gone";
  }

  /**
   * The task's configs, or a rejection when the store fails, takes longer
   * than `timeoutMs`, or the close grace runs out first (so a store that
   * never answers cannot hold `close()`); no timer outlives it.
   */
  async #read(taskId: string): Promise<readonly A2APushNotificationConfig[]> {
    const signal = this.#requests.signal;
    if (signal.aborted) throw new Error("the outbox closed");
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const read = (async () => await this.#configs!.list(taskId))();
    // Lost the race: its late rejection is nobody's to handle.
    read.catch(() => {});
    try {
      return await Promise.race([
        read,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${this.#delivery.timeoutMs} ms`)),
            this.#delivery.timeoutMs,
          );
          onAbort = () => reject(new Error("the outbox closed"));
          signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort!);
    }
  }

  #drop(n: PushNotification, why: string): void {
    this.#delivery.logger.warn(
      `Push notification ${n.id} for task "${n.taskId}" (config "${n.configId}") to ${
        n.url.slice(0, 200)
      } was dropped: ${why}`,
    );
  }
}

/** Whether `config` still sends where `n` was made for: url, token and authentication. */
function sameTarget(config: A2APushNotificationConfig, n: PushNotification): boolean {
  return config.url === n.url && config.token === n.token &&
    sameJson(config.authentication, n.authentication);
}

/** JSON equality (a key whose value is `undefined` counts as absent, as in the JSON text). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (isArray(a) !== isArray(b)) return false;
  const keys = (o: object) =>
    Object.keys(o).filter((k) => (o as Record<string, unknown>)[k] !== undefined).sort();
  const ka = keys(a);
  const kb = keys(b);
  return ka.length === kb.length &&
    ka.every((k, i) =>
      k === kb[i] &&
      sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
    );
}

/**
 * The in-memory {@linkcode PushOutbox} (the gateway's default): each webhook
 * URL has its own queue, delivered in order with one request in flight, so
 * a slow or dead webhook holds up only its own notifications. A failed
 * attempt (network error, timeout, 408, 429, 5xx) is retried up to
 * `maxAttempts` with exponential backoff and jitter ({@linkcode pushRetryDelay},
 * at least `Retry-After`); any other 4xx or a redirect drops the notification.
 * Drops are logged. Nothing survives the process: for that, implement the
 * port on a database.
 *
 * Given the gateway's config store (`configStore`, as the gateway does for
 * the outbox it makes), it reads the notification's config before every
 * attempt: one replaced in place (another URL, token or authentication) is
 * not sent what was queued for its old target; one evicted, or a read that
 * fails or does not answer, is sent as enqueued. A deleted config, with or
 * without a store, is stopped by `discard`.
 *
 * @example
 * ```ts
 * import { createMemoryPushConfigStore, createMemoryPushOutbox } from "@seam/gateway";
 *
 * const configStore = createMemoryPushConfigStore();
 * const outbox = createMemoryPushOutbox({ maxAttempts: 3, baseDelayMs: 200, configStore });
 * // createGateway({ scope, push: { configStore, outbox } })
 * await outbox.close();
 * ```
 *
 * @throws {RangeError} when a bound is not a positive integer (naming it).
 * @throws {TypeError} when `configStore` has no `list`, or for an unknown
 *   option (naming it and the known ones).
 */
export function createMemoryPushOutbox(options: MemoryPushOutboxOptions = {}): PushOutbox {
  return new MemoryPushOutbox(options);
}
