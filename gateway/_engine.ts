/**
 * The task engine: one run per task, its state machine, its subscribers, its
 * disposal on every path, and the bounded set of finished runs kept for a
 * follow-up message in the same context.
 */
import {
  type AgentRef,
  type ContentBlock,
  InactiveScopeError,
  JsonCopyError,
  type Logger,
  type Scope,
} from "@seam/host";
import {
  delegationContextKey,
  OutputSchemaError,
  type SubagentAgentOptions,
  SubagentDepthError,
  SubagentError,
  type SubagentResult,
  type SubagentRun,
  type SubagentService,
  type SubagentStopReason,
} from "@seam/subagent";
import { acceptsOutput, blocksToParts, partsToBlocks } from "./_convert.ts";
import { GatewayError } from "./_errors.ts";
import {
  type AcceptedExtension,
  hasStartFields,
  readExtension,
  withoutMaxDepth,
} from "./_extension.ts";
import type { ListParams, SendParams } from "./_validate.ts";
import { isTerminalState, type StoredTask, type TaskStore } from "./task_store.ts";
import {
  type A2AArtifact,
  type A2AMessage,
  type A2AMetadata,
  type A2ATask,
  type A2ATaskState,
  SEAM_EXTENSION_URI,
} from "./types.ts";

/** What a parent factory learns about the task it makes a parent for. */
export interface ParentContext {
  readonly taskId: string;
  readonly contextId: string;
  readonly provider: string;
  readonly principal: string | undefined;
  readonly depth: number;
  readonly scope: Scope;
}

/** Makes the delegating parent of one task. */
export type ParentFactory = (context: ParentContext) => AgentRef | Promise<AgentRef>;

/** Hears streamed text in a parent's scope, tagged with the run it belongs to; returns how to stop. */
export type ProgressSource = (
  parent: AgentRef,
  emit: (runId: string, text: string) => void,
) => (() => void) | void;

/** A stream frame (`StreamResponse` JSON) and whether it is the last. */
export type Subscriber = (event: Record<string, unknown>, final: boolean) => void;

/** Runs and scopes that live and die together (a run and the runs resumed from it). */
interface Chain {
  readonly runs: SubagentRun[];
  readonly scopes: Scope[];
  /** The depth cap the first run started under (resumed runs keep it), if any. */
  readonly maxDepth: number | undefined;
}

/** A task as stored: mutable here, a {@linkcode StoredTask} to the store. */
interface TaskRecord extends StoredTask {
  task: A2ATask;
  updatedAt: number;
}

/** A task whose run has not ended yet. */
export interface LiveTask {
  readonly record: TaskRecord;
  readonly run: SubagentRun;
  readonly parent: AgentRef;
  readonly chain: Chain;
  readonly subscribers: Set<Subscriber>;
  readonly done: Promise<void>;
  resolveDone: () => void;
  streamed: string[] | undefined;
  terminal: boolean;
  cancelRequested: boolean;
  stopProgress: (() => void) | undefined;
  cancelTimer: ReturnType<typeof setTimeout> | undefined;
}

/** A finished run kept for a follow-up in its context. */
interface Resumable {
  readonly owner: string | undefined;
  readonly provider: string;
  readonly taskId: string;
  readonly run: SubagentRun & { resume: NonNullable<SubagentRun["resume"]> };
  readonly parent: AgentRef;
  readonly chain: Chain;
}

/** The engine's configuration. */
export interface EngineOptions {
  readonly subagents: SubagentService;
  readonly store: TaskStore;
  readonly logger: Logger;
  /** Owns task scopes when the parent is not a static agent. */
  readonly scope: Scope;
  readonly parent: AgentRef | ParentFactory | undefined;
  readonly parentId: string;
  readonly progress: ProgressSource | undefined;
  readonly agentOptions: SubagentAgentOptions | undefined;
  readonly defaultProvider: string | undefined;
  readonly maxResumableRuns: number;
  readonly cancelTimeoutMs: number;
}

/** The result of sending a message. */
export interface Sent {
  readonly live: LiveTask;
  /** Whether the message carried the seam extension. */
  readonly extension: boolean;
}

const OUTPUT_ARTIFACT = "output";

