import {
  type Agent,
  type ContentBlock,
  describe,
  type Host,
  hostKey,
  InactiveScopeError,
  type Scope,
  type SessionEvent,
} from "@seam/host";
import {
  acceptPersona,
  assertSubagentMaxDepth,
  type DelegationContext,
  delegationContextKey,
  type OutputSchema,
  type SubagentBudgetMeter,
  SubagentDepthError,
  type SubagentRequest,
  type SubagentRunPlace,
  type SubagentToolFilter,
  tighterDepthCap,
} from "@seam/subagent";
import type { Capture } from "./_structured.ts";
import { isArray } from "./_builtins.ts";

export interface Plan {
  readonly host: Host;
  readonly parentScope: Scope;
  readonly prompt: readonly ContentBlock[];
  readonly signal: AbortSignal | undefined;
  readonly model: string;
  readonly maxTokens: number | undefined;
  readonly depth: number;
  readonly cap: number | undefined;
  readonly persona: string | undefined;
  readonly toolFilter: SubagentToolFilter | undefined;
  readonly outputSchema: OutputSchema | undefined;
  readonly seed: readonly SessionEvent[] | undefined;
  readonly place: SubagentRunPlace | undefined;
  /** The run's OpenTelemetry context, when tracing: the child's spans hang under it. */
  readonly traceContext: unknown;
  readonly meter: SubagentBudgetMeter | undefined;
}

function fail(message: string): never {
  throw new TypeError(`Cannot start subagent: ${message}`);
}

/** Read every request field once and check everything that can be checked now. */
export function plan(
  providerName: string,
  inherits: boolean,
  fixedHost: Host | undefined,
  request: SubagentRequest,
): Plan {
  if (request === null || typeof request !== "object") {
    fail(`request must be an object, got ${describe(request)}`);
  }
  const {
    prompt,
    parent,
    signal,
    agentOptions,
    outputSchema,
    maxDepth,
    toolFilter,
    persona,
  } = request;
  if (!parent || typeof parent !== "object") fail("request.parent must be an agent");
  const parentId = parent.id;
  const parentScope = parent.scope;
  if (!parentScope || typeof parentScope.child !== "function") {
    fail("request.parent.scope must be a Scope");
  }
  if (!parentScope.active) {
    throw new InactiveScopeError("start a subagent", parentScope.label, parentScope.state);
  }
  const host = fixedHost ?? parentScope.inject(hostKey);
  if (!host) {
    fail(`no host is provided in the parent's scope "${parentScope.label}" (see hostKey)`);
  }
  if (!isArray(prompt) || prompt.length === 0) {
    fail("request.prompt must be a non-empty list of content blocks");
  }
  assertSubagentMaxDepth(maxDepth, "request.maxDepth");

  const parentAgent: Agent | undefined = typeof parentId === "string"
    ? host.agents.get(parentId)
    : undefined;
  const inherited: DelegationContext | undefined = parentScope.inject(delegationContextKey);
  // The deeper of the two: a gateway serving a remote caller runs its tasks
  // under a host agent's id with the caller's depth in the scope's context.
  const parentDepth = Math.max(parentAgent?.options.subagentDepth ?? 0, inherited?.depth ?? 0);
  const depth = parentDepth + 1;
  if (!Number.isSafeInteger(depth)) {
    throw new RangeError(
      `Cannot start subagent: the parent's depth ${parentDepth} has no safe successor`,
    );
  }
  const cap = tighterDepthCap(maxDepth, inherited?.maxDepth);
  if (cap !== undefined && depth > cap) throw new SubagentDepthError(depth, cap);

  const model = agentOptions?.model ?? parentAgent?.options.model;
  if (model === undefined) {
    fail(
      `no model for the child: the parent "${
        String(parentId)
      }" is not an agent of this host and request.agentOptions.model is absent`,
    );
  }
  if (typeof model !== "string" || model === "") {
    fail(`the child's model must be a non-empty string, got ${describe(model)}`);
  }
  // Throws a RangeError naming the model when nothing serves it.
  host.models.resolve(parentScope, model);

  let seed: readonly SessionEvent[] | undefined;
  if (inherits) {
    if (!parentAgent) {
      fail(
        `provider "${providerName}" forks the parent's conversation, but the parent "${
          String(parentId)
        }" is not an agent of this host`,
      );
    }
    seed = parentAgent.session.completedPrefix();
  }
  if (persona !== undefined) acceptPersona(persona, "request.persona");
  return {
    host,
    parentScope,
    prompt,
    signal,
    model,
    maxTokens: parentAgent?.options.maxTokens,
    depth,
    cap,
    persona,
    toolFilter,
    outputSchema,
    seed,
    place: request.place,
    traceContext: request.traceContext,
    meter: request.budgetMeter,
  };
}

/** Where the child is created, and whether the run owns that scope. */
export interface Composed {
  readonly scope: Scope;
  readonly owned: boolean;
  readonly capture?: Capture;
}
