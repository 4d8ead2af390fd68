/**
 * The task engine: the live tasks and their runs. It sends (start a task,
 * continue a context, steer a live task), finds, cancels and lists tasks,
 * and shuts down. A follow-up on a task is handled in _steer.ts, and a
 * record written to a store that is not shared, kept consistent when the
 * store fails, in _store_writer.ts.
 */
import type { Logger } from "@seam/host";
import type { SubagentResult, SubagentService } from "@seam/subagent";
import { acceptsOutput, partsToPrompt } from "./_convert.ts";
import { pushNotSupported } from "../http/_binding.ts";
import { storeFailure } from "./_store_errors.ts";
import { StoreWriter } from "./_store_writer.ts";
import { steer, type SteerHost } from "./_steer.ts";
import {
  assertStorableText,
  GatewayError,
  invalidParams,
  shuttingDown,
  tooMany,
} from "./_errors.ts";
import { readExtension } from "./_extension.ts";
import { sendTraceOf } from "../http/_trace.ts";
import { Disposals, KeptRuns } from "./_kept_runs.ts";
import { ShortLivedMap } from "./_short_lived_map.ts";
import { LiveTask, type LiveTaskHooks, type LiveTaskLimits } from "./_live_task.ts";
import type {
  Cluster,
  ClusterOptions,
  InspectorRecord,
  PreparedPush,
  PushService,
} from "../_features.ts";
import { type ProgressSource, TaskStarter } from "./_task_start.ts";
import type { GatewayParentFactory } from "../options.ts";
import {
  decodePageToken,
  encodePageToken,
  isoNow,
  stateWord,
  type TaskRecord,
  taskView,
  userMessage,
} from "./_task_view.ts";
import type { ListParams, SendParams } from "../http/_validate.ts";
import { isTerminalState, type StoredTask, type TaskStore } from "../task_store.ts";
import { isTaskStorage, type JsonObject } from "../task_storage.ts";
import type { A2AMetadata, A2ATask } from "../types.ts";
import { SEAM_EXTENSION_URI } from "../types.ts";
import type { AgentRef, Scope } from "@seam/host";
import type { SubagentAgentOptions } from "@seam/subagent";

/** The engine's configuration. */
export interface EngineOptions {
  readonly subagents: SubagentService;
  readonly store: TaskStore;
  readonly logger: Logger;
  /** Owns task scopes when the parent is not a static agent. */
  readonly scope: Scope;
  readonly parent: AgentRef | GatewayParentFactory | undefined;
  readonly parentId: string;
  readonly progress: ProgressSource | undefined;
  readonly agentOptions: SubagentAgentOptions | undefined;
  readonly defaultProvider: string | undefined;
  readonly maxResumableRuns: number;
  readonly maxLiveTasks: number;
  readonly maxLiveTasksPerPrincipal: number;
  readonly task: LiveTaskLimits;
  /** Push notifications, when configured. */
  readonly push?: PushService;
  /** The run inspector's memory, when it is on. */
  readonly inspector?: InspectorRecord;
  /** Makes this instance one of many, for a shared store (`TaskStorage` with `shared`). */
  readonly cluster?: (options: ClusterOptions) => Cluster;
}

/** The result of sending a message. */
export interface Sent {
  /**
   * The task, when it runs here; undefined when another instance runs it (a
   * steered task, or a follow-up in a context whose run another keeps).
   */
  readonly live: LiveTask | undefined;
  /** The task's id. */
  readonly taskId: string;
  /** For a task another instance runs: its generation when the message was sent. */
  readonly since?: number;
  /** Whether the message carried the seam extension. */
  readonly extension: boolean;
}

/** A task as a principal may see it: its record, and the live task while it runs. */
export interface Found {
  readonly record: StoredTask;
  readonly live: LiveTask | undefined;
}

/** Where the engine is. */
type EngineState = "open" | "shutting-down";

/** The task engine behind both bindings (see the module doc). */
export class Engine {
  readonly #live = new ShortLivedMap<string, LiveTask>();
  readonly #livePerPrincipal = new Map<string | undefined, number>();
  readonly #disposals: Disposals;
  readonly #kept: KeptRuns;
  readonly #starter: TaskStarter;
  readonly #hooks: LiveTaskHooks;
  readonly #writer: StoreWriter;
  /** What a follow-up needs of the engine (_steer.ts). */
  readonly #steerHost: SteerHost;
  #state: EngineState = "open";
  #shutdown: Promise<void> | undefined;
  readonly #options: EngineOptions;
  readonly #store: TaskStore;
  readonly #logger: Logger;
  /** Set on a shared storage: this instance among the others. */
  readonly cluster: Cluster | undefined;

