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
import { storeFailure } from "./_store_errors.ts";
import { type Found, LocalHome, type Sent, type TaskHome } from "./_home.ts";
import { assertFollows, nothingWaits, type SteerHost, waitingIn } from "./_steer.ts";
import { follow, storedWaiting } from "./_follow_up.ts";
import {
  assertStorableText,
  GatewayError,
  invalidParams,
  pushNotSupported,
  shuttingDown,
  tooMany,
} from "./_errors.ts";
import { type AcceptedExtension, readExtension } from "./_extension.ts";
import { sendTraceOf } from "../http/_trace.ts";
import { Disposals, KeptRuns } from "./_kept_runs.ts";
import { ShortLivedMap } from "./_short_lived_map.ts";
import { providerFor } from "./_start_error.ts";
import { LiveTask, type LiveTaskHooks, type LiveTaskLimits } from "./_live_task.ts";
import type { DescendantTrees, InspectorRecord, PreparedPush, PushService } from "../_features.ts";
import {
  type ProgressSource,
  type StartedRun,
  type StartPlan,
  TaskStarter,
} from "./_task_start.ts";
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
import type { StoredTask, TaskStore } from "../task_store.ts";
import type { A2AMetadata, A2ATask } from "../types.ts";
import { SEAM_EXTENSION_URI } from "../types.ts";
import type { AgentRef, Scope } from "@seam/host";
import type { SubagentAgentOptions } from "@seam/subagent";

export type { Found, Sent };

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
  /** How long a kept run waits for a follow-up before it is disposed, in ms. */
  readonly keptRunIdleMs: number;
  readonly maxLiveTasks: number;
  readonly maxLiveTasksPerPrincipal: number;
  readonly task: LiveTaskLimits;
  /** Push notifications, when configured. */
  readonly push?: PushService;
  /** The run inspector's memory, when it is on. */
  readonly inspector?: InspectorRecord;
  /** Each task's descendants, for its seam clients (absent from `@seam/gateway/lite`). */
  readonly tree?: DescendantTrees;
  /**
   * The home of this engine's tasks when it is not a {@linkcode LocalHome}
   * (one instance of many, for a shared store: `TaskStorage` with `shared`);
   * undefined for a local one.
   */
  readonly home?: (engine: Engine, options: EngineOptions) => TaskHome | undefined;
}

/** What {@linkcode Engine.accept} answers: the seam extension, and the push config prepared. */
export interface Accepted {
  readonly ext: AcceptedExtension;
  readonly push: PreparedPush | undefined;
}

/** The checks of {@linkcode Engine.accept} past the push config. */
function checked(
  params: SendParams,
  ext: AcceptedExtension,
  push: PreparedPush | undefined,
): Accepted {
  if (!acceptsOutput(params.configuration?.acceptedOutputModes)) {
    throw new GatewayError(
      "contentType",
      `Content type not supported: configuration.acceptedOutputModes (${
        params.configuration!.acceptedOutputModes!.join(", ").slice(0, 200)
      }) has neither text/plain nor application/json`,
    );
  }
  assertStorableText(params.message.contextId, "message.contextId");
  return { ext, push };
}

/** Where the engine is. */
type EngineState = "open" | "shutting-down";

/** The task engine behind both bindings (see the module doc). */
export class Engine {
  readonly #live = new ShortLivedMap<string, LiveTask>();
  readonly #livePerPrincipal = new Map<string | undefined, number>();
  readonly #disposals: Disposals;
  /** The runs kept for a follow-up in their context. */
  readonly kept: KeptRuns;
  readonly #starter: TaskStarter;
  /** The hooks of a task the client sees; a direct reply's hear none of the task's changes. */
  readonly #hooks: LiveTaskHooks;
  readonly #replyHooks: LiveTaskHooks;
  /** What a follow-up needs of the engine (_steer.ts). */
  readonly steerHost: SteerHost;
  #state: EngineState = "open";
  #shutdown: Promise<void> | undefined;
  readonly #options: EngineOptions;
  /** Where the tasks live: here alone, or among other instances (chosen once, here). */
  readonly home: TaskHome;

