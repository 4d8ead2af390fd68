import { type AgentRef, messageOf, type Scope } from "@seam/host";
import {
  type DelegationContext,
  delegationContextKey,
  type SubagentBudgetCharge,
  SubagentDepthError,
  type SubagentInputAnswer,
  type SubagentInputAsk,
  SubagentInputs,
  subagentProgress,
  type SubagentProgressKind,
  type SubagentRequest,
  type SubagentResultInput,
  type SubagentRunHandle,
  subagentRunPath,
  subagentRunPathKey,
  tighterDepthCap,
} from "@seam/subagent";

/** Something a framework's run did, reported as `subagent/progress`. */
export interface FrameworkProgress {
  /** What happened. */
  readonly kind: SubagentProgressKind;
  /** Streamed text, or a tool result's text. */
  readonly text?: string;
  /** The tool's name, for `tool-call` and `tool-result`. */
  readonly name?: string;
  /** The tool call's id, for `tool-call` and `tool-result`. */
  readonly callId?: string;
}

/**
 * What a framework adapter's driver gets for one run: the request, the run's
 * abort signal, the child as a delegating agent, and the ways to report
 * progress, ask up the tree and charge the budget.
 */
export interface FrameworkRunContext {
  /** The run's id. */
  readonly id: string;
  /** The service's snapshot of the request. */
  readonly request: SubagentRequest;
  /** Aborts when the run is cancelled or disposed: hand it to the framework. */
  readonly signal: AbortSignal;
  /**
   * The framework's agent as a delegating agent: its id is the run's id and
   * its scope carries the run's place in the tree (depth, depth cap, run
   * path), so a seam tool inside the framework's run delegates below this run.
   */
  readonly child: AgentRef;
  /** Report streamed text (also kept as the output of a run cut short). */
  text(delta: string): void;
  /** Report something else the run did. */
  progress(progress: FrameworkProgress): void;
  /** Ask up the tree (see `SubagentInputs.ask`); cancelling the run refuses it. */
  ask(ask: SubagentInputAsk): Promise<SubagentInputAnswer>;
  /** Charge a model call's tokens or a tool call to the run's budget, when it has one. */
  charge(usage: SubagentBudgetCharge): void;
}

/** Drives one framework run to its result; rejects for a run that failed. */
export type FrameworkDriver = (run: FrameworkRunContext) => Promise<SubagentResultInput>;

/** How {@linkcode startFrameworkRun} names what it runs. */
export interface FrameworkRunOptions {
  /** The framework, for messages (`OpenAI Agents`, `LangGraph`, `Mastra`). */
  readonly framework: string;
  /** The run ids' prefix (`openai-agents`). */
  readonly idPrefix: string;
}

type RunState = "starting" | "running" | "settled";

let counter = 0;

/**
 * Start a run of a framework's agent as a seam child: the run handle's
 * lifecycle (readiness in a microtask, cancel, idempotent dispose), the
 * child's scope and place in the tree, its input requests and progress.
 * `drive` maps the framework; a rejection it returns ends the run `error`
 * (`CHILD_FAILED`, the framework's message) unless the run was cancelled,
 * and a cancel or dispose settles the run `aborted` at once, whether or not
 * the framework heeds its abort signal.
 *
 * @throws {SubagentDepthError} when the child would sit deeper than a cap
 * set above it or in the request (before anything starts).
 */
export function startFrameworkRun(
  request: SubagentRequest,
  drive: FrameworkDriver,
  options: FrameworkRunOptions,
): SubagentRunHandle {
  return new FrameworkRun(request, drive, options).handle;
}

class FrameworkRun {
  #state: RunState = "starting";
  readonly #controller = new AbortController();
  readonly #request: SubagentRequest;
  readonly #options: FrameworkRunOptions;
  readonly #inputs: SubagentInputs;
  readonly #scope: Scope;
  readonly #id: string;
  #text = "";
  #settle!: (result: SubagentResultInput) => void;
  #disposed: Promise<void> | undefined;
  readonly handle: SubagentRunHandle;

