import { type Host, refuseUnknownOptions } from "@seam/host";
import {
  delegationContextKey,
  type SubagentCapabilities,
  type SubagentProvider,
  type SubagentRequest,
  type SubagentRunHandle,
} from "@seam/subagent";
import { meterRunScope } from "./_budget.ts";
import { type Composed, type Plan, plan } from "./_plan.ts";
import { Child, runOn } from "./_run.ts";
import { installCapture } from "./_structured.ts";
import { freeze } from "./_builtins.ts";

/** The name of the system-prompt section a request's `persona` replaces for its child. */
export const PERSONA_SECTION = "persona";

/** Options of {@linkcode createInProcessProvider}. */
export interface InProcessProviderOptions {
  /** The name the provider registers under. */
  readonly name: string;
  /** Whether the child is seeded with the parent's completed turns (a fork). */
  readonly inheritsParentContext: boolean;
  /**
   * The host the children run in. Default: the host provided in the parent's
   * scope (see `hostKey`).
   */
  readonly host?: Host;
}

/** Every start-time capability: the in-process driver composes each one. */
const CAPABILITIES: SubagentCapabilities = freeze({
  outputSchema: true,
  depthLimit: true,
  toolFilter: true,
  persona: true,
  budget: true,
});

let runCounter = 0;

/**
 * The driver shared by `spawn` and `fork`: each run is a child agent of the
 * same host, composed in a run scope nested in the parent's scope (so
 * disposing the parent reaches it):
 *
 * - depth: the child sits at the parent's depth + 1; a start that would
 *   exceed `maxDepth` (or a cap inherited from an ancestor) throws a
 *   {@linkcode SubagentDepthError} before any child exists, and the
 *   tighter cap is passed down to the child's own delegations;
 * - model: the parent's, unless `agentOptions.model` names another;
 * - `persona`: a section named {@linkcode PERSONA_SECTION} in the run scope,
 *   shadowing the deployment's persona for this child only;
 * - `toolFilter`: a restriction on the run scope (unknown names throw);
 * - `outputSchema`: a `submit_result` capture tool with the run's real
 *   schema, registered in the run scope only; invalid arguments go back to
 *   the model, the value is committed when a call succeeds, which ends the
 *   turn and denies later calls; a run that ends without a capture ends
 *   `error`;
 * - `budget` (`request.budgetMeter`): the child's model calls charge their
 *   tokens as each step finishes (before the agent sees the finish, so the
 *   call that goes beyond the budget ends the turn), its tool calls charge
 *   one each before they run (refused once the budget ran out); the
 *   service keeps wall time and the children caps.
 *
 * While a run is live, the child's streamed text and tool calls are
 * re-emitted as `subagent/progress` in the parent's scope (only when
 * something listens there at start).
 *
 * Input requests: the child's scope carries its run path
 * (`subagentRunPathKey`: the parent's path and the run id, so its own
 * children's requests name the whole path) and a tool approver. A call of
 * a tool that requires approval (`requiresApproval` in `@seam/host`)
 * becomes a permission request (the tool's name, title, kind and raw
 * input; options allow once / allow always / reject once / reject always)
 * announced in the parent's scope and offered to the handlers up the tree
 * (`SubagentInputs`), or answered with `run.respond`. The tool runs only
 * when an allow option is chosen; anything else is the tool's error result
 * the model reads ("the call was not approved: …"). An "always" answer
 * holds for that tool for the rest of the child's life (its resumed runs
 * too). `cancel` and `dispose` refuse what is pending ("cancelled: …").
 * The driver sets no deadline of its own, so waiting counts against
 * nothing (a caller's `signal` still cancels).
 *
 * Every check happens synchronously in `start`, before any child exists (a
 * parent whose depth has no safe successor is a `RangeError`). The child's
 * id is `<provider>-<n>`, skipping any id the host holds at `start`. A `cancel`/`dispose` before the child is
 * published publishes nothing (`started` rejects, no event); one that lands
 * after publication ends the run `aborted` as a started run (`started`
 * fulfils, `subagent/start` pairs with `subagent/end`). `dispose` is
 * memoized and resolves once the child is quiescent and unpublished. A run has `sendMessage` (steer
 * the running child) and `resume` (continue the finished child as a new run;
 * the child lives until every run on it is disposed).
 *
 * @example
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createInProcessProvider } from "@seam/subagent-in-process";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * const subagents = createSubagentService(host.scope);
 * subagents.registerProvider(createInProcessProvider({ name: "child", inheritsParentContext: false }));
 * const parent = await host.agents.create({ id: "main", options: { model: "scripted" } });
 *
 * const run = subagents.start("child", { prompt: "@reply hello from the child", parent });
 * try {
 *   const result = await run.result;
 *   assert.deepEqual(result.output, [{ type: "text", text: "hello from the child" }]);
 * } finally {
 *   await run.dispose();
 * }
 * await host.scope.dispose();
 * ```
 */
