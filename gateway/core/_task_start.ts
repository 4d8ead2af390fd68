/**
 * The ways a task starts its run: a fresh run under a scope of the task's
 * own (with the default parent, the `parent` agent, or a factory's parent),
 * or the resumption of a kept run in the same context; one depth-cap check
 * for both.
 */
import {
  type AgentRef,
  type ContentInput,
  type Logger,
  type Scope,
  traceParentKey,
} from "@seam/host";
import {
  delegationContextKey,
  handleSubagentInput,
  startRunsUnder,
  type SubagentAgentOptions,
  SubagentDepthError,
  type SubagentRun,
  subagentRunPathKey,
  type SubagentService,
} from "@seam/subagent";
import { invalidParams } from "./_errors.ts";
import { type AcceptedExtension, hasStartFields, withoutMaxDepth } from "./_extension.ts";
import { type KeptRun, type KeptRuns, RunChain } from "./_kept_runs.ts";
import type { Disposals } from "./_kept_runs.ts";
import type { LiveTask } from "./_live_task.ts";
import { startError } from "./_start_error.ts";
import { gatewayTaskKey } from "../task_context.ts";
import type { GatewayParentFactory, GatewayTaskContext } from "../options.ts";
import type { A2AMessage } from "../types.ts";
import { freeze } from "./_builtins.ts";

/** Hears streamed text in a parent's scope, tagged with the run it belongs to; returns how to stop. */
export type ProgressSource = (
  parent: AgentRef,
  emit: (runId: string, text: string) => void,
) => (() => void) | void;

/** Where a task's streamed text goes: to `task`, for the run `runId` only. */
export class ProgressRoute {
  runId: string | undefined;
  /** The task, once it exists (set by the engine: a task, not a closure over it, per start). */
  task: { appendText(text: string): void } | undefined;
  /** The listener a progress source calls. */
  readonly emit = (runId: string, text: string): void => {
    if (runId === this.runId) this.task?.appendText(text);
  };
}

/** What one task asks to start. */
export interface StartPlan {
  readonly provider: string;
  readonly prompt: ContentInput;
  readonly ext: AcceptedExtension;
  readonly principal: string | undefined;
  readonly taskId: string;
  readonly contextId: string;
  /** Whether the message named its context (it may continue a kept run). */
  readonly continuing: boolean;
  /** The message as the task's history keeps it. */
  readonly message: A2AMessage;
  /** The request's server span context, when traced: the run hangs under it. */
  readonly trace?: unknown;
}

/** A run started for a task. */
export interface StartedRun {
  readonly run: SubagentRun;
  readonly parent: AgentRef;
  readonly chain: RunChain;
  /** The task whose run this one resumed. */
  readonly resumedFrom: string | undefined;
  /** Where its streamed text is routed (set its task once the task exists). */
  readonly route: ProgressRoute;
  readonly stopProgress: (() => void) | undefined;
}

/** What the starter needs from the gateway. */
export interface TaskStarterOptions {
  readonly subagents: SubagentService;
  readonly logger: Logger;
  /** Where task scopes live when the parent is not a static agent. */
  readonly scope: Scope;
  readonly parent: AgentRef | GatewayParentFactory | undefined;
  /** The parent id runs get when no `parent` is given. */
  readonly parentId: string;
  readonly progress: ProgressSource | undefined;
  readonly agentOptions: SubagentAgentOptions | undefined;
  readonly kept: KeptRuns;
  readonly disposals: Disposals;
  /** Throws once the gateway is shutting down. */
  readonly assertOpen: () => void;
  /** The run inspector's ear on a new task scope, when the inspector is on. */
  readonly watch?: (scope: Scope, context: TaskContextRecord, path: readonly string[]) => void;
}

/**
 * The run path each task scope provides, by its context: a continuation
 * from another caller's run replaces it in place (a scope provides a
 * service once), so requests raised after it carry the new caller's path.
 */
const runPaths = new WeakMap<TaskContextRecord, string[]>();

/**
 * Starts tasks' runs. Every fresh run gets a scope of the task's own: it
 * holds the caller's `DelegationContext` and the task's progress listener,
 * so streamed text is routed by the task (an identity the gateway owns), not
 * by a provider's run id alone, which providers may repeat.
 */
export class TaskStarter {
  readonly #options: TaskStarterOptions;
  readonly #factory: GatewayParentFactory | undefined;
  readonly #parentId: string;
  readonly #taskScopes: Scope;

  constructor(options: TaskStarterOptions) {
    this.#options = options;
    const parent = options.parent;
    this.#factory = typeof parent === "function" ? parent : undefined;
    const staticParent = typeof parent === "function" ? undefined : parent;
    this.#parentId = staticParent?.id ?? options.parentId;
    this.#taskScopes = staticParent?.scope ?? options.scope;
  }

