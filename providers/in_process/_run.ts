import {
  type Agent,
  agentTextDelta,
  agentToolCallEnd,
  agentToolCallStart,
  type ContentBlock,
  type ContentInput,
  type JsonValue,
  messageOf,
  type Scope,
  textOf,
  type TraceParent,
  traceParentKey,
  type TurnEnd,
} from "@seam/host";
import {
  cancelOnAbort,
  type SubagentInputAnswer,
  subagentProgress,
  type SubagentResultInput,
  type SubagentResumeRequest,
  type SubagentRunHandle,
  subagentRunPath,
  subagentRunPathKey,
  type SubagentRunPlace,
  type SubagentUsageInput,
} from "@seam/subagent";
import { ChildApprovals } from "./_approvals.ts";
import type { Composed, Plan } from "./_plan.ts";
import { type Capture, STRUCTURED_RESULT_TOOL } from "./_structured.ts";
import { freeze } from "./_builtins.ts";

/**
 * The child agent shared by a run and the runs resumed from it: it lives
 * until every run on it is disposed.
 */
export class Child {
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

export function runOn(
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
