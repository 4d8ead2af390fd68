import {
  type Agent,
  agentTextDelta,
  agentToolCallEnd,
  agentToolCallStart,
  type ContentBlock,
  type ContentInput,
  describe,
  type Host,
  hostKey,
  InactiveScopeError,
  type JsonValue,
  messageOf,
  type Scope,
  type SessionEvent,
  textOf,
  type TraceParent,
  traceParentKey,
  type TurnEnd,
} from "@seam/host";
import {
  acceptPersona,
  assertSubagentMaxDepth,
  cancelOnAbort,
  type DelegationContext,
  delegationContextKey,
  type OutputSchema,
  type SubagentBudgetMeter,
  type SubagentCapabilities,
  SubagentDepthError,
  type SubagentInputAnswer,
  subagentProgress,
  type SubagentProvider,
  type SubagentRequest,
  type SubagentResultInput,
  type SubagentResumeRequest,
  type SubagentRunHandle,
  subagentRunPath,
  subagentRunPathKey,
  type SubagentRunPlace,
  type SubagentToolFilter,
  type SubagentUsageInput,
  tighterDepthCap,
} from "@seam/subagent";
import { ChildApprovals } from "./_approvals.ts";
import { meterRunScope } from "./_budget.ts";
import { type Capture, installCapture, STRUCTURED_RESULT_TOOL } from "./_structured.ts";

// One name for the many freezes below (shorter, minified, than `Object.freeze` at each).
const { freeze } = Object;

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
  const name = options.name;
  const inheritsParentContext = options.inheritsParentContext;
  if (typeof inheritsParentContext !== "boolean") {
    throw new TypeError(
      `Cannot create provider "${name}": inheritsParentContext must be a boolean`,
    );
  }
  const fixedHost = options.host;
  return {
    name,
    capabilities: CAPABILITIES,
    inheritsParentContext,
    start(request: SubagentRequest): SubagentRunHandle {
      return startChild(name, inheritsParentContext, fixedHost, request);
    },
  };
}