export function createInProcessProvider(options: InProcessProviderOptions): SubagentProvider {
  refuseUnknownOptions(
    `create provider "${options?.name}"`,
    options,
    [
      "name",
      "inheritsParentContext",
      "host",
    ] satisfies (keyof InProcessProviderOptions)[],
  );
  const { name, inheritsParentContext, host: fixedHost } = options;
  if (typeof inheritsParentContext !== "boolean") {
    throw new TypeError(
      `Cannot create provider "${name}": inheritsParentContext must be a boolean`,
    );
  }
  return {
    name,
    capabilities: CAPABILITIES,
    inheritsParentContext,
    start(request: SubagentRequest): SubagentRunHandle {
      return startChild(name, inheritsParentContext, fixedHost, request);
    },
  };
}

/** Options of a provider preset on the in-process driver: see {@linkcode createInProcessPreset}. */
export interface InProcessPresetOptions {
  /** The name to register under. Default: the preset's. */
  readonly name?: string;
  /** The host children run in. Default: the one provided in the parent's scope. */
  readonly host?: Host;
}

/**
 * A preset of the in-process driver, as `spawn` and `fork` are: the
 * provider {@linkcode createInProcessProvider} makes under `options.name`
 * (default `preset`), with or without the parent's context.
 *
 * @throws {TypeError} naming an option other than `name` and `host`.
 *
 * @example
 * ```ts
 * import { createInProcessPreset } from "@seam/subagent-in-process";
 * import assert from "node:assert/strict";
 *
 * const provider = createInProcessPreset("helper", false, {});
 * assert.equal(provider.name, "helper");
 * assert.throws(
 *   () => createInProcessPreset("helper", false, { model: "x" } as never),
 *   /Cannot create provider "helper": unknown option model \(known: name, host\)/,
 * );
 * ```
 */
export function createInProcessPreset(
  preset: string,
  inheritsParentContext: boolean,
  options: InProcessPresetOptions,
): SubagentProvider {
  refuseUnknownOptions(`create provider "${preset}"`, options, ["name", "host"]);
  const { name = preset, host } = options;
  return createInProcessProvider({ name, inheritsParentContext, host });
}

/**
 * Compose the run scope synchronously: every registration that can fail
 * (an unknown tool name, a schema the tool registry refuses) fails here,
 * before any child exists, and the scope is disposed again.
 */
function composeRunScope(plan: Plan, runId: string): Composed {
  const { host } = plan;
  if (
    plan.persona === undefined && plan.toolFilter === undefined &&
    plan.outputSchema === undefined && plan.cap === undefined && plan.meter === undefined
  ) {
    // Nothing to compose: the child's own scope, nested in the parent's, is enough.
    return { scope: plan.parentScope, owned: false };
  }
  const scope = plan.parentScope.child(`run:${runId}`);
  try {
    scope.provide(delegationContextKey, freeze({ depth: plan.depth, maxDepth: plan.cap }));
    if (plan.persona !== undefined) {
      const shadowed = host.prompts.sections(plan.parentScope).find((s) =>
        s.name === PERSONA_SECTION
      );
      host.prompts.register(scope, {
        name: PERSONA_SECTION,
        order: shadowed?.order ?? 0,
        text: plan.persona,
      });
    }
    if (plan.toolFilter !== undefined) host.tools.restrict(scope, plan.toolFilter);
    const capture = plan.outputSchema !== undefined
      ? installCapture(host, scope, plan.outputSchema)
      : undefined;
    if (plan.meter !== undefined) {
      meterRunScope(host, scope, plan.parentScope, plan.model, runId, plan.meter);
    }
    return { scope, owned: true, capture };
  } catch (error) {
    scope.dispose().catch((e) => scope.logger.error(`Disposing run scope ${runId} failed`, e));
    throw error;
  }
}

function startChild(
  providerName: string,
  inherits: boolean,
  fixedHost: Host | undefined,
  request: SubagentRequest,
): SubagentRunHandle {
  const p = plan(providerName, inherits, fixedHost, request);
  // Never an id the host already knows (a user may name an agent `spawn-1`).
  let id: string;
  do id = `${providerName}-${++runCounter}`; while (p.host.agents.get(id) !== undefined);
  const composed = composeRunScope(p, id);
  const child = new Child(id, p, composed);
  return runOn(child, p.prompt, p.signal, p.outputSchema !== undefined);
}