  constructor(options: EngineOptions) {
    this.#options = options;
    const home: TaskHome = this.home = options.home?.(this, options) ??
      new LocalHome(options.store, options.logger);
    this.steerHost = { home, push: options.push };
    this.#disposals = new Disposals(options.logger);
    this.kept = new KeptRuns(options, this.#disposals);
    this.#starter = new TaskStarter({
      subagents: options.subagents,
      logger: options.logger,
      scope: options.scope,
      parent: options.parent,
      parentId: options.parentId,
      progress: options.progress,
      agentOptions: options.agentOptions,
      kept: this.kept,
      disposals: this.#disposals,
      assertOpen: () => this.#assertOpen(),
      watch: options.inspector
        ? (scope, context, path) => options.inspector!.watch(scope, context, path)
        : undefined,
    });
    const ended = {
      logger: options.logger,
      settled: (task: LiveTask, result: SubagentResult | undefined) => this.#settled(task, result),
      stored: (task: LiveTask) => this.#forget(task),
    };
    this.#hooks = {
      ...ended,
      persist: (record) => home.persist(record),
      publish: home.publish,
      event: options.push
        ? (record, event, terminal) => options.push!.event(record, event, terminal)
        : undefined,
      changed: options.inspector ? (task) => options.inspector!.taskChanged(task) : undefined,
    };
    this.#replyHooks = { ...ended, persist: () => undefined };
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
  ): Promise<Sent> {
    // Each step awaited only when it is a promise: a fresh start is synchronous.
    const accepting = this.accept(params);
    const accepted = accepting instanceof Promise ? await accepting : accepting;
    const { ext, push } = accepted;
    const message = params.message;
    if (message.taskId !== undefined) {
      const found = await this.find(message.taskId, principal, params.tenant);
      assertFollows(found, params);
      return follow(this.steerHost, found, params, principal, accepted, onLive, false);
    }
    const contextId = message.contextId;
    // An answer naming only its context: to the task waiting there, wherever (_follow_up.ts).
    const reading = storedWaiting(this.home, params, principal);
    const stored = reading && await reading;
    const waiting = waitingIn(this.#live.values(), principal, params.tenant, contextId, stored);
    if (waiting) return follow(this.steerHost, waiting, params, principal, accepted, onLive, true);
    if (ext.answer !== undefined) throw nothingWaits(contextId);
    this.admit(principal);
    const admitted = this.home.admit?.();
    if (admitted) await admitted;
    const provider = this.providerOf(params.tenant);
    if (contextId !== undefined && !this.kept.get(principal, provider, contextId)) {
      // A follow-up whose run another instance keeps goes there.
      const going = this.home.continueElsewhere?.(params, principal, provider, ext.used);
      const elsewhere = going && await going;
      if (elsewhere) return elsewhere;
    }
    const sent = this.start(params, principal, provider, ext, push, onLive);
    return sent instanceof Promise ? await sent : sent;
  }

  /** Checks of every message, in order: open, extension, push config (a promise), output modes. */
  accept(params: SendParams): Accepted | Promise<Accepted> {
    this.#assertOpen();
    const ext = readExtension(
      params.message.metadata as A2AMetadata | undefined,
      params.metadata as A2AMetadata | undefined,
    );
    const pushConfig = params.configuration?.taskPushNotificationConfig;
    if (pushConfig === undefined || pushConfig === null) return checked(params, ext, undefined);
    if (!this.#options.push) throw pushNotSupported();
    return this.#options.push.prepare(pushConfig, params.message.taskId).then((push) =>
      checked(params, ext, push)
    );
  }

  /** Start a message's new task (or resume its context's): sync but for push or a factory. */
  start(
    params: SendParams,
    principal: string | undefined,
    provider: string,
    ext: AcceptedExtension,
    push: PreparedPush | undefined,
    onLive: ((live: LiveTask) => void) | undefined,
  ): Sent | Promise<Sent> {
    const message = params.message;
    // Flat copies (toLowerCase, ~0.03 µs): randomUUID answers a slice of a
    // batch, for which V8's JSON.stringify takes its slow path, and the stored
    // task names both twice (bench/README.md, gateway, session 6: −0.6 µs a SendMessage).
    const taskId = crypto.randomUUID().toLowerCase();
    const contextId = message.contextId ?? crypto.randomUUID().toLowerCase();
    // Counted from here: a factory may take a while, and others must see the slot taken.
    this.#count(principal, +1);
    const accepted = userMessage(params, taskId, contextId);
    const plan: StartPlan = {
      provider,
      prompt: partsToPrompt(message.parts),
      ext,
      principal,
      taskId,
      contextId,
      continuing: message.contextId !== undefined,
      message: accepted,
      trace: sendTraceOf(params),
    };
    let starting;
    if (!push) {
      try {
        starting = this.#starter.start(plan);
      } catch (error) {
        this.#count(principal, -1);
        throw error;
      }
      if (!(starting instanceof Promise)) return this.#made(plan, starting, onLive);
    }
    return this.#startLater(plan, push, starting, onLive);
  }

  /** {@linkcode start} past a push config to attach, or a parent factory to wait for. */
  async #startLater(
    plan: StartPlan,
    push: PreparedPush | undefined,
    starting: Promise<StartedRun> | undefined,
    onLive: ((live: LiveTask) => void) | undefined,
  ): Promise<Sent> {
    let started;
    let pushId: string | undefined;
    try {
      // Kept before the run starts, so the webhook hears every change.
      if (push) pushId = await this.#options.push!.attach(push, plan.taskId);
      started = await (starting ?? this.#starter.start(plan));
    } catch (error) {
      this.#count(plan.principal, -1);
      if (pushId !== undefined) this.#options.push!.detach(plan.taskId, pushId);
      throw error;
    }
    return this.#made(plan, started, onLive);
  }

  /** The task of a run just started: live here, stored (or journaled), announced. */
  #made(
    plan: StartPlan,
    started: StartedRun,
    onLive: ((live: LiveTask) => void) | undefined,
  ): Sent | Promise<Sent> {
    const { run } = started;
    const { provider, taskId, ext } = plan;
    const now = Date.now();
    const meta: Record<string, unknown> = { provider, runId: run.id };
    if (started.resumedFrom) meta.resumedFrom = started.resumedFrom;
    const task: A2ATask = {
      id: taskId,
      contextId: plan.contextId,
      status: { state: "TASK_STATE_SUBMITTED", timestamp: isoNow(now) },
      history: [plan.message],
      metadata: { [SEAM_EXTENSION_URI]: meta } as A2AMetadata,
    };
    const record: TaskRecord = { task, owner: plan.principal, provider, updatedAt: now };
    // What hears the task's changes is settled here, once: a direct reply's hear none.
    const hooks = started.chain.context.reply === "task" ? this.#hooks : this.#replyHooks;
    const live = new LiveTask(record, started, hooks, this.#options.task);
    started.chain.current = live;
    this.#live.set(taskId, live);
    // A task started with the seam extension tells its seam clients its run's descendants.
    live.stopProgress = this.#options.tree?.follow(live, started.stopProgress, ext.used) ??
      started.stopProgress;
    // The task itself, not a closure: one made in this call would hold its
    // whole context for as long as the route is reachable, which dragged
    // each task's objects into V8's old generation (bench/promoted.ts).
    started.route.task = live;
    if (live.reply === "task") {
      // A direct reply (a message) makes no task for anyone else to see.
      this.#options.inspector?.taskChanged(live, ext.budget);
      const stored = this.home.created(live, onLive, ext.used);
      if (stored) return stored;
    }
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
        record = await this.#options.store.get(id);
      } catch (error) {
        throw storeFailure(error, this.#options.logger, `Reading task "${id.slice(0, 100)}"`);
      }
    }
    if (!record || record.owner !== principal || (tenant && tenant !== record.provider)) {
      throw new GatewayError("taskNotFound", `Task not found: "${id.slice(0, 100)}"`, {
        metadata: { taskId: id.slice(0, 100) },
      });
    }
    return { record, live: running && running.phase !== "ended" ? running : undefined };
  }

  /**
   * Cancel a live task and answer its state once the run ended (or the cancel
   * timed out); with the seam extension in `metadata`, only the descendant it names.
   */
  async cancel(
    id: string,
    principal: string | undefined,
    tenant: string | undefined,
    metadata?: A2AMetadata,
  ): Promise<A2ATask> {
    const found = await this.find(id, principal, tenant);
    const seam = metadata?.[SEAM_EXTENSION_URI];
    if (seam !== undefined) return cancelDescendant(this, this.#options.tree, found, seam);
    // Another instance runs it: the cancel goes there.
    const there = found.live ? undefined : this.home.locate?.(found.record);
    return there ? there.cancel(principal) : this.cancelFound(found);
  }

  /** Cancel the run of `found` if it runs here; refused if it runs nowhere. */
  async cancelFound(found: Found): Promise<A2ATask> {
    const task = found.live;
    if (!task) {
      const t = found.record.task;
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
      page = await this.#options.store.list({
        owner: principal,
        provider: params.tenant || undefined,
        contextId: params.contextId,
        state: params.state,
        updatedAfter: params.updatedAfter,
        after,
        limit: params.pageSize + 1,
      });
    } catch (error) {
      throw storeFailure(error, this.#options.logger, "Listing tasks");
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
      this.kept.clear();
      await this.#disposals.drained();
      await this.home.close?.();
    })();
  }

  #assertOpen(): void {
    if (this.#state !== "open") {
      throw shuttingDown();
    }
  }

  /** Refuse a new task beyond the caps on live tasks (of all, and of `principal`). */
  admit(principal: string | undefined): void {
    const { maxLiveTasks, maxLiveTasksPerPrincipal } = this.#options;
    if (this.#live.size >= maxLiveTasks) {
      throw tooMany(
        `Too many tasks: ${this.#live.size} running (the limit is ${maxLiveTasks}); try again later`,
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

  /** The provider a task of `tenant` runs on: the one named, else the default (or the first). */
  providerOf(tenant: string | undefined): string {
    return providerFor(this.#options.subagents, this.#options.defaultProvider, tenant);
  }

  /** The run ended: keep it for a follow-up in its context, or dispose its chain. */
  #settled(task: LiveTask, result: SubagentResult | undefined): void {
    const run = task.run;
    // A cancelled, failed or refused run is not continued: only a completed one is kept.
    if (
      result?.stopReason === "completed" && run.resume && this.kept.enabled &&
      this.#state === "open"
    ) {
      this.kept.keep({
        owner: task.record.owner,
        provider: task.record.provider,
        contextId: task.record.task.contextId,
        taskId: task.record.task.id,
        run: run as typeof run & { resume: NonNullable<typeof run.resume> },
        parent: task.parent,
        chain: task.chain,
      });
      this.home.kept?.(task.record);
    } else {
      this.#disposals.disposeChain(task.chain);
    }
  }

  #forget(task: LiveTask): void {
    this.home.stored?.(task.record.task.id);
    if (this.#live.get(task.record.task.id) === task) {
      this.#live.delete(task.record.task.id);
      this.#count(task.record.owner, -1);
    }
  }
}

/** Cancel the descendant of `found` the seam extension names; answer the task as it is. */
function cancelDescendant(
  engine: Engine,
  tree: DescendantTrees | undefined,
  found: Found,
  seam: unknown,
): A2ATask {
  if (!tree) throw invalidParams("this gateway cancels no descendant (lite)");
  tree.cancel(found, seam);
  return engine.view(found.record);
}