interface Plan {
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
function plan(
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
  if (!Array.isArray(prompt) || prompt.length === 0) {
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

/** Where the child is created, and whether the run owns that scope. */
interface Composed {
  readonly scope: Scope;
  readonly owned: boolean;
  readonly capture?: Capture;
}

/**
 * The child agent shared by a run and the runs resumed from it: it lives
 * until every run on it is disposed.
 */
class Child {
  readonly id: string;
  readonly composed: Composed;
  readonly capture: Capture | undefined;
  readonly created: Promise<Agent>;
  agent: Agent | undefined;
  #holders = 0;
  #disposal: Promise<void> | undefined;
  #creation = new AbortController();
  #parentScope: Scope;
  #approvals: ChildApprovals | undefined;
  /** Where the child's spans hang: its current run's span, once a run was traced. */
  #traceParent: RunTraceParent | undefined;
  /** The run whose turn the child is taking, until it settles: one at a time. */
  running: object | undefined;

  constructor(id: string, plan: Plan, composed: Composed) {
    this.id = id;
    this.composed = composed;
    this.capture = composed.capture;
    this.#parentScope = plan.parentScope;
    const signal = this.#creation.signal;
    // Creation waits one microtask, so a cancel or dispose in the same tick
    // as start() happens before anything is published. (A creation with an
    // asynchronous `setup` would reserve the id at once, but costs a third
    // of the runs per second: bench/in_process.ts throughput, 1.6× → 2.8×
    // the plain agent.)
    this.created = Promise.resolve().then(() =>
      plan.host.agents.create({
        id,
        parentScope: composed.scope,
        options: {
          model: plan.model,
          subagentDepth: plan.depth,
          ...(plan.maxTokens !== undefined ? { maxTokens: plan.maxTokens } : {}),
        },
        ...(plan.seed !== undefined ? { session: plan.seed } : {}),
        signal,
      }).then((agent) => {
        this.agent = agent;
        this.#enroll(agent, plan);
        if (plan.parentScope.hasListeners(subagentProgress)) {
          relayProgress(agent, plan.parentScope, plan.place);
        }
        return agent;
      })
    );
  }

  /** The child's input requests and tool approvals (made on first use). */
  get approvals(): ChildApprovals {
    return this.#approvals ??= new ChildApprovals(this.#parentScope, this.id);
  }

  /** Refuse the child's pending input requests ("cancelled: <reason>"). */
  refusePending(reason: string): void {
    this.#approvals?.cancelAll(reason);
  }

  /**
   * Make the child part of the delegation tree: its scope carries its run
   * path (so its own children's requests name the whole path), and its
   * tool calls that need approval ask up the tree.
   */
  #enroll(agent: Agent, plan: Plan): void {
    const scope = agent.scope;
    try {
      scope.provide(
        subagentRunPathKey,
        freeze([...subagentRunPath(plan.parentScope), this.id]),
      );
      plan.host.tools.approve(scope, (request) => this.approvals.approve(request));
    } catch (error) {
      // Something of the host's own (an agent/created listener) got there first.
      scope.logger.warn(`Subagent "${this.id}": its scope keeps what was there`, error);
    }
    if (plan.traceContext !== undefined) this.traceUnder(plan.traceContext);
  }

  /**
   * Hang the child's model and tool calls (and the runs it starts) under
   * `context`, its current run's span: the first run's, then each traced
   * resume's. Its scope's `TraceParent` is provided once and read at each
   * span's start, so a resume re-points it.
   */
  traceUnder(context: unknown): void {
    if (this.#traceParent) {
      this.#traceParent.context = context;
      return;
    }
    const traceParent = this.#traceParent = new RunTraceParent(context);
    const scope = this.agent!.scope;
    try {
      scope.provide(traceParentKey, traceParent);
    } catch (error) {
      scope.logger.warn(`Subagent "${this.id}": its scope keeps the trace parent it had`, error);
    }
  }

  hold(): void {
    this.#holders++;
  }

  /** Abort a creation still under way (nothing gets published). */
  abortCreation(reason: string): void {
    // Once the agent exists there is nothing to abort (and an Error is costly).
    if (this.agent || this.#creation.signal.aborted) return;
    this.#creation.abort(new Error(reason));
  }

  release(): Promise<void> {
    this.#holders--;
    if (this.#holders > 0) return Promise.resolve();
    return this.#disposal ??= this.#teardown();
  }

  #teardown(): Promise<void> {
    this.refusePending("disposed");
    const { owned, scope } = this.composed;
    const agent = this.agent;
    if (agent) {
      agent.cancel("disposed");
      return owned ? scope.dispose() : agent.dispose();
    }
    this.abortCreation("disposed");
    return this.created.then(
      (late) => owned ? scope.dispose() : late.dispose(),
      () => owned ? scope.dispose() : undefined,
    );
  }
}

/** A child's `TraceParent`: the span of its current run (a traced resume re-points it). */
class RunTraceParent implements TraceParent {
  context: unknown;
  constructor(context: unknown) {
    this.context = context;
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

function runOn(
  child: Child,
  prompt: readonly ContentBlock[],
  signal: AbortSignal | undefined,
  structured: boolean,
): SubagentRunHandle {
  return new InProcessRun(child, prompt, signal, structured);
}

/**
 * One run on a child. A class, not a bag of closures: thousands of runs a
 * second each allocate only their own state (the service binds the methods).
 */
class InProcessRun implements SubagentRunHandle {
  readonly id: string;
  readonly started: Promise<void>;
  readonly result: Promise<SubagentResultInput>;
  #child: Child;
  #structured: boolean;
  #settle!: (result: SubagentResultInput) => void;
  #settled = false;
  #cancelled: string | undefined;
  #disposal: Promise<void> | undefined;
  #unbindSignal: (() => void) | undefined;

  constructor(
    child: Child,
    prompt: readonly ContentBlock[],
    signal: AbortSignal | undefined,
    structured: boolean,
  ) {
    child.hold();
    child.running = this;
    this.id = child.id;
    this.#child = child;
    this.#structured = structured;
    this.result = new Promise<SubagentResultInput>((resolve) => this.#settle = resolve);
    this.started = child.created.then((agent) => {
      if (this.#cancelled !== undefined) {
        // The cancel landed after the child was published: the run did
        // start (so subagent/start pairs with subagent/end) and ends at once.
        this.#abort();
        return;
      }
      // One text block travels as its string: the agent's cheapest path.
      agent.send(
        prompt.length === 1 && prompt[0].type === "text"
          ? prompt[0].text
          : prompt as ContentBlock[],
      );
      agent.whenIdle().then((end) => this.#onEnd(end), (error) => this.#onFailure(error));
    });
    this.started.catch((error) => this.#onFailure(error));
    // The service bridges the signal too; this one serves a direct caller
    // of the driver. Either way the child is cancelled with the signal's reason.
    if (signal) this.#unbindSignal = cancelOnAbort(signal, (reason) => this.cancel(reason));
  }

  #finish(value: SubagentResultInput): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#child.running === this) this.#child.running = undefined;
    this.#unbind();
    this.#settle(value);
  }

  /** End the run `aborted`, with no output (it was cancelled or disposed first). */
  #abort(): void {
    this.#finish({ output: [], stopReason: "aborted" });
  }

  #unbind(): void {
    this.#unbindSignal?.();
    this.#unbindSignal = undefined;
  }

  #onEnd(end: TurnEnd): void {
    const capture = this.#child.capture;
    if (capture) capture.open = false;
    const mapped = mapTurnEnd(end, capture, this.#structured) as { usage?: SubagentUsageInput };
    mapped.usage = usageOfTurn(end);
    this.#finish(mapped as SubagentResultInput);
  }

  #onFailure(error: unknown): void {
    if (this.#cancelled !== undefined) return this.#abort();
    const started = this.#child.agent !== undefined;
    this.#finish({
      output: [],
      stopReason: "error",
      error: {
        code: started ? "CHILD_FAILED" : "START_FAILED",
        message: `the child ${started ? "failed" : "could not start"}: ${messageOf(error)}`,
      },
    });
  }

  cancel(reason?: string): void {
    if (this.#settled || this.#cancelled !== undefined) return;
    const why = this.#cancelled = reason ?? "cancelled";
    const child = this.#child;
    child.refusePending(why);
    if (child.agent) child.agent.cancel(why);
    else child.abortCreation(why);
  }

  dispose(): Promise<void> {
    if (this.#disposal) return this.#disposal;
    this.#unbind();
    this.cancel("disposed");
    // The child is torn down only when no resumed run still holds it.
    const released = this.#child.release();
    if (this.#settled) return this.#disposal = released;
    return this.#disposal = released.then(() => this.#abort());
  }

  /**
   * Answer one of the child's pending input requests (its tool calls
   * waiting for approval).
   *
   * @throws {RangeError} when no such request waits or the option was not offered.
   * @throws {TypeError} for a malformed answer; the request keeps waiting.
   */
  respond(requestId: string, answer: SubagentInputAnswer): void {
    if (this.#settled) {
      throw new RangeError(
        `Cannot answer input request "${
          String(requestId).slice(0, 100)
        }": run "${this.id}" has finished`,
      );
    }
    this.#child.approvals.inputs.respond(requestId, answer);
  }

  sendMessage(content: ContentInput): Promise<void> {
    return this.started.then(() => {
      if (this.#settled) {
        throw new TypeError(
          `Cannot send a message to run "${this.id}": it has finished; use resume()`,
        );
      }
      this.#child.agent!.send(content);
    });
  }

  resume(content: ContentInput, request?: SubagentResumeRequest): SubagentRunHandle {
    const child = this.#child;
    if (!this.#settled || !child.agent || this.#disposal !== undefined) {
      throw new TypeError(
        `Cannot resume run "${this.id}": ${
          this.#disposal !== undefined ? "it was disposed" : "it has not finished"
        }`,
      );
    }
    if (child.running !== undefined) {
      // Its context is the turn under way's: a second turn would take the same
      // conversation at once (and both would end with the last one's answer).
      throw new TypeError(
        `Cannot resume run "${this.id}": the child is still running a run resumed from it; wait for that run's result`,
      );
    }
    const blocks = typeof content === "string"
      ? [{ type: "text" as const, text: content }]
      : content;
    // The resumed turn's spans hang under the resumed run, not the first.
    if (request?.traceContext !== undefined) child.traceUnder(request.traceContext);
    // A resumed turn is plain: the structured answer was the first run's.
    return runOn(child, blocks, undefined, false);
  }
}

/**
 * Re-emit the child's own streamed text and tool calls as
 * `subagent/progress` in the parent's scope, for as long as the child lives.
 */
function relayProgress(
  agent: Agent,
  parentScope: Scope,
  place: SubagentRunPlace | undefined,
): void {
  const runId = agent.id;
  agent.scope.on(agentTextDelta, (info) => {
    if (info.agentId !== runId) return;
    parentScope.emit(subagentProgress, freeze({ ...place, runId, kind: "text", text: info.text }));
  });
  agent.scope.on(agentToolCallStart, (info) => {
    if (info.agentId !== runId) return;
    parentScope.emit(
      subagentProgress,
      freeze({ ...place, runId, kind: "tool-call", name: info.name, callId: info.callId }),
    );
  });
  agent.scope.on(agentToolCallEnd, (info) => {
    if (info.agentId !== runId) return;
    parentScope.emit(
      subagentProgress,
      freeze({
        ...place,
        runId,
        kind: "tool-result",
        name: info.name,
        callId: info.callId,
        text: textOf(info.content),
      }),
    );
  });
}

/** The run's own usage: the turn's token counts and calls (partial when a model call did not report). */
function usageOfTurn(end: TurnEnd): SubagentUsageInput {
  const usage = end.usage;
  const counts = end.counts;
  return {
    self: {
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      cachedInputTokens: usage?.cachedInputTokens ?? 0,
      modelCalls: counts?.modelCalls ?? 0,
      toolCalls: counts?.toolCalls ?? 0,
    },
    partial: counts === undefined || counts.unreportedModelCalls > 0,
  };
}

function mapTurnEnd(
  end: { reason: string; output: readonly ContentBlock[]; error?: string },
  capture: Capture | undefined,
  structured: boolean,
): SubagentResultInput {
  const blocks = end.output as ContentBlock[];
  // One text block travels as its string: the service checks and copies a
  // string for nothing, where a list costs a copy per block.
  const output: ContentInput =
    blocks.length === 1 && blocks[0].type === "text" && blocks[0].text !== ""
      ? blocks[0].text
      : blocks;
  switch (end.reason) {
    case "completed":
      if (structured) {
        if (!capture?.committed) {
          return {
            output,
            stopReason: "error",
            error: {
              code: "NO_STRUCTURED_RESULT",
              message:
                `the child finished without submitting a structured result (it never called ${STRUCTURED_RESULT_TOOL} successfully)`,
            },
          };
        }
        return { output, structured: capture.value as JsonValue, stopReason: "completed" };
      }
      return { output, stopReason: "completed" };
    case "max-tokens":
    case "aborted":
    case "refusal":
      return { output, stopReason: end.reason };
    default:
      return {
        output,
        stopReason: "error",
        error: { code: "CHILD_FAILED", message: end.error || "the child's turn failed" },
      };
  }
}
