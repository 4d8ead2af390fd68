// One run of an AI SDK agent as a seam child: the prompt in, the agent's
// stream read into progress, usage and budget charges, tool approvals asked
// up the tree as input requests and answered back into a new call of the
// agent, and the last step's text (and the output spec's value) as the result.
import { type ContentBlock, type JsonValue, messageOf } from "@seam/host";
import {
  cancelOnAbort,
  type OutputSchema,
  type SubagentFailure,
  type SubagentInputAnswer,
  SubagentInputs,
  subagentProgress,
  type SubagentProgressInfo,
  type SubagentRequest,
  type SubagentResultInput,
  type SubagentRunHandle,
  type SubagentStopReason,
} from "@seam/subagent";
import type { ModelMessage, StreamTextResult, ToolSet } from "ai";
import { UsageTally } from "@seam/adapter-kit";
import { userParts } from "./_messages.ts";

/** The AI SDK agent a run calls (checked by the provider). */
export interface RunAgent {
  stream(
    options: { messages: ModelMessage[]; abortSignal: AbortSignal } | {
      prompt: string;
      abortSignal: AbortSignal;
    },
  ): PromiseLike<StreamTextResult<ToolSet, never, never>>;
}

/** What the provider gives a run. */
export interface RunPlan {
  readonly id: string;
  readonly request: SubagentRequest;
  /** The agent for this run (made per run with `make`). */
  readonly agent: () => RunAgent | Promise<RunAgent>;
  /** A declared capability the provider checks on the agent it got, or undefined. */
  readonly checkAgent?: (agent: unknown) => string | undefined;
  /** The conversation before this run's prompt (a resumed run's). */
  readonly history: readonly ModelMessage[];
  /** Called once the run settled. */
  readonly onEnd: (run: AiSdkRun) => void;
  /** Called once the run is disposed (after its agent's stream closed). */
  readonly onDispose?: () => Promise<void>;
}

/** How many calls of the agent one run makes at most (one, then one per round of approvals). */
export const MAX_AGENT_CALLS = 64;

type RunState = "starting" | "running" | "waiting" | "settled";

const ALLOW = "allow";
const REJECT = "reject";

let counter = 0;

/** A run id unique in this process. */
export function nextRunId(provider: string): string {
  return `${provider}-${++counter}`;
}

interface ApprovalAsk {
  readonly approvalId: string;
  readonly toolName: string;
  readonly toolCallId: string;
  readonly input: unknown;
  readonly reason?: string;
}

/** One run of the agent; `handle` is what the provider returns. */
export class AiSdkRun {
  readonly id: string;
  readonly handle: SubagentRunHandle;
  readonly #plan: RunPlan;
  readonly #inputs: SubagentInputs;
  readonly #controller = new AbortController();
  readonly #usage = new UsageTally();
  #state: RunState = "starting";
  #messages: ModelMessage[];
  #output = "";
  #resolveStarted!: () => void;
  #rejectStarted!: (error: Error) => void;
  #resolveResult!: (result: SubagentResultInput) => void;
  readonly #driving: Promise<void>;
  #disposal: Promise<void> | undefined;
  #unbindSignal: () => void = () => {};