  constructor(options: EngineOptions) {
    this.#options = options;
    this.#store = options.store;
    this.#logger = options.logger;
    const store = options.store;
    this.cluster = isTaskStorage(store) && store.shared && options.cluster
      ? options.cluster({
        storage: store,
        logger: options.logger,
        maxSubscribers: options.task.maxSubscribers,
        maxBufferedBytes: options.task.maxBufferedBytes,
        commandTimeoutMs: options.task.cancelGraceMs + 2_000,
        engine: this,
        push: options.push,
      })
      : undefined;
    const cluster = this.cluster;
    this.#writer = new StoreWriter(options.store, options.logger);
    this.#steerHost = {
      find: (id, principal, tenant) => this.find(id, principal, tenant),
      cluster,
      push: options.push,
      persist: (record) => this.#persist(record),
    };
    this.#disposals = new Disposals(options.logger);
    this.#kept = new KeptRuns(options.maxResumableRuns, this.#disposals);
    this.#starter = new TaskStarter({
      subagents: options.subagents,
      logger: options.logger,
      scope: options.scope,
      parent: options.parent,
      parentId: options.parentId,
      progress: options.progress,
      agentOptions: options.agentOptions,
      kept: this.#kept,
      disposals: this.#disposals,
      assertOpen: () => this.#assertOpen(),
      watch: options.inspector
        ? (scope, context, path) => options.inspector!.watch(scope, context, path)
        : undefined,
    });
    this.#hooks = {
      logger: options.logger,
      persist: (record) => this.#persist(record),
      settled: (task, result) => this.#settled(task, result),
      stored: (task) => this.#forget(task),
      publish: cluster
        ? (task, event) => cluster.publish(task.record.task.id, event as JsonObject)
        : undefined,
      event: options.push
        ? (record, event, terminal) => options.push!.event(record, event, terminal)
        : undefined,
      changed: options.inspector ? (task) => options.inspector!.taskChanged(task) : undefined,
    };
  }

  /** How many tasks are live. */
  get liveCount(): number {
    return this.#live.size;
  }

  /** Start a task, continue a context, or steer a live task; calls `onLive` synchronously. */
  async send(
    params: SendParams,
    principal: string | undefined,
    onLive?: (live: LiveTask) => void,
    forwarded = false,
  ): Promise<Sent> {
    this.#assertOpen();
    const message = params.message;
    const ext = readExtension(
      message.metadata as A2AMetadata | undefined,
      params.metadata as A2AMetadata | undefined,
    );
    const pushConfig = params.configuration?.taskPushNotificationConfig;
    let push: PreparedPush | undefined;
    if (pushConfig !== undefined && pushConfig !== null) {
      if (!this.#options.push) throw pushNotSupported();
      push = await this.#options.push.prepare(pushConfig, message.taskId);
    }
    if (!acceptsOutput(params.configuration?.acceptedOutputModes)) {
      throw new GatewayError(
        "contentType",
        `Content type not supported: configuration.acceptedOutputModes (${
          params.configuration!.acceptedOutputModes!.join(", ").slice(0, 200)
        }) admits none of what this gateway answers with (text/plain, application/json)`,
      );
    }
    assertStorableText(message.contextId, "message.contextId");
    if (message.taskId !== undefined) {
      return steer(this.#steerHost, params, principal, ext, onLive, forwarded, push);
    }
    this.#admit(principal);
    if (this.cluster) await this.cluster.admit();

    const provider = this.#resolveProvider(params.tenant);
    if (this.cluster && message.contextId !== undefined) {
      // How the run kept here for this context answers, if one is kept.
      const kept = this.#kept.get(principal, provider, message.contextId)?.chain.context.reply;
      // A follow-up whose run another instance keeps goes there (_continue_elsewhere.ts); one
      // sent here is refused unless a run kept here answers it with a task (Cluster.continueElsewhere).
      const elsewhere = (forwarded ? kept !== "task" : !kept) &&
        await this.cluster.continueElsewhere(params, principal, provider, ext.used, forwarded);
      if (elsewhere) return elsewhere;
    }
    // Flat copies (toLowerCase, ~0.03 µs): randomUUID answers a slice of a
    // batch, for which V8's JSON.stringify takes its slow path, and the stored
    // task names both twice (bench/README.md, gateway, session 6: −0.6 µs a SendMessage).
    const taskId = crypto.randomUUID().toLowerCase();
    const contextId = message.contextId ?? crypto.randomUUID().toLowerCase();
    // Counted from here: a factory may take a while, and others must see the slot taken.
    this.#count(principal, +1);
    const accepted = userMessage(params, taskId, contextId);
    let started;
    let pushId: string | undefined;
    try {
      // Kept before the run starts, so the webhook hears every change.
      if (push) pushId = await this.#options.push!.attach(push, taskId);
      // Awaited only when it is a promise (a parent factory): a fresh start is synchronous.
      const starting = this.#starter.start({
        provider,
        prompt: partsToPrompt(message.parts),
        ext,
        principal,
        taskId,
        contextId,
        continuing: message.contextId !== undefined,
        message: accepted,
        trace: sendTraceOf(params),
      });
      started = starting instanceof Promise ? await starting : starting;
    } catch (error) {
      this.#count(principal, -1);
      if (pushId !== undefined) this.#options.push!.detach(taskId, pushId);
      throw error;
    }
    const { run } = started;
    const now = Date.now();
    const meta: Record<string, unknown> = { provider, runId: run.id };
    if (started.resumedFrom) meta.resumedFrom = started.resumedFrom;
    const task: A2ATask = {
      id: taskId,
      contextId,
      status: { state: "TASK_STATE_SUBMITTED", timestamp: isoNow(now) },
      history: [accepted],
      metadata: { [SEAM_EXTENSION_URI]: meta } as A2AMetadata,
    };
    const record: TaskRecord = { task, owner: principal, provider, updatedAt: now };
    const live = new LiveTask(record, started, this.#hooks, this.#options.task);
    started.chain.current = live;
    this.#live.set(taskId, live);
    live.stopProgress = started.stopProgress;
    // The task itself, not a closure: one made in this call would hold its
    // whole context for as long as the route is reachable, which dragged
    // each task's objects into V8's old generation (bench/promoted.ts).
    started.route.task = live;
    if (live.reply === "task") this.#options.inspector?.taskChanged(live, ext.budget);
    if (live.reply === "message") {
      // A direct reply: no task exists for anyone else to see.
    } else if (this.cluster) return this.cluster.sendShared(live, this, onLive, ext.used);
    else this.#persist(record);
    live.observe();
    onLive?.(live);
    return { live, taskId, extension: ext.used };
  }

  /** The task `id` as `principal` may see it (through `tenant`), live or stored. */
  async find(
    id: string,
    principal: string | undefined,
    tenant: string | undefined,
  ): Promise<Found> {
    const running = this.#live.get(id);
    let record: StoredTask | undefined = running?.record;
    // No task id holds a NUL (the gateway makes them), and PostgreSQL refuses one in text.
    if (!record && !id.includes("\0")) {
      try {
        record = await this.#store.get(id);
      } catch (error) {
        throw storeFailure(error, this.#logger, `Reading task "${id.slice(0, 100)}"`);
      }
    }
    if (!record || record.owner !== principal || (tenant && tenant !== record.provider)) {
      throw new GatewayError("taskNotFound", `Task not found: "${id.slice(0, 100)}"`, {
        metadata: { taskId: id.slice(0, 100) },
      });
    }
    return { record, live: running && running.phase !== "ended" ? running : undefined };
  }

  /** Cancel a live task and answer its state once the run ended (or the cancel timed out). */
  async cancel(
    id: string,
    principal: string | undefined,
    tenant: string | undefined,
    forwarded = false,
  ): Promise<A2ATask> {
    const found = await this.find(id, principal, tenant);
    const task = found.live;
    if (!task) {
      const t = found.record.task;
      if (this.cluster && !forwarded && !isTerminalState(t.status.state)) {
        // Another instance runs it: the cancel goes there.
        return this.cluster.forwardCancel(found.record, id, principal);
      }
      throw new GatewayError(
        "taskNotCancelable",
        `Task not cancelable: task "${t.id}" is already ${stateWord(t)}`,
        { metadata: { taskId: t.id, state: t.status.state } },
      );
    }
    task.endEarly("client", "cancelled by the A2A client (CancelTask)");
    await task.done;
    return this.view(task.record);
  }

  /** A page of tasks. */
  async list(params: ListParams, principal: string | undefined): Promise<Record<string, unknown>> {
    assertStorableText(params.contextId, "contextId");
    assertStorableText(params.tenant, "tenant");
    const after = params.pageToken ? decodePageToken(params.pageToken) : undefined;
    let page;
    try {
      page = await this.#store.list({
        owner: principal,
        provider: params.tenant || undefined,
        contextId: params.contextId,
        state: params.state,
        updatedAfter: params.updatedAfter,
        after,
        limit: params.pageSize + 1,
      });
    } catch (error) {
      throw storeFailure(error, this.#logger, "Listing tasks");
    }
    const more = page.tasks.length > params.pageSize;
    const records = more ? page.tasks.slice(0, params.pageSize) : page.tasks;
    const last = records[records.length - 1];
    return {
      tasks: records.map((r) => this.view(r, params.historyLength, params.includeArtifacts)),
      nextPageToken: more && last
        ? encodePageToken({ updatedAt: last.updatedAt, id: last.task.id })
        : "",
      pageSize: params.pageSize,
      totalSize: page.total,
    };
  }

  /** The wire form of a task, its history cut to `historyLength`. */
  view(record: StoredTask, historyLength?: number, includeArtifacts = true): A2ATask {
    return taskView(
      record,
      historyLength,
      includeArtifacts,
      this.#live.get(record.task.id)?.streamed,
    );
  }

  /** Cancel every live task, dispose every run, stop accepting work. Memoized. */
  shutdown(): Promise<void> {
    return this.#shutdown ??= (async () => {
      this.#state = "shutting-down";
      for (const task of [...this.#live.values()]) {
        task.endEarly("shutdown", "the gateway is shutting down");
      }
      this.#kept.clear();
      await this.#disposals.drained();
      await this.cluster?.close();
    })();
  }

  #assertOpen(): void {
    if (this.#state !== "open") {
      throw shuttingDown();
    }
  }

  /** Refuse a new task beyond the caps on live tasks. */
  #admit(principal: string | undefined): void {
    const { maxLiveTasks, maxLiveTasksPerPrincipal } = this.#options;
    if (this.#live.size >= maxLiveTasks) {
      throw tooMany(
        `Too many tasks: the gateway runs ${this.#live.size} tasks (the limit is ${maxLiveTasks}); try again later`,
        "TOO_MANY_TASKS",
      );
    }
    const own = this.#livePerPrincipal.get(principal) ?? 0;
    if (own >= maxLiveTasksPerPrincipal) {
      throw tooMany(
        `Too many tasks: ${
          principal === undefined ? "unauthenticated callers run" : `principal "${principal}" runs`
        } ${own} tasks (the limit is ${maxLiveTasksPerPrincipal} per principal); wait for one to end`,
        "TOO_MANY_TASKS_PER_PRINCIPAL",
      );
    }
  }

  #count(principal: string | undefined, delta: number): void {
    const next = (this.#livePerPrincipal.get(principal) ?? 0) + delta;
    if (next === 0) this.#livePerPrincipal.delete(principal);
    else this.#livePerPrincipal.set(principal, next);
  }

  #resolveProvider(tenant: string | undefined): string {
    const { subagents } = this.#options;
    const none = (problem: string) =>
      invalidParams(problem, { metadata: { seamCode: "NO_PROVIDER" } });
    const registered = () => `(registered: ${subagents.list().join(", ") || "none"})`;
    if (tenant) {
      if (!subagents.getProvider(tenant)) {
        throw none(`no provider named "${tenant.slice(0, 64)}" ${registered()}`);
      }
      return tenant;
    }
    const name = this.#options.defaultProvider ?? subagents.list()[0];
    if (name === undefined) throw none("no provider is registered");
    if (!subagents.getProvider(name)) {
      throw none(`the default provider "${name}" is not registered ${registered()}`);
    }
    return name;
  }

  /** The run ended: keep it for a follow-up in its context, or dispose its chain. */
  #settled(task: LiveTask, result: SubagentResult | undefined): void {
    const run = task.run;
    if (result && run.resume && this.#kept.enabled && this.#state === "open") {
      this.#kept.keep({
        owner: task.record.owner,
        provider: task.record.provider,
        contextId: task.record.task.contextId,
        taskId: task.record.task.id,
        run: run as typeof run & { resume: NonNullable<typeof run.resume> },
        parent: task.parent,
        chain: task.chain,
      });
      this.cluster?.kept(task.record);
    } else {
      this.#disposals.disposeChain(task.chain);
    }
  }

  #forget(task: LiveTask): void {
    this.cluster?.untrack(task.record.task.id);
    if (this.#live.get(task.record.task.id) === task) {
      this.#live.delete(task.record.task.id);
      this.#count(task.record.owner, -1);
    }
  }

  /** Store a record: journaled on a shared storage, else written (_store_writer.ts). */
  #persist(record: TaskRecord): Promise<void> | undefined {
    if (this.cluster) return this.cluster.persist(record.task.id);
    return this.#writer.put(record);
  }
}