const STATE_OF: Record<SubagentStopReason, A2ATaskState> = {
  completed: "TASK_STATE_COMPLETED",
  aborted: "TASK_STATE_CANCELED",
  error: "TASK_STATE_FAILED",
  "max-tokens": "TASK_STATE_FAILED",
  refusal: "TASK_STATE_REJECTED",
};

const EXPLAIN: Record<SubagentStopReason, string> = {
  completed: "Completed.",
  aborted: "Canceled: the run was cancelled before it finished.",
  error: "Failed: the child agent ended with an error.",
  "max-tokens":
    "Failed: the child stopped at the token limit (stopReason max-tokens); its partial output is in the artifact.",
  refusal: "Rejected: the child agent refused the task.",
};

let isoAt = -1;
let isoText = "";

/** `new Date(now).toISOString()`, computed once per millisecond. */
function isoNow(now: number): string {
  if (now !== isoAt) {
    isoAt = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

/** The agent's message about a task's state (its explanation of how it ended). */
function agentMessage(task: A2ATask, parts: A2AMessage["parts"]): A2AMessage {
  return {
    messageId: `${task.id}/status`,
    role: "ROLE_AGENT",
    parts,
    taskId: task.id,
    contextId: task.contextId,
  };
}

function seamMeta(task: A2ATask): Record<string, unknown> {
  return (task.metadata as Record<string, Record<string, unknown>>)[SEAM_EXTENSION_URI];
}

/** Map an error thrown while starting a run to the A2A error to answer with. */
export function startError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof SubagentError) {
    if (error.code === "UNSUPPORTED_CAPABILITY") {
      return new GatewayError("unsupportedOperation", error.message, {
        metadata: { seamCode: "UNSUPPORTED_CAPABILITY" },
      });
    }
    return new GatewayError("invalidParams", error.message, { metadata: { seamCode: error.code } });
  }
  if (error instanceof SubagentDepthError) {
    return new GatewayError("invalidParams", error.message, {
      metadata: {
        seamCode: error.code,
        depth: String(error.depth),
        maxDepth: String(error.maxDepth),
      },
    });
  }
  if (error instanceof InactiveScopeError) {
    return new GatewayError("internal", "The gateway is shutting down", { httpStatus: 503 });
  }
  if (
    error instanceof OutputSchemaError || error instanceof JsonCopyError ||
    ((error instanceof TypeError || error instanceof RangeError) &&
      !error.message.startsWith("Subagent provider"))
  ) {
    return new GatewayError("invalidParams", error.message);
  }
  return new GatewayError("internal", "Internal error: the run could not start", {
    metadata: { cause: error instanceof Error ? error.message.slice(0, 200) : String(error) },
  });
}

/** The task engine behind both bindings. */
export interface Engine {
  /** Start a task, continue a context, or steer a live task; calls `onLive` synchronously. */
  send(
    params: SendParams,
    principal: string | undefined,
    onLive?: (live: LiveTask) => void,
  ): Promise<Sent>;
  /** The task `id` as `principal` may see it (through `tenant`), live or stored. */
  find(
    id: string,
    principal: string | undefined,
    tenant: string | undefined,
  ): Promise<{ record: StoredTask; live: LiveTask | undefined }>;
  /** Cancel a live task and answer its state once the run ended (or the cancel timed out). */
  cancel(id: string, principal: string | undefined, tenant: string | undefined): Promise<A2ATask>;
  /** A page of tasks. */
  list(params: ListParams, principal: string | undefined): Promise<Record<string, unknown>>;
  /** The wire form of a task, its history cut to `historyLength`. */
  snapshot(record: StoredTask, historyLength?: number, includeArtifacts?: boolean): A2ATask;
  /** How many tasks are live. */
  readonly liveCount: number;
  /** Cancel every live task, dispose every run, stop accepting work. Memoized. */
  shutdown(): Promise<void>;
}