  /** Start the run of a new task: resume the context's kept run, or start afresh. */
  start(plan: StartPlan): Promise<StartedRun> | StartedRun {
    const kept = plan.continuing
      ? this.#options.kept.take(plan.principal, plan.provider, plan.contextId)
      : undefined;
    return kept ? this.#resume(kept, plan) : this.#fresh(plan);
  }

  #resume(kept: KeptRun, plan: StartPlan): StartedRun {
    const { ext, contextId } = plan;
    let route: ProgressRoute | undefined;
    let stopProgress: (() => void) | undefined;
    let previous: LiveTask | undefined;
    try {
      // The caller's continuation repeats the run's budget (so a gateway that kept no run
      // starts the fresh one under it): the same budget is no change; any other is.
      const asked = sameBudget(ext.budget, kept.chain.budget) ? { ...ext, budget: undefined } : ext;
      if (hasStartFields(withoutMaxDepth(asked))) {
        throw invalidParams(
          `context "${contextId}" continues a finished run; start-time fields (outputSchema, toolFilter, persona, budget) cannot change them (omit them or use a new contextId)`,
        );
      }
      assertDepthCap(this.#options.subagents, ext, kept, contextId);
      route = new ProgressRoute();
      stopProgress = this.#listen(kept.parent, route);
      kept.chain.context.accept(plan.taskId, plan.message);
      previous = kept.chain.handOver();
      // The resumed run hangs under this request's server span, as a fresh one does
      // (not under the first request's, the kept task scope's trace parent).
      const run = plan.trace === undefined
        ? kept.run.resume(plan.prompt)
        : startRunsUnder(plan.trace, () => kept.run.resume(plan.prompt));
      // The continuing caller is another run: requests from now on carry its path.
      const runPath = runPaths.get(kept.chain.context);
      if (ext.path !== undefined && runPath) runPath.splice(0, runPath.length, ...ext.path);
      route.runId = run.id;
      kept.chain.runs.push(run);
      return {
        run,
        parent: kept.parent,
        chain: kept.chain,
        resumedFrom: kept.taskId,
        route,
        stopProgress,
      };
    } catch (error) {
      stopProgress?.();
      kept.chain.restore(previous);
      this.#options.kept.restore(kept);
      throw startError(error);
    }
  }

  /** A run started afresh: synchronously, unless a parent factory has to be awaited. */
  #fresh(plan: StartPlan): Promise<StartedRun> | StartedRun {
    const { subagents } = this.#options;
    const { ext, provider } = plan;
    if (ext.maxDepth !== undefined && subagents.getProvider(provider)?.capabilities.depthLimit) {
      assertDepthCap(subagents, ext, undefined, plan.contextId);
    }
    const cap = typeof ext.maxDepth === "number" ? ext.maxDepth : undefined;
    let scope: Scope;
    try {
      scope = this.#taskScopes.child("a2a-task");
    } catch (error) {
      throw startError(error);
    }
    let context: TaskContextRecord;
    let chain: RunChain;
    try {
      // Where the remote caller sits in its delegation chain, for the providers below.
      // The caller's own run (the last of its path) is the parent run of the runs started here.
      const callerRun = ext.path?.at(-1);
      scope.provide(
        delegationContextKey,
        freeze(
          callerRun === undefined
            ? { depth: ext.depth, maxDepth: cap }
            : { depth: ext.depth, maxDepth: cap, runId: callerRun },
        ),
      );
      if (plan.trace !== undefined) scope.provide(traceParentKey, { context: plan.trace });
      context = new TaskContextRecord({
        taskId: plan.taskId,
        contextId: plan.contextId,
        provider,
        principal: plan.principal,
        depth: ext.depth,
        scope,
        message: plan.message,
      });
      scope.provide(gatewayTaskKey, context);
      // The caller's run path: the runs' input requests carry it on up to the caller's root.
      const runPath = ext.path ? [...ext.path] : [];
      scope.provide(subagentRunPathKey, runPath);
      runPaths.set(context, runPath);
      this.#options.watch?.(scope, context, runPath);
      const runs = chain = new RunChain(scope, cap, context, ext.budget);
      // The runs' input requests stop here: the task asks its client.
      handleSubagentInput(
        scope,
        async (request, { signal }) => (await runs.whenCurrent()).awaitInput(request, signal),
      );
    } catch (error) {
      this.#options.disposals.track(scope.dispose(), "Disposing a task scope");
      throw startError(error);
    }
    const factory = this.#factory;
    if (!factory) return this.#launch(plan, { id: this.#parentId, scope }, chain, scope);
    return (async () => {
      let parent: AgentRef;
      try {
        parent = await factory(context);
        this.#options.assertOpen();
      } catch (error) {
        this.#options.disposals.track(scope.dispose(), "Disposing a task scope");
        throw startError(error);
      }
      return this.#launch(plan, parent, chain, scope);
    })();
  }

  /** Start the task's run under `parent`; on failure the task scope is disposed. */
  #launch(plan: StartPlan, parent: AgentRef, chain: RunChain, scope: Scope): StartedRun {
    const { ext, provider } = plan;
    let stopProgress: (() => void) | undefined;
    try {
      const route = new ProgressRoute();
      stopProgress = this.#listen(parent, route);
      const { subagents } = this.#options;
      const request = {
        prompt: plan.prompt,
        parent,
        agentOptions: this.#options.agentOptions,
        outputSchema: ext.outputSchema as never,
        maxDepth: ext.maxDepth as never,
        toolFilter: ext.toolFilter as never,
        persona: ext.persona as never,
        budget: ext.budget as never,
      };
      // Untraced, no closure for startRunsUnder (one per task).
      const run = plan.trace === undefined
        ? subagents.start(provider, request)
        : startRunsUnder(plan.trace, () => subagents.start(provider, request));
      route.runId = run.id;
      chain.runs.push(run);
      return {
        run,
        parent,
        chain,
        resumedFrom: undefined,
        route,
        stopProgress,
      };
    } catch (error) {
      stopProgress?.();
      this.#options.disposals.track(scope.dispose(), "Disposing a task scope");
      throw startError(error);
    }
  }

  /** Attach the progress source to `parent` for one task. */
  #listen(parent: AgentRef, route: ProgressRoute): (() => void) | undefined {
    const progress = this.#options.progress;
    if (!progress) return undefined;
    try {
      const stop = progress(parent, route.emit);
      return typeof stop === "function" ? stop : undefined;
    } catch (error) {
      this.#options.logger.error("A progress source failed to attach", error);
      return undefined;
    }
  }
}

