/**
 * Push notifications behind both bindings: the config operations (checked
 * against the task's principal and the webhook policy, bounded per task),
 * the config a `SendMessage` carries, and every event of a task with
 * configs turned into one notification per config for the outbox.
 *
 * Everything a task does with push goes through one serial chain per task
 * (configs put and deleted, events read against them), so a config sees
 * the events after it was created and none after it was deleted, in order,
 * whether the store answers at once or later. With an outbox the task storage
 * writes itself (`PushOutbox.enqueuedBy`), an event's body goes to the task's
 * journal instead (`route`): the append that commits the change writes one
 * notification per config in its transaction.
 */
import type { Logger } from "@seam/host";
import { storeFailure } from "../core/_store_errors.ts";
import { GatewayError, invalidParams, tooMany } from "../core/_errors.ts";
import type { LiveTask } from "../core/_live_task.ts";
import type { PushConfigInput, PushConfigListParams, PushConfigRef } from "./_push_params.ts";
import { parsePushConfig, parsePushConfigList, parsePushConfigRef } from "./_push_params.ts";
import { type AllowWebhook, checkWebhookUrl } from "./_push_policy.ts";
import type { StreamEvent } from "../http/_sse.ts";
import { isTerminalState, type StoredTask } from "../task_store.ts";
import type { PushOutbox } from "../push_outbox.ts";
import type { A2APushNotificationConfig, PushConfigStore } from "../push_store.ts";
import { stringify } from "../core/_builtins.ts";

/** Push resolved from the gateway's options. */
export interface PushSettings {
  readonly allowWebhook: AllowWebhook | undefined;
  readonly store: PushConfigStore;
  readonly outbox: PushOutbox;
  readonly maxConfigsPerTask: number;
  readonly maxPayloadBytes: number;
}

/** How the service finds a task as a principal may see it (the engine's `find`). */
export type FindTask = (
  id: string,
  principal: string | undefined,
  tenant: string | undefined,
) => Promise<{ readonly record: StoredTask; readonly live: LiveTask | undefined }>;

/** A `SendMessage`'s config, checked, waiting for its task. */
export interface PreparedPush {
  readonly input: PushConfigInput;
  readonly url: string;
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as Promise<T> | undefined)?.then === "function";
}

const encoder = new TextEncoder();

/** The push side of the gateway (see the module doc). */
export class PushService {
  /**
   * The push params' checks, here so that a gateway built without push
   * (`@seam/gateway/lite`) bundles none of them.
   */
  readonly parse: {
    readonly config: typeof parsePushConfig;
    readonly list: typeof parsePushConfigList;
    readonly ref: typeof parsePushConfigRef;
  } = { config: parsePushConfig, list: parsePushConfigList, ref: parsePushConfigRef };
  readonly #chains = new Map<string, Promise<void>>();
  #closing: Promise<void> | undefined;
  readonly #settings: PushSettings;
  readonly #logger: Logger;
  #find: FindTask | undefined;
  #route: ((taskId: string, body: string) => boolean) | undefined;

  constructor(settings: PushSettings, logger: Logger) {
    this.#settings = settings;
    this.#logger = logger;
  }

  /** Where tasks are found (set once the engine exists). */
  set find(find: FindTask) {
    this.#find = find;
  }

  /** The outbox (the engine asks whether its storage writes it). */
  get outbox(): PushOutbox {
    return this.#settings.outbox;
  }

  /**
   * Where an event's body goes when the storage writes the outbox: the
   * task's journal (false: the task has none here; enqueue it directly).
   */
  set route(route: (taskId: string, body: string) => boolean) {
    this.#route = route;
  }

  /** `CreateTaskPushNotificationConfig`: the config as kept. */
  async create(
    input: PushConfigInput,
    principal: string | undefined,
  ): Promise<A2APushNotificationConfig> {
    const taskId = input.taskId!;
    const found = await this.#find!(taskId, principal, input.tenant);
    const url = await checkWebhookUrl(input.url, "url", this.#settings.allowWebhook);
    const config = this.#config(input, taskId, url.href);
    await this.#serial(taskId, () => this.#put(config, found.record));
    return config;
  }

  /** `GetTaskPushNotificationConfig`. */
  async get(ref: PushConfigRef, principal: string | undefined): Promise<A2APushNotificationConfig> {
    await this.#find!(ref.taskId, principal, ref.tenant);
    const configs = await this.#stored(
      "Reading push configs",
      () => this.#settings.store.list(ref.taskId),
    );
    const config = configs.find((c) => c.id === ref.id);
    if (!config) {
      throw new GatewayError(
        "taskNotFound",
        `Push notification config not found: task "${ref.taskId.slice(0, 100)}" has no config "${
          ref.id.slice(0, 100)
        }"`,
        { metadata: { taskId: ref.taskId.slice(0, 100), configId: ref.id.slice(0, 100) } },
      );
    }
    return config;
  }