  constructor(request: SubagentRequest, drive: FrameworkDriver, options: FrameworkRunOptions) {
    this.#request = request;
    this.#options = options;
    const id = this.#id = `${options.idPrefix}-${++counter}-${crypto.randomUUID().slice(0, 8)}`;
    const parentScope = request.parent.scope;
    const inherited: DelegationContext | undefined = parentScope.inject(delegationContextKey);
    const depth = request.place?.depth ?? (inherited?.depth ?? 0) + 1;
    const cap = tighterDepthCap(request.maxDepth, inherited?.maxDepth);
    if (cap !== undefined && depth > cap) throw new SubagentDepthError(depth, cap);
    const scope = this.#scope = parentScope.child(`${options.idPrefix} ${id}`);
    scope.provide(delegationContextKey, Object.freeze({ depth, maxDepth: cap, runId: id }));
    scope.provide(subagentRunPathKey, Object.freeze([...subagentRunPath(parentScope), id]));
    this.#inputs = new SubagentInputs(parentScope, id);
    const result = new Promise<SubagentResultInput>((resolve) => this.#settle = resolve);
    const started = Promise.resolve().then(() => {
      if (this.#state !== "starting") {
        throw new Error(`Cannot start ${options.framework} run "${id}": it was cancelled first`);
      }
      this.#state = "running";
    });
    started.then(() => this.#drive(drive), () => {});
    this.handle = {
      id,
      started,
      result,
      cancel: (reason?: string) => this.#cancel(reason ?? "cancelled"),
      dispose: () => this.#disposed ??= this.#dispose(),
      respond: (requestId: string, answer: SubagentInputAnswer) =>
        this.#inputs.respond(requestId, answer),
    };
  }

  async #drive(drive: FrameworkDriver): Promise<void> {
    let result: SubagentResultInput;
    try {
      result = await drive(this.#context());
    } catch (error) {
      if (this.#state === "settled") return;
      result = {
        output: this.#text,
        stopReason: "error",
        error: {
          code: "CHILD_FAILED",
          message: `The ${this.#options.framework} run failed: ${
            messageOf(error) || "(no message)"
          }`,
        },
      };
    }
    this.#finish(result);
  }

  #context(): FrameworkRunContext {
    const request = this.#request;
    const meter = request.budgetMeter;
    return {
      id: this.#id,
      request,
      signal: this.#controller.signal,
      child: Object.freeze({ id: this.#id, scope: this.#scope }),
      text: (delta) => {
        if (this.#state === "settled" || delta === "") return;
        this.#text += delta;
        this.progress({ kind: "text", text: delta });
      },
      progress: (progress) => this.progress(progress),
      ask: (ask) => {
        if (this.#state === "settled") {
          return Promise.resolve({ outcome: "refused", reason: "the run has ended" });
        }
        return this.#inputs.ask(ask);
      },
      charge: (usage) => {
        if (meter && this.#state !== "settled") meter.charge(usage);
      },
    };
  }

  progress(progress: FrameworkProgress): void {
    const scope = this.#request.parent.scope;
    if (this.#state === "settled" || !scope.hasListeners(subagentProgress)) return;
    scope.emit(
      subagentProgress,
      Object.freeze({ ...this.#request.place, runId: this.#id, ...progress }),
    );
  }

  #finish(result: SubagentResultInput): void {
    if (this.#state === "settled") return;
    this.#state = "settled";
    this.#inputs.cancelAll("the run ended");
    this.#settle(result);
  }

  #cancel(reason: string): void {
    if (this.#state === "settled") return;
    this.#inputs.cancelAll(reason);
    this.#finish({ output: this.#text, stopReason: "aborted" });
    this.#controller.abort(new Error(reason));
  }

  async #dispose(): Promise<void> {
    this.#cancel("disposed");
    await this.#scope.dispose();
  }
}