/**
 * The one depth-cap check, before any child exists. A fresh start: the
 * child (at the caller's `depth` + 1) must fit under `maxDepth`. A
 * continuation of a kept run: the run keeps the cap it started under, so the
 * one asked for must be that cap or a looser one (then the kept cap already
 * holds it); a tighter cap, or one on a run that started uncapped, could not
 * hold and is refused.
 */
function assertDepthCap(
  subagents: SubagentService,
  ext: AcceptedExtension,
  kept: KeptRun | undefined,
  contextId: string,
): void {
  if (ext.maxDepth === undefined) return;
  try {
    subagents.assertSubagentMaxDepth(ext.maxDepth, "maxDepth");
  } catch (error) {
    throw startError(error);
  }
  const asked = ext.maxDepth as number;
  if (kept) {
    const cap = kept.chain.maxDepth;
    if (cap === undefined || cap > asked) {
      throw invalidParams(
        `context "${contextId}" continues a finished run that started ${
          cap === undefined ? "with no depth cap" : `with maxDepth ${cap}`
        }; a continuation keeps that cap, so its maxDepth (${asked}) may repeat it or be looser, never tighter (use a new contextId to start under a tighter cap)`,
      );
    }
  }
  if (ext.depth + 1 > asked) throw startError(new SubagentDepthError(ext.depth + 1, asked));
}

/**
 * The gateway's side of a task context: plain own fields (a spread or
 * `JSON.stringify` sees them all), `taskId` and `message` moved along as
 * messages steer or resume the run.
 */
export class TaskContextRecord implements GatewayTaskContext {
  taskId: string;
  message: GatewayTaskContext["message"];
  readonly contextId: string;
  readonly provider: string;
  readonly principal: string | undefined;
  readonly depth: number;
  readonly scope: Scope;
  #reply: "task" | "message" = "task";

  constructor(init: Omit<GatewayTaskContext, "replyWithMessage">) {
    this.taskId = init.taskId;
    this.message = init.message;
    this.contextId = init.contextId;
    this.provider = init.provider;
    this.principal = init.principal;
    this.depth = init.depth;
    this.scope = init.scope;
  }

  replyWithMessage(): void {
    this.#reply = "message";
  }

  /** How the message that started the task is answered. */
  get reply(): "task" | "message" {
    return this.#reply;
  }

  /** A message steered the run (same task) or resumed it (a new task). */
  accept(taskId: string, message: GatewayTaskContext["message"]): void {
    this.taskId = taskId;
    this.message = message;
  }
}

/** Whether two budgets (from the seam extension) set the same limits to the same figures. */
function sameBudget(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.is(x[k], y[k]));
}