/** Make the engine. */
export function createEngine(options: EngineOptions): Engine {
  const subagents: SubagentService = options.subagents;
  const { store, logger } = options;
  const live = new Map<string, LiveTask>();
  const resumables = new Map<string, Resumable>();
  let shuttingDown: Promise<void> | undefined;
  // Disposals under way, counted rather than kept in a set: one per task, so
  // the count is all shutdown needs (a set churned a table per request).
  let disposing = 0;
  let drained: (() => void) | undefined;
  const settled = (): void => {
    if (--disposing === 0) drained?.();
  };

  const track = (promise: Promise<unknown>, what: string): void => {
    disposing++;
    promise.then(settled, (error) => {
      try {
        logger.error(`${what} failed`, error);
      } finally {
        settled();
      }
    });
  };

  const persist = (record: TaskRecord): Promise<void> | undefined => {
    try {
      const done = store.put(record);
      if (done && typeof (done as Promise<void>).then === "function") {
        return (done as Promise<void>).catch((error) =>
          logger.error(`Storing task "${record.task.id}" failed`, error)
        );
      }
    } catch (error) {
      logger.error(`Storing task "${record.task.id}" failed`, error);
    }
    return undefined;
  };

  const disposeChain = (chain: Chain): void => {
    if (chain.runs.length === 1 && chain.scopes.length <= 1) {
      const [run] = chain.runs;
      const [scope] = chain.scopes;
      let done = run.dispose();
      if (scope) {
        done = done.then(() => scope.dispose(), (error) => {
          logger.error(`Disposing run "${run.id}" failed`, error);
          return scope.dispose();
        });
      }
      track(done, "Disposing a task's run");
      return;
    }
    track(
      (async () => {
        for (let i = chain.runs.length - 1; i >= 0; i--) {
          try {
            await chain.runs[i].dispose();
          } catch (error) {
            logger.error(`Disposing run "${chain.runs[i].id}" failed`, error);
          }
        }
        for (const scope of chain.scopes) await scope.dispose();
      })(),
      "Disposing a task's runs",
    );
  };

  const keepResumable = (entry: Resumable, contextId: string): void => {
    const previous = resumables.get(contextId);
    if (previous) {
      resumables.delete(contextId);
      disposeChain(previous.chain);
    }
    resumables.set(contextId, entry);
    while (resumables.size > options.maxResumableRuns) {
      const [oldest, value] = resumables.entries().next().value as [string, Resumable];
      resumables.delete(oldest);
      disposeChain(value.chain);
    }
  };

  /** Deliver the event `make` builds (only built when someone listens). */
  const broadcast = (
    task: LiveTask,
    make: () => Record<string, unknown>,
    final: boolean,
  ): void => {
    if (task.subscribers.size === 0) return;
    const event = make();
    for (const subscriber of task.subscribers) {
      try {
        subscriber(event, final);
      } catch (error) {
        logger.error("A task subscriber threw", error);
      }
    }
    if (final) task.subscribers.clear();
  };

  const setState = (task: LiveTask, state: A2ATaskState, message?: A2AMessage): void => {
    const record = task.record;
    const now = Date.now();
    const status: A2ATask["status"] = { state, timestamp: isoNow(now) };
    if (message) status.message = message;
    record.task.status = status;
    record.updatedAt = now;
    const final = isTerminalState(state);
    const stored = persist(record);
    if (final) {
      task.terminal = true;
      if (byRunId.get(task.run.id) === task) byRunId.delete(task.run.id);
      if (task.cancelTimer !== undefined) clearTimeout(task.cancelTimer);
      if (task.stopProgress) {
        try {
          task.stopProgress();
        } catch (error) {
          logger.error("Stopping a progress source failed", error);
        }
        task.stopProgress = undefined;
      }
    }
    broadcast(task, () => ({
      statusUpdate: {
        taskId: record.task.id,
        contextId: record.task.contextId,
        status,
        metadata: record.task.metadata,
      },
    }), final);
    if (final) {
      const finish = () => {
        live.delete(record.task.id);
        task.resolveDone();
      };
      if (stored) stored.then(finish);
      else finish();
    }
  };

  const emitText = (task: LiveTask, text: string): void => {
    if (task.terminal || typeof text !== "string" || text === "") return;
    const first = task.streamed === undefined;
    (task.streamed ??= []).push(text);
    broadcast(task, () => ({
      artifactUpdate: {
        taskId: task.record.task.id,
        contextId: task.record.task.contextId,
        artifact: { artifactId: OUTPUT_ARTIFACT, name: OUTPUT_ARTIFACT, parts: [{ text }] },
        append: !first,
        lastChunk: false,
      },
    }), false);
  };

  /** End the task once its run settled; the chain is disposed or kept for a follow-up. */
  const end = (task: LiveTask, result: SubagentResult | undefined, error?: unknown): void => {
    if (task.terminal) return;
    const t = task.record.task;
    const meta = seamMeta(t);
    let state: A2ATaskState;
    let parts: A2AMessage["parts"] = [];
    let explanation: string | undefined;
    if (result) {
      meta.stopReason = result.stopReason;
      state = STATE_OF[result.stopReason];
      parts = blocksToParts(result.output, result.structured);
      if (result.stopReason !== "completed") explanation = EXPLAIN[result.stopReason];
      if (task.cancelRequested && result.stopReason === "aborted") {
        explanation = "Canceled by the client.";
      }
    } else {
      const message = error instanceof Error ? error.message : String(error);
      meta.error = message;
      state = "TASK_STATE_FAILED";
      explanation = `Failed: the run broke down (${message})`;
    }
    if (parts.length > 0) {
      const artifact: A2AArtifact = { artifactId: OUTPUT_ARTIFACT, name: OUTPUT_ARTIFACT, parts };
      t.artifacts = [artifact];
      task.streamed = undefined;
      broadcast(task, () => ({
        artifactUpdate: {
          taskId: t.id,
          contextId: t.contextId,
          artifact,
          append: false,
          lastChunk: true,
        },
      }), false);
    } else if (task.streamed) {
      t.artifacts = [streamedArtifact(task.streamed)];
      task.streamed = undefined;
    }
    setState(
      task,
      state,
      explanation === undefined ? undefined : agentMessage(t, [{ text: explanation }]),
    );
    const run = task.run;
    if (
      result && run.resume && options.maxResumableRuns > 0 && shuttingDown === undefined
    ) {
      keepResumable({
        owner: task.record.owner,
        provider: task.record.provider,
        taskId: t.id,
        run: run as Resumable["run"],
        parent: task.parent,
        chain: task.chain,
      }, t.contextId);
    } else {
      disposeChain(task.chain);
    }
  };

  const observe = (task: LiveTask): void => {
    const { run } = task;
    let ready = false;
    const startedSettled = run.started.then(() => {
      ready = true;
      if (!task.terminal && task.record.task.status.state === "TASK_STATE_SUBMITTED") {
        setState(task, "TASK_STATE_WORKING");
      }
    }, () => {
      ready = true;
    });
    // A result may settle before readiness reaches us: end only once
    // readiness settled, so WORKING always precedes the terminal state.
    const ending = (result: SubagentResult | undefined, error?: unknown) => {
      try {
        end(task, result, error);
      } catch (failure) {
        logger.error("Ending a task failed", failure);
      }
    };
    run.result.then(
      (result) => ready ? ending(result) : startedSettled.then(() => ending(result)),
      (error) =>
        ready ? ending(undefined, error) : startedSettled.then(() => ending(undefined, error)),
    );
  };

  const resolveProvider = (tenant: string | undefined): string => {
    if (tenant) {
      if (!subagents.getProvider(tenant)) {
        throw new GatewayError(
          "invalidParams",
          `Invalid params: no provider named "${tenant.slice(0, 64)}" (registered: ${
            subagents.list().join(", ") || "none"
          })`,
          { metadata: { seamCode: "NO_PROVIDER" } },
        );
      }
      return tenant;
    }
    const name = options.defaultProvider ?? subagents.list()[0];
    if (name === undefined) {
      throw new GatewayError("invalidParams", "Invalid params: no provider is registered", {
        metadata: { seamCode: "NO_PROVIDER" },
      });
    }
    if (!subagents.getProvider(name)) {
      throw new GatewayError(
        "invalidParams",
        `Invalid params: the default provider "${name}" is not registered (registered: ${
          subagents.list().join(", ") || "none"
        })`,
        { metadata: { seamCode: "NO_PROVIDER" } },
      );
    }
    return name;
  };

  // Streamed text is routed by run id to its task: a grandchild's text (its
  // own run id) reaches no task. One listener serves every task whose parent
  // scope sits under the shared scope; a parent elsewhere (from a factory)
  // gets its own listener for the task's life.
  const byRunId = new Map<string, LiveTask>();
  const route = (runId: string, text: string): void => {
    const task = byRunId.get(runId);
    if (task) emitText(task, text);
  };
  const staticParent = typeof options.parent === "function" ? undefined : options.parent;
  const sharedScope: Scope = staticParent?.scope ?? options.scope;
  const sharedParent: AgentRef = staticParent ?? { id: options.parentId, scope: sharedScope };
  const attach = (parent: AgentRef): (() => void) | undefined => {
    if (!options.progress) return undefined;
    try {
      const stop = options.progress(parent, route);
      return typeof stop === "function" ? stop : undefined;
    } catch (error) {
      logger.error("A progress source failed to attach", error);
      return undefined;
    }
  };
  const stopShared = attach(sharedParent);
  const underShared = (scope: Scope): boolean => {
    for (let s: Scope | undefined = scope; s; s = s.parent) if (s === sharedScope) return true;
    return false;
  };
  /** Listen in `parent`'s scope for this task, unless the shared listener hears it already. */
  const listenFor = (parent: AgentRef): (() => void) | undefined =>
    options.progress && !underShared(parent.scope) ? attach(parent) : undefined;

  const makeLive = (
    record: TaskRecord,
    run: SubagentRun,
    parent: AgentRef,
    chain: Chain,
  ): LiveTask => {
    let resolveDone!: () => void;
    const done = new Promise<void>((resolve) => resolveDone = resolve);
    return {
      record,
      run,
      parent,
      chain,
      subscribers: new Set(),
      done,
      resolveDone,
      streamed: undefined,
      terminal: false,
      cancelRequested: false,
      stopProgress: undefined,
      cancelTimer: undefined,
    };
  };

  const userMessage = (params: SendParams, taskId: string, contextId: string): A2AMessage => {
    const m = params.message;
    const message: A2AMessage = {
      messageId: m.messageId,
      role: "ROLE_USER",
      parts: m.parts,
      taskId,
      contextId,
    };
    if (m.metadata) message.metadata = m.metadata as A2AMetadata;
    if (m.extensions?.length) message.extensions = m.extensions;
    if (m.referenceTaskIds?.length) message.referenceTaskIds = m.referenceTaskIds;
    return message;
  };

  const assertOpen = (): void => {
    if (shuttingDown) {
      throw new GatewayError("internal", "The gateway is shutting down", { httpStatus: 503 });
    }
  };

  const find: Engine["find"] = async (id, principal, tenant) => {
    const running = live.get(id);
    let record: StoredTask | undefined = running?.record;
    if (!record) {
      try {
        record = await store.get(id);
      } catch (error) {
        logger.error(`Reading task "${id}" from the store failed`, error);
        throw new GatewayError("internal", "Internal error: the task store failed");
      }
    }
    if (
      !record || record.owner !== principal || (tenant && tenant !== record.provider)
    ) {
      throw new GatewayError("taskNotFound", `Task not found: "${id.slice(0, 100)}"`, {
        metadata: { taskId: id.slice(0, 100) },
      });
    }
    return { record, live: running && !running.terminal ? running : undefined };
  };

  /** A follow-up on a live task: steer its run. */
  const steer = async (
    params: SendParams,
    principal: string | undefined,
    ext: AcceptedExtension,
    onLive: ((live: LiveTask) => void) | undefined,
  ): Promise<Sent> => {
    const taskId = params.message.taskId!;
    const found = await find(taskId, principal, params.tenant);
    const t = found.record.task;
    if (params.message.contextId !== undefined && params.message.contextId !== t.contextId) {
      throw new GatewayError(
        "invalidParams",
        `Invalid params: message.contextId "${
          params.message.contextId.slice(0, 100)
        }" does not match task "${t.id}" (its contextId is "${t.contextId}")`,
      );
    }
    const task = found.live;
    if (!task) {
      throw new GatewayError(
        "unsupportedOperation",
        `Unsupported operation: task "${t.id}" is ${
          t.status.state.slice(11).toLowerCase()
        } and accepts no more messages; to continue its conversation, send a new message with contextId "${t.contextId}" and no taskId`,
      );
    }
    if (hasStartFields(ext)) {
      throw new GatewayError(
        "invalidParams",
        "Invalid params: the seam extension's start-time fields (outputSchema, maxDepth, toolFilter, persona) apply only to a message that starts a task",
      );
    }
    const send = task.run.sendMessage;
    if (!send) {
      throw new GatewayError(
        "unsupportedOperation",
        `Unsupported operation: task "${t.id}" is still running and provider "${task.record.provider}" cannot steer a running child (its runs have no sendMessage); wait for it or cancel it`,
      );
    }
    const blocks = partsToBlocks(params.message.parts);
    onLive?.(task);
    try {
      await send(blocks);
      (t.history ??= []).push(userMessage(params, t.id, t.contextId));
      // The run may have ended while the message was on its way: the store
      // then holds the final state already, so it must hear of the message.
      if (task.terminal) persist(task.record);
    } catch (error) {
      throw new GatewayError(
        "unsupportedOperation",
        `Unsupported operation: the running child did not take the message (${
          error instanceof Error ? error.message : String(error)
        })`,
      );
    }
    return { live: task, extension: ext.used };
  };

  /**
   * A `maxDepth` on a message that continues a kept run: the run keeps the cap
   * it started under, so the one asked for must be that cap or a looser one
   * (then the kept cap already holds it); a tighter cap, or one on a run that
   * started uncapped, could not hold and is refused.
   */
  const checkContinuationCap = (
    ext: AcceptedExtension,
    kept: number | undefined,
    contextId: string,
  ): void => {
    try {
      subagents.assertSubagentMaxDepth(ext.maxDepth, "maxDepth");
    } catch (error) {
      throw startError(error);
    }
    const asked = ext.maxDepth as number;
    if (kept === undefined || kept > asked) {
      throw new GatewayError(
        "invalidParams",
        `Invalid params: context "${contextId}" continues a finished run that started ${
          kept === undefined ? "with no depth cap" : `with maxDepth ${kept}`
        }; a continuation keeps that cap, so its maxDepth (${asked}) may repeat it or be looser, never tighter (use a new contextId to start under a tighter cap)`,
      );
    }
    if (ext.depth + 1 > asked) throw startError(new SubagentDepthError(ext.depth + 1, asked));
  };

  /** Start a task's run with the seam extension's start-time fields. */
  const startRun = (
    provider: string,
    prompt: ContentBlock[],
    ext: AcceptedExtension,
    parent: AgentRef,
    maxDepth: unknown,
  ): SubagentRun =>
    subagents.start(provider, {
      prompt,
      parent,
      agentOptions: options.agentOptions,
      outputSchema: ext.outputSchema as never,
      maxDepth: maxDepth as never,
      toolFilter: ext.toolFilter as never,
      persona: ext.persona as never,
    });

  const send: Engine["send"] = async (params, principal, onLive) => {
    assertOpen();
    const ext = readExtension(
      params.message.metadata as A2AMetadata | undefined,
      params.metadata as A2AMetadata | undefined,
    );
    if (params.configuration?.taskPushNotificationConfig !== undefined) {
      throw new GatewayError(
        "pushNotSupported",
        "Push notifications are not supported by this gateway (capabilities.pushNotifications is false); stream or poll instead",
      );
    }
    if (!acceptsOutput(params.configuration?.acceptedOutputModes)) {
      throw new GatewayError(
        "contentType",
        `Content type not supported: configuration.acceptedOutputModes (${
          params.configuration!.acceptedOutputModes!.join(", ").slice(0, 200)
        }) admits none of what this gateway answers with (text/plain, application/json)`,
      );
    }
    if (params.message.taskId !== undefined) return steer(params, principal, ext, onLive);

    const provider = resolveProvider(params.tenant);
    const registered = subagents.getProvider(provider)!;
    const blocks: ContentBlock[] = partsToBlocks(params.message.parts);
    const taskId = crypto.randomUUID();
    const contextId = params.message.contextId ?? crypto.randomUUID();

    let run: SubagentRun;
    let parent: AgentRef;
    let chain: Chain;
    let resumedFrom: string | undefined;
    let stopProgress: (() => void) | undefined;
    const previous = params.message.contextId === undefined
      ? undefined
      : resumables.get(params.message.contextId);
    if (previous && previous.owner === principal && previous.provider === provider) {
      if (hasStartFields(withoutMaxDepth(ext))) {
        throw new GatewayError(
          "invalidParams",
          `Invalid params: context "${contextId}" continues a finished run with its original settings; the seam extension's start-time fields (outputSchema, toolFilter, persona) cannot change them (omit them, or use a new contextId)`,
        );
      }
      if (ext.maxDepth !== undefined) {
        checkContinuationCap(ext, previous.chain.maxDepth, contextId);
      }
      resumables.delete(contextId);
      stopProgress = listenFor(previous.parent);
      try {
        run = previous.run.resume(blocks);
      } catch (error) {
        stopProgress?.();
        resumables.set(contextId, previous);
        throw startError(error);
      }
      parent = previous.parent;
      chain = previous.chain;
      chain.runs.push(run);
      resumedFrom = previous.taskId;
    } else {
      if (ext.maxDepth !== undefined && registered.capabilities.depthLimit) {
        try {
          subagents.assertSubagentMaxDepth(ext.maxDepth, "maxDepth");
        } catch (error) {
          throw startError(error);
        }
        if (ext.depth + 1 > (ext.maxDepth as number)) {
          throw startError(new SubagentDepthError(ext.depth + 1, ext.maxDepth as number));
        }
      }
      // A task gets a scope of its own when there is something to put in
      // it: the caller's place in a delegation chain, or a factory's parent.
      const factory = typeof options.parent === "function" ? options.parent : undefined;
      const cap = typeof ext.maxDepth === "number" ? ext.maxDepth : undefined;
      if (!factory && ext.depth === 0 && cap === undefined) {
        parent = sharedParent;
        try {
          run = startRun(provider, blocks, ext, parent, undefined);
        } catch (error) {
          throw startError(error);
        }
        chain = { runs: [run], scopes: [], maxDepth: undefined };
      } else {
        let scope: Scope;
        try {
          scope = sharedScope.child("a2a-task");
        } catch (error) {
          throw startError(error);
        }
        try {
          // Where the remote caller sits in its delegation chain, for the providers below.
          scope.provide(delegationContextKey, Object.freeze({ depth: ext.depth, maxDepth: cap }));
          if (factory) {
            parent = await factory({
              taskId,
              contextId,
              provider,
              principal,
              depth: ext.depth,
              scope,
            });
            assertOpen();
          } else {
            parent = { id: sharedParent.id, scope };
          }
          stopProgress = listenFor(parent);
          run = startRun(provider, blocks, ext, parent, ext.maxDepth);
        } catch (error) {
          stopProgress?.();
          track(scope.dispose(), "Disposing a task scope");
          throw startError(error);
        }
        chain = { runs: [run], scopes: [scope], maxDepth: cap };
      }
    }

    const now = Date.now();
    const meta: Record<string, unknown> = { provider, runId: run.id };
    if (resumedFrom) meta.resumedFrom = resumedFrom;
    const task: A2ATask = {
      id: taskId,
      contextId,
      status: { state: "TASK_STATE_SUBMITTED", timestamp: isoNow(now) },
      history: [userMessage(params, taskId, contextId)],
      metadata: { [SEAM_EXTENSION_URI]: meta } as A2AMetadata,
    };
    const record: TaskRecord = { task, owner: principal, provider, updatedAt: now };
    const entry = makeLive(record, run, parent, chain);
    live.set(taskId, entry);
    byRunId.set(run.id, entry);
    entry.stopProgress = stopProgress;
    persist(record);
    observe(entry);
    onLive?.(entry);
    return { live: entry, extension: ext.used };
  };

  const forceEnd = (task: LiveTask, why: string): void => {
    if (task.terminal) return;
    seamMeta(task.record.task).stopReason = "aborted";
    if (task.streamed) {
      task.record.task.artifacts = [streamedArtifact(task.streamed)];
      task.streamed = undefined;
    }
    setState(task, "TASK_STATE_CANCELED", agentMessage(task.record.task, [{ text: why }]));
    disposeChain(task.chain);
  };

  const cancel: Engine["cancel"] = async (id, principal, tenant) => {
    const found = await find(id, principal, tenant);
    const task = found.live;
    if (!task) {
      throw new GatewayError(
        "taskNotCancelable",
        `Task not cancelable: task "${found.record.task.id}" is already ${
          found.record.task.status.state.slice(11).toLowerCase()
        }`,
        { metadata: { taskId: found.record.task.id, state: found.record.task.status.state } },
      );
    }
    if (!task.cancelRequested) {
      task.cancelRequested = true;
      try {
        task.run.cancel("cancelled by the A2A client (CancelTask)");
      } catch (error) {
        logger.error(`Cancelling run "${task.run.id}" failed`, error);
      }
      if (!task.terminal) {
        task.cancelTimer = setTimeout(() => {
          task.cancelTimer = undefined;
          forceEnd(
            task,
            `Canceled by the client; the child did not confirm within ${options.cancelTimeoutMs} ms and was torn down.`,
          );
        }, options.cancelTimeoutMs);
      }
    }
    await task.done;
    return snapshot(task.record);
  };

  const snapshot: Engine["snapshot"] = (record, historyLength, includeArtifacts = true) => {
    const t = record.task;
    // The task as kept is already its wire form when nothing is cut or added
    // (it is serialized at once, never mutated by the caller).
    if (
      includeArtifacts &&
      (historyLength === undefined || historyLength >= (t.history?.length ?? 0)) &&
      !live.get(t.id)?.streamed
    ) return t;
    const out: A2ATask = { id: t.id, contextId: t.contextId, status: t.status };
    if (includeArtifacts) {
      const running = live.get(t.id);
      if (running?.streamed) out.artifacts = [streamedArtifact(running.streamed)];
      else if (t.artifacts?.length) out.artifacts = t.artifacts;
    }
    const history = t.history;
    if (history?.length && historyLength !== 0) {
      out.history = historyLength === undefined || historyLength >= history.length
        ? history
        : history.slice(history.length - historyLength);
    }
    if (t.metadata) out.metadata = t.metadata;
    return out;
  };

  const list: Engine["list"] = async (params, principal) => {
    let after: { updatedAt: number; id: string } | undefined;
    if (params.pageToken) after = decodePageToken(params.pageToken);
    let page;
    try {
      page = await store.list({
        owner: principal,
        provider: params.tenant || undefined,
        contextId: params.contextId,
        state: params.state,
        updatedAfter: params.updatedAfter,
        after,
        limit: params.pageSize + 1,
      });
    } catch (error) {
      logger.error("Listing tasks from the store failed", error);
      throw new GatewayError("internal", "Internal error: the task store failed");
    }
    const more = page.tasks.length > params.pageSize;
    const records = more ? page.tasks.slice(0, params.pageSize) : page.tasks;
    const last = records[records.length - 1];
    return {
      tasks: records.map((r) => snapshot(r, params.historyLength, params.includeArtifacts)),
      nextPageToken: more && last ? encodePageToken(last.updatedAt, last.task.id) : "",
      pageSize: params.pageSize,
      totalSize: page.total,
    };
  };

  const shutdown = (): Promise<void> =>
    shuttingDown ??= (async () => {
      for (const task of [...live.values()]) {
        try {
          task.run.cancel("the gateway is shutting down");
        } catch (error) {
          logger.error(`Cancelling run "${task.run.id}" failed`, error);
        }
        forceEnd(task, "Canceled: the gateway shut down.");
      }
      for (const entry of resumables.values()) disposeChain(entry.chain);
      resumables.clear();
      try {
        stopShared?.();
      } catch (error) {
        logger.error("Stopping a progress source failed", error);
      }
      while (disposing > 0) await new Promise<void>((resolve) => drained = resolve);
      drained = undefined;
    })();

  return {
    send,
    find,
    cancel,
    list,
    snapshot,
    get liveCount() {
      return live.size;
    },
    shutdown,
  };
}

function streamedArtifact(chunks: readonly string[]): A2AArtifact {
  return { artifactId: OUTPUT_ARTIFACT, name: OUTPUT_ARTIFACT, parts: [{ text: chunks.join("") }] };
}

function encodePageToken(updatedAt: number, id: string): string {
  return btoa(`${updatedAt}:${id}`);
}

function decodePageToken(token: string): { updatedAt: number; id: string } {
  let text: string;
  try {
    text = atob(token);
  } catch {
    text = "";
  }
  const colon = text.indexOf(":");
  const updatedAt = Number(text.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(updatedAt)) {
    throw new GatewayError(
      "invalidParams",
      "Invalid params: pageToken is not a token this gateway issued (use nextPageToken from a previous page)",
    );
  }
  return { updatedAt, id: text.slice(colon + 1) };
}