  constructor(plan: RunPlan) {
    this.id = plan.id;
    this.#plan = plan;
    const { request } = plan;
    this.#inputs = new SubagentInputs(request.parent.scope, this.id);
    this.#messages = [...plan.history, { role: "user", content: userParts(request.prompt) }];
    const started = new Promise<void>((resolve, reject) => {
      this.#resolveStarted = resolve;
      this.#rejectStarted = reject;
    });
    started.catch(() => {});
    const result = new Promise<SubagentResultInput>((resolve) => this.#resolveResult = resolve);
    if (request.signal) {
      this.#unbindSignal = cancelOnAbort(request.signal, (reason) => this.cancel(reason), {
        defer: true,
      });
    }
    // One microtask first: a cancel in the same tick as start() makes no agent.
    this.#driving = Promise.resolve().then(() => this.#drive()).catch((error) => {
      this.#settle("error", { code: "CHILD_FAILED", message: messageOf(error) });
    });
    this.handle = {
      id: this.id,
      started,
      result,
      cancel: (reason?: string) => this.cancel(reason),
      dispose: () => this.dispose(),
      respond: (requestId: string, answer: SubagentInputAnswer) =>
        this.#inputs.respond(requestId, answer),
    };
  }

  get #settled(): boolean {
    return this.#state === "settled";
  }

  /** The conversation so far (a resumed run continues it). */
  get messages(): readonly ModelMessage[] {
    return this.#messages;
  }

  /** Ask the agent to stop: the run ends `aborted`. */
  cancel(reason?: string): void {
    if (this.#settled) return;
    const why = reason === undefined || reason === "" ? "cancelled" : reason;
    this.#rejectStarted(new Error(`Cannot start the AI SDK agent run "${this.id}": ${why}`));
    this.#controller.abort(new Error(why));
    this.#inputs.cancelAll(why);
    this.#settle("aborted");
  }

  /** Stop what runs and wait until the agent's stream is closed. */
  dispose(): Promise<void> {
    this.#disposal ??= (async () => {
      this.cancel("disposed");
      await this.#driving;
      await this.#plan.onDispose?.();
    })();
    return this.#disposal;
  }

  async #drive(): Promise<void> {
    if (this.#state !== "starting") return;
    const signal = this.#controller.signal;
    let agent: RunAgent;
    try {
      agent = await this.#plan.agent();
    } catch (error) {
      return this.#failStart(`make() failed: ${messageOf(error)}`);
    }
    if (this.#state !== "starting") return;
    const problem = this.#plan.checkAgent?.(agent);
    if (problem !== undefined) return this.#failStart(problem);
    this.#state = "running";
    this.#resolveStarted();
    let last: StreamTextResult<ToolSet, never, never> | undefined;
    for (let call = 1;; call++) {
      if (call > MAX_AGENT_CALLS) {
        return this.#settle("error", {
          code: "CHILD_FAILED",
          message: `the agent asked for approvals in more than ${MAX_AGENT_CALLS} rounds`,
        });
      }
      // A first call whose task is plain text goes as the AI SDK's `prompt`
      // (what calling the agent directly does; cheaper than a messages array).
      const text = call === 1 ? plainPrompt(this.#messages) : undefined;
      const result = await agent.stream(
        text !== undefined
          ? { prompt: text, abortSignal: signal }
          : { messages: [...this.#messages], abortSignal: signal },
      );
      last = result;
      const step = await this.#read(result);
      if (this.#settled) return;
      if (step.failure) return this.#settle("error", step.failure);
      this.#messages.push(...(await result.responseMessages) as ModelMessage[]);
      if (step.approvals.length === 0) {
        return await this.#finish(step.finishReason, last);
      }
      this.#state = "waiting";
      const answers = await Promise.all(step.approvals.map((ask) => this.#askApproval(ask)));
      if (this.#settled) return;
      this.#state = "running";
      this.#messages.push({ role: "tool", content: answers });
    }
  }

  #failStart(message: string): void {
    const failure = { code: "START_FAILED", message };
    this.#rejectStarted(new Error(`Cannot start the AI SDK agent run "${this.id}": ${message}`));
    this.#settle("error", failure);
  }

  /** Read one call's stream: progress, usage, budget, approvals, the last step's text. */
  async #read(result: StreamTextResult<ToolSet, never, never>): Promise<{
    finishReason: string | undefined;
    approvals: ApprovalAsk[];
    failure?: SubagentFailure;
  }> {
    const approvals: ApprovalAsk[] = [];
    const meter = this.#plan.request.budgetMeter;
    let finishReason: string | undefined;
    let stepText = "";
    for await (const part of result.fullStream) {
      if (this.#settled) break;
      switch (part.type) {
        case "start-step":
          stepText = "";
          break;
        case "text-delta":
          stepText += part.text;
          if (stepText !== "") this.#output = stepText;
          this.#progress({ kind: "text", text: part.text });
          break;
        case "reasoning-delta":
          this.#progress({ kind: "thought", text: part.text });
          break;
        case "tool-call":
          meter?.charge({ toolCalls: 1 });
          this.#progress({ kind: "tool-call", name: part.toolName, callId: part.toolCallId });
          break;
        case "tool-result":
        case "tool-error":
          this.#usage.toolCall();
          this.#progress({
            kind: "tool-result",
            name: part.toolName,
            callId: part.toolCallId,
            text: excerpt(part.type === "tool-result" ? part.output : messageOf(part.error)),
          });
          break;
        case "tool-approval-request":
          if (!part.isAutomatic) {
            approvals.push({
              approvalId: part.approvalId,
              toolName: part.toolCall.toolName,
              toolCallId: part.toolCall.toolCallId,
              input: part.toolCall.input,
              ...(part.reason ? { reason: part.reason } : {}),
            });
          }
          break;
        case "finish-step": {
          const { inputTokens, outputTokens } = part.usage;
          const charge = this.#usage.modelCall({
            inputTokens,
            outputTokens,
            cachedInputTokens: part.usage.inputTokenDetails?.cacheReadTokens ?? 0,
          });
          meter?.charge(charge);
          finishReason = part.finishReason;
          break;
        }
        case "error":
          return {
            finishReason,
            approvals,
            failure: {
              code: "CHILD_FAILED",
              message: `the agent failed: ${messageOf(part.error)}`,
            },
          };
        case "abort":
          return { finishReason: "abort", approvals };
      }
    }
    return { finishReason, approvals };
  }

  async #finish(
    finishReason: string | undefined,
    result: StreamTextResult<ToolSet, never, never>,
  ): Promise<void> {
    let reason: SubagentStopReason = "completed";
    let failure: SubagentFailure | undefined;
    switch (finishReason) {
      case "length":
        reason = "max-tokens";
        break;
      case "content-filter":
        reason = "refusal";
        break;
      case "error":
      case "interrupted":
        reason = "error";
        failure = { code: "CHILD_FAILED", message: `the agent's model ended ${finishReason}` };
        break;
    }
    const schema: OutputSchema | undefined = this.#plan.request.outputSchema;
    if (reason === "completed" && schema !== undefined) {
      let structured: unknown;
      try {
        structured = await result.output;
      } catch (error) {
        return this.#settle("error", {
          code: "NO_STRUCTURED_RESULT",
          message: `the agent gave no value for the output schema: ${messageOf(error)}`,
        });
      }
      if (structured === null || typeof structured !== "object" || Array.isArray(structured)) {
        return this.#settle("error", {
          code: "NO_STRUCTURED_RESULT",
          message:
            "the agent gave no object for the output schema (does make() pass spec.outputSchema as its output?)",
        });
      }
      return this.#settle(reason, undefined, structured as JsonValue);
    }
    this.#settle(reason, failure);
  }

  async #askApproval(ask: ApprovalAsk): Promise<{
    type: "tool-approval-response";
    approvalId: string;
    approved: boolean;
    reason?: string;
  }> {
    const input = jsonOrString(ask.input);
    const answer = await this.#inputs.ask({
      kind: "permission",
      message: ask.reason ??
        `The AI SDK agent wants to run the tool "${ask.toolName}", which needs approval`,
      toolCall: {
        name: ask.toolName,
        title: `${ask.toolName}(${excerpt(input)})`,
        rawInput: input,
      },
      options: [
        { id: ALLOW, label: "Allow", kind: "allow_once" },
        { id: REJECT, label: "Reject", kind: "reject_once" },
      ],
    });
    const base = { type: "tool-approval-response" as const, approvalId: ask.approvalId };
    if (answer.outcome === "selected" && answer.optionId === ALLOW) {
      return { ...base, approved: true };
    }
    return {
      ...base,
      approved: false,
      reason: answer.outcome === "refused" ? answer.reason : "the user rejected the tool call",
    };
  }

  #progress(info: Omit<SubagentProgressInfo, "runId">): void {
    if (this.#settled) return;
    const scope = this.#plan.request.parent.scope;
    if (info.text === "" || !scope.hasListeners(subagentProgress)) return;
    scope.emit(
      subagentProgress,
      Object.freeze({ ...this.#plan.request.place, runId: this.id, ...info }),
    );
  }

  #settle(stopReason: SubagentStopReason, error?: SubagentFailure, structured?: JsonValue): void {
    if (this.#settled) return;
    const wasStarting = this.#state === "starting";
    this.#state = "settled";
    this.#unbindSignal();
    if (wasStarting) {
      this.#rejectStarted(
        new Error(`Cannot start the AI SDK agent run "${this.id}": it ended first`),
      );
    }
    // What still runs was aborted by cancel(); a run that ended by itself has no stream open.
    this.#inputs.cancelAll("the run ended");
    const output: ContentBlock[] = this.#output === ""
      ? []
      : [{ type: "text", text: this.#output }];
    this.#resolveResult({
      output,
      stopReason,
      ...(error && stopReason !== "completed" ? { error } : {}),
      ...(structured !== undefined ? { structured } : {}),
      usage: this.#usage.usage(),
    });
    this.#plan.onEnd(this);
  }
}

/** The text of a conversation that is one user message of text only, or undefined. */
function plainPrompt(messages: readonly ModelMessage[]): string | undefined {
  if (messages.length !== 1) return undefined;
  const [message] = messages;
  if (message.role !== "user" || typeof message.content === "string") return undefined;
  let text = "";
  for (const part of message.content) {
    if (part.type !== "text") return undefined;
    text += part.text;
  }
  return text;
}

function jsonOrString(value: unknown): JsonValue {
  try {
    return JSON.parse(JSON.stringify(value ?? null));
  } catch {
    return String(value);
  }
}

const EXCERPT = 2_000;

function excerpt(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
}