  /** `ListTaskPushNotificationConfigs`: a page in the order the configs were created. */
  async list(
    params: PushConfigListParams,
    principal: string | undefined,
  ): Promise<{ configs: A2APushNotificationConfig[]; nextPageToken: string }> {
    await this.#find!(params.taskId, principal, params.tenant);
    const all = await this.#stored(
      "Reading push configs",
      () => this.#settings.store.list(params.taskId),
    );
    let offset = 0;
    if (params.pageToken !== undefined) {
      const m = /^push:(\d{1,6})$/.exec(atobSafe(params.pageToken));
      if (!m) {
        throw invalidParams(
          "pageToken is not one this gateway issued (pass back nextPageToken unchanged)",
        );
      }
      offset = Number(m[1]);
    }
    const size = params.pageSize ?? 100;
    const configs = all.slice(offset, offset + size);
    const next = offset + size < all.length ? btoa(`push:${offset + size}`) : "";
    return { configs, nextPageToken: next };
  }

  /** `DeleteTaskPushNotificationConfig`: idempotent for a task the caller may see. */
  async delete(ref: PushConfigRef, principal: string | undefined): Promise<void> {
    await this.#find!(ref.taskId, principal, ref.tenant);
    await this.#serial(ref.taskId, () =>
      this.#stored("Deleting a push config", async () => {
        await this.#settings.store.delete(ref.taskId, ref.id);
        await this.#settings.outbox.discard(ref.taskId, ref.id);
      }));
  }

  /**
   * Check `SendMessage`'s `configuration.taskPushNotificationConfig`
   * before anything starts.
   *
   * @throws {GatewayError} invalid params naming what is wrong.
   */
  async prepare(raw: unknown, messageTaskId: string | undefined): Promise<PreparedPush> {
    const root = "configuration.taskPushNotificationConfig";
    const input = parsePushConfig(raw, root);
    if (input.taskId !== undefined && input.taskId !== messageTaskId) {
      throw invalidParams(
        `${root}.taskId must be empty (the config is for the task this message ${
          messageTaskId ? `goes to, "${messageTaskId.slice(0, 100)}"` : "starts"
        })`,
      );
    }
    const url = await checkWebhookUrl(input.url, `${root}.url`, this.#settings.allowWebhook);
    return { input, url: url.href };
  }

  /**
   * Keep a prepared config for `taskId`: a new task's before its run
   * starts, so it hears every change; a live task's (`live`) from now on.
   * Answers the config's id.
   *
   * @throws {GatewayError} beyond the caps.
   */
  async attach(prepared: PreparedPush, taskId: string, live?: LiveTask): Promise<string> {
    const config = this.#config(prepared.input, taskId, prepared.url);
    await this.#serial(taskId, () => this.#put(config, live?.record));
    return config.id;
  }

  /** Undo {@linkcode attach} for a task that did not start. */
  detach(taskId: string, id: string): void {
    this.#serial(taskId, () => this.#settings.store.delete(taskId, id))
      .catch((error) => this.#logger.error("Removing a push config failed", error));
  }

  /** An event of a task: one notification per config; `terminal` releases the task's configs. */
  event(task: StoredTask, event: StreamEvent, terminal: boolean): void {
    const taskId = task.task.id;
    if (this.#route) {
      // Serialized now: the journal writes it with the change it announces.
      const routed = this.#bodyOf(taskId, event);
      if (routed === null || this.#route(taskId, routed)) {
        if (terminal) {
          this.#serial(taskId, () => this.#settings.store.release(taskId))
            .catch((error) => this.#logger.error(`Push for task "${taskId}" failed`, error));
        }
        return;
      }
    }
    // Serialized now when the chain is busy: the event's objects may change before it runs.
    let body: string | null | undefined = this.#chains.has(taskId)
      ? this.#bodyOf(taskId, event)
      : undefined;
    const createdAt = Date.now();
    const deliver = async (configs: readonly A2APushNotificationConfig[]): Promise<void> => {
      for (const config of configs) {
        body ??= this.#bodyOf(taskId, event);
        if (body === null) break;
        const done = this.#settings.outbox.enqueue({
          id: crypto.randomUUID(),
          taskId,
          configId: config.id,
          url: config.url,
          ...(config.token === undefined ? {} : { token: config.token }),
          ...(config.authentication ? { authentication: config.authentication } : {}),
          body,
          createdAt,
        });
        if (isThenable(done)) await done;
      }
      if (terminal) await this.#settings.store.release(taskId);
    };
    this.#serial(taskId, () => {
      const configs = this.#settings.store.list(taskId);
      if (isThenable(configs)) {
        body ??= this.#bodyOf(taskId, event);
        return configs.then(deliver);
      }
      if (configs.length === 0 && !terminal) return;
      return deliver(configs);
    }).catch((error) => this.#logger.error(`Push for task "${taskId}" failed`, error));
  }

  /** Let pending work reach the outbox, then close it. Memoized. */
  close(): Promise<void> {
    return this.#closing ??= (async () => {
      while (this.#chains.size > 0) await Promise.all([...this.#chains.values()]);
      await this.#settings.outbox.close();
    })();
  }

  #config(input: PushConfigInput, taskId: string, url: string): A2APushNotificationConfig {
    const config: {
      -readonly [K in keyof A2APushNotificationConfig]: A2APushNotificationConfig[K];
    } = { id: input.id ?? crypto.randomUUID(), taskId, url };
    if (input.token !== undefined) config.token = input.token;
    if (input.authentication) config.authentication = input.authentication;
    if (input.tenant !== undefined) config.tenant = input.tenant;
    return config;
  }

  /**
   * A store operation whose failure is the request's: 503 when the store is
   * out of reach (`TaskStorageError` `UNAVAILABLE`), else internal.
   */
  async #stored<T>(what: string, op: () => T | Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (error) {
      throw error instanceof GatewayError ? error : storeFailure(error, this.#logger, what);
    }
  }

  /** Keep a config; `task` (read when the put runs) tells whether its task already ended. */
  #put(config: A2APushNotificationConfig, task: StoredTask | undefined): Promise<void> {
    return this.#stored("Storing a push config", () => this.#putNow(config, task));
  }

  async #putNow(config: A2APushNotificationConfig, task: StoredTask | undefined): Promise<void> {
    const { store, maxConfigsPerTask: max } = this.#settings;
    // Checked here for every store (exact for one instance), and again by a
    // store that holds the bound in its put (instances sharing it race here).
    const existing = await store.list(config.taskId);
    if (existing.length >= max && !existing.some((c) => c.id === config.id)) {
      throw taskFull(config.taskId, existing.length, max);
    }
    const kept = await store.put(config, { maxPerTask: max });
    if (kept === "task-full") throw taskFull(config.taskId, max, max);
    if (!kept) {
      throw tooMany(
        "Too many push configs: the gateway keeps as many as it can; try again later",
        "TOO_MANY_PUSH_CONFIGS",
      );
    }
    // A task that already ended hears nothing more: its configs may be evicted.
    if (task && isTerminalState(task.task.status.state)) await store.release(config.taskId);
  }

  /** A notification's JSON text for `event`, bounded; `null` when it cannot be sent. */
  body(taskId: string, event: StreamEvent): string | null {
    return this.#bodyOf(taskId, event);
  }

  /** The notification's JSON text, bounded; `null` when it cannot be sent. */
  #bodyOf(taskId: string, event: StreamEvent): string | null {
    const max = this.#settings.maxPayloadBytes;
    let body = stringify(event);
    if (body.length * 3 <= max || encoder.encode(body).length <= max) return body;
    const update = event.statusUpdate as
      | { taskId: string; contextId: string; status: { state: string; timestamp?: string } }
      | undefined;
    if (update) {
      // The state still goes out; its message and metadata are for GetTask.
      body = stringify({
        statusUpdate: {
          taskId: update.taskId,
          contextId: update.contextId,
          status: { state: update.status.state, timestamp: update.status.timestamp },
        },
      });
      return body;
    }
    this.#logger.warn(
      `A push notification for task "${taskId}" is over ${max} bytes (push.maxPayloadBytes) and is not sent; the task's state still is`,
    );
    return null;
  }

  /** Run `op` after everything already queued for the task; its result (or error) is the caller's. */
  #serial<T>(taskId: string, op: () => T | Promise<T>): Promise<T> {
    const prev = this.#chains.get(taskId);
    let result: Promise<T>;
    if (prev === undefined) {
      let value: T | Promise<T>;
      try {
        value = op();
      } catch (error) {
        return Promise.reject(error);
      }
      if (!isThenable(value)) return Promise.resolve(value);
      result = value;
    } else {
      result = prev.then(op);
    }
    const settled = result.then(() => {}, () => {});
    this.#chains.set(taskId, settled);
    settled.then(() => {
      if (this.#chains.get(taskId) === settled) this.#chains.delete(taskId);
    });
    return result;
  }
}

function taskFull(taskId: string, count: number, max: number): GatewayError {
  return tooMany(
    `Too many push configs: task "${taskId}" has ${count} (the limit is ${max} per task); delete one first`,
    "TOO_MANY_PUSH_CONFIGS",
  );
}

function atobSafe(text: string): string {
  try {
    return atob(text);
  } catch {
    return "";
  }
}
