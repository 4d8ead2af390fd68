import {
  type Agent,
  type AgentInputItem,
  extractAllTextOutput,
  MaxTurnsExceededError,
  ModelRefusalError,
  RunContext,
  Runner,
  type RunState,
  type RunStreamEvent,
  type RunToolApprovalItem,
  type StreamedRunResult,
} from "@openai/agents-core";
import { describe, isRecord, type JsonValue, textOf } from "@seam/host";
import type {
  OutputSchema,
  SubagentInputAnswer,
  SubagentPermissionOption,
  SubagentProvider,
  SubagentRequest,
  SubagentResultInput,
} from "@seam/subagent";
import {
  checkProviderOptions,
  createFrameworkProvider,
  type FrameworkRunContext,
} from "@seam/adapter-kit";
import { bindSeamParent } from "./_context.ts";

/** How {@linkcode createOpenAIAgentsProvider} runs an OpenAI Agents JS agent. */
export interface OpenAIAgentsProviderOptions {
  /** The provider's name. Default `"openai-agents"`. */
  readonly name?: string;
  /** The agent each run starts with (an `Agent` of `@openai/agents`). */
  readonly agent: unknown;
  /** The `Runner` that runs it. Default: a `new Runner()` of the agent's own package. */
  readonly runner?: unknown;
  /** The runs' turn limit (`maxTurns` of `Runner.run`); running past it ends `error` (`MAX_TURNS`). */
  readonly maxTurns?: number;
  /** The runs' context value (`RunContext.context`), the same object for every run. */
  readonly context?: unknown;
}

const OPTIONS = ["name", "agent", "runner", "maxTurns", "context"];

/** The choices of a tool approval, as seam permission options. */
const APPROVAL_OPTIONS: readonly SubagentPermissionOption[] = Object.freeze([
  { id: "approve", label: "Approve", kind: "allow_once" },
  { id: "approve-always", label: "Approve for the rest of the run", kind: "allow_always" },
  { id: "reject", label: "Reject", kind: "reject_once" },
  { id: "reject-always", label: "Reject for the rest of the run", kind: "reject_always" },
]);

/**
 * An OpenAI Agents JS agent as a seam provider. Each run is `Runner.run`
 * streamed: the prompt's text in; output text deltas as `subagent/progress`
 * (`text`), tool calls and outputs as `tool-call` / `tool-result`; usage
 * from the run state (tokens, cached tokens, model requests, tool calls);
 * cancel through the run's abort signal. A tool with `needsApproval` makes
 * the run stop with interruptions: each becomes a seam permission request
 * travelling up the tree, and the run resumes in place from its `RunState`
 * with the approvals and rejections given (a refusal rejects the call with
 * its reason).
 *
 * Start-time capabilities, each on a `clone()` of the agent for the run:
 * `outputSchema` (the agent's `outputType` set to the schema), `persona`
 * (put before its instructions), `toolFilter` (its tools by name), and
 * `depthLimit` and `budget` (model tokens and tool calls charged as they
 * happen). A last message the model left `incomplete` ends `max-tokens`, a
 * refusal `refusal`, the turn limit `error` with code `MAX_TURNS`.
 *
 * @throws {TypeError} naming the option for bad options (an `agent` that is
 * no `Agent`, a `runner` that is no `Runner`, unknown options).
 *
 * @example
 * ```ts
 * import { Agent } from "@openai/agents";
 * import { assistantMessage, ScriptedModel } from "@openai/agents-core/testing";
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createOpenAIAgentsProvider } from "@seam/openai-agents";
 * import assert from "node:assert/strict";
 *
 * const model = new ScriptedModel([[assistantMessage("Paris")]]);
 * const agent = new Agent({ name: "geo", instructions: "Answer briefly.", model });
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * subagents.registerProvider(createOpenAIAgentsProvider({ agent }));
 * const run = subagents.start("openai-agents", {
 *   prompt: "Capital of France?",
 *   parent: { id: "main", scope: root },
 * });
 * const result = await run.result;
 * assert.equal(result.stopReason, "completed");
 * assert.deepEqual(result.output, [{ type: "text", text: "Paris" }]);
 * await run.dispose();
 * await root.dispose();
 * ```
 */
export function createOpenAIAgentsProvider(options: OpenAIAgentsProviderOptions): SubagentProvider {
  const { name, fail, positiveInteger } = checkProviderOptions(
    "OpenAI Agents",
    options,
    OPTIONS,
    "openai-agents",
  );
  const { agent, runner = new Runner(), maxTurns, context } = options;
  // By shape, not instanceof: the application's copy of the framework may not be ours.
  if (
    !isRecord(agent) || typeof agent.name !== "string" || typeof agent.clone !== "function" ||
    !Array.isArray(agent.tools)
  ) {
    fail(`options.agent must be an Agent of @openai/agents, got ${describe(agent)}`);
  }
  if (!isRecord(runner) || typeof runner.run !== "function" || !isRecord(runner.config)) {
    fail(`options.runner must be a Runner of @openai/agents, got ${describe(runner)}`);
  }
  positiveInteger("maxTurns", maxTurns);
  const setup = {
    agent: agent as unknown as AnyAgent,
    runner: runner as unknown as Runner,
    maxTurns,
    context,
  };
  return createFrameworkProvider({
    name,
    framework: "OpenAI Agents",
    capabilities: {
      outputSchema: true,
      depthLimit: true,
      toolFilter: true,
      persona: true,
      budget: true,
    },
    drive: (run) => drive(run, setup),
  });
}

// deno-lint-ignore no-explicit-any
type AnyAgent = Agent<any, any>;

interface Setup {
  readonly agent: AnyAgent;
  readonly runner: Runner;
  readonly maxTurns: number | undefined;
  readonly context: unknown;
}

async function drive(run: FrameworkRunContext, setup: Setup): Promise<SubagentResultInput> {
  const agent = forRequest(setup.agent, run.request);
  const context = new RunContext(setup.context);
  bindSeamParent(context, run.child);
  let input: string | AgentInputItem[] | RunState<unknown, AnyAgent> = textOf(run.request.prompt);
  let stream: StreamedRunResult<unknown, AnyAgent>;
  try {
    for (;;) {
      stream = await setup.runner.run(agent, input, {
        stream: true,
        signal: run.signal,
        context,
        ...(setup.maxTurns !== undefined ? { maxTurns: setup.maxTurns } : {}),
      });
      for await (const event of stream) report(run, event);
      await stream.completed;
      if (stream.error) throw stream.error;
      const interruptions = stream.interruptions ?? [];
      if (interruptions.length === 0) break;
      for (const item of interruptions) decide(stream.state, item, await ask(run, item));
      run.signal.throwIfAborted();
      input = stream.state;
    }
  } catch (error) {
    if (error instanceof ModelRefusalError) {
      return {
        output: "",
        stopReason: "refusal",
        error: { code: "REFUSAL", message: error.message },
      };
    }
    if (error instanceof MaxTurnsExceededError) {
      return {
        output: "",
        stopReason: "error",
        error: {
          code: "MAX_TURNS",
          message: `The agent ran past its turn limit: ${error.message}`,
        },
      };
    }
    throw error;
  }
  return resultOf(stream, run.request.outputSchema);
}

/** The agent for one run: the request's start-time fields applied on a clone. */
function forRequest(agent: AnyAgent, request: SubagentRequest): AnyAgent {
  const { outputSchema, persona, toolFilter } = request;
  if (outputSchema === undefined && persona === undefined && toolFilter === undefined) {
    return agent;
  }
  const instructions = agent.instructions;
  return agent.clone({
    ...(outputSchema !== undefined
      ? {
        outputType: {
          type: "json_schema",
          name: "result",
          strict: false,
          schema: outputSchema as never,
        },
      }
      : {}),
    ...(persona !== undefined
      ? {
        instructions: typeof instructions === "string"
          ? `${persona}\n\n${instructions}`
          : async (context: RunContext<unknown>, self: AnyAgent) =>
            `${persona}\n\n${await instructions(context, self)}`,
      }
      : {}),
    ...(toolFilter !== undefined
      ? {
        tools: agent.tools.filter((tool) =>
          (toolFilter.allow === undefined || toolFilter.allow.includes(tool.name)) &&
          !(toolFilter.deny ?? []).includes(tool.name)
        ),
      }
      : {}),
  });
}

function report(run: FrameworkRunContext, event: RunStreamEvent): void {
  if (event.type === "raw_model_stream_event") {
    const data = event.data;
    if (data.type === "output_text_delta") run.text(data.delta);
    else if (data.type === "response_done") {
      const usage = data.response.usage;
      run.charge({ inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
    }
    return;
  }
  if (event.type !== "run_item_stream_event") return;
  const raw = event.item.rawItem as { name?: unknown; callId?: unknown };
  const name = typeof raw.name === "string" ? raw.name : undefined;
  const callId = typeof raw.callId === "string" ? raw.callId : undefined;
  const call = { ...(name ? { name } : {}), ...(callId ? { callId } : {}) };
  if (event.name === "tool_called") {
    run.charge({ toolCalls: 1 });
    run.progress({ kind: "tool-call", ...call });
  } else if (event.name === "tool_output") {
    const output = (event.item as { output?: unknown }).output;
    run.progress({
      kind: "tool-result",
      ...call,
      ...(typeof output === "string" ? { text: output } : {}),
    });
  }
}

function ask(run: FrameworkRunContext, item: RunToolApprovalItem): Promise<SubagentInputAnswer> {
  const name = item.name ?? item.toolName ?? "tool";
  let rawInput: JsonValue | undefined;
  try {
    rawInput = item.arguments === undefined ? undefined : JSON.parse(item.arguments);
  } catch {
    rawInput = item.arguments;
  }
  return run.ask({
    kind: "permission",
    message: `The OpenAI Agents agent "${item.agent.name}" wants to call tool "${name}"`,
    toolCall: { name, title: `Call ${name}`, ...(rawInput !== undefined ? { rawInput } : {}) },
    options: APPROVAL_OPTIONS,
  });
}

function decide(
  state: RunState<unknown, AnyAgent>,
  item: RunToolApprovalItem,
  answer: SubagentInputAnswer,
): void {
  if (answer.outcome === "selected" && answer.optionId.startsWith("approve")) {
    state.approve(item, { alwaysApprove: answer.optionId === "approve-always" });
  } else if (answer.outcome === "selected") {
    state.reject(item, { alwaysReject: answer.optionId === "reject-always" });
  } else {
    state.reject(item, { message: answer.outcome === "refused" ? answer.reason : answer.text });
  }
}

function resultOf(
  stream: StreamedRunResult<unknown, AnyAgent>,
  outputSchema: OutputSchema | undefined,
): SubagentResultInput {
  const messages = stream.newItems.filter((item) => item.type === "message_output_item");
  const last = messages.at(-1);
  const output = last ? extractAllTextOutput([last]) : "";
  const usage = stream.state.usage;
  const cached = usage.inputTokensDetails.reduce((n, d) => n + (d.cached_tokens ?? 0), 0);
  const toolCalls = stream.newItems.filter((item) => item.type === "tool_call_item").length;
  const result = {
    output,
    usage: {
      self: {
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        cachedInputTokens: cached,
        modelCalls: usage.requests,
        toolCalls,
      },
    },
  };
  if ((last?.rawItem as { status?: string } | undefined)?.status === "incomplete") {
    return { ...result, stopReason: "max-tokens" };
  }
  if (outputSchema === undefined) return { ...result, stopReason: "completed" };
  const final: unknown = stream.finalOutput;
  let structured: unknown = final;
  if (typeof final === "string") {
    try {
      structured = JSON.parse(final);
    } catch {
      structured = undefined;
    }
  }
  if (!isRecord(structured)) {
    return {
      ...result,
      stopReason: "error",
      error: {
        code: "NO_STRUCTURED_RESULT",
        message: "The agent's final output is no JSON object matching the requested schema",
      },
    };
  }
  return { ...result, structured: structured as JsonValue, stopReason: "completed" };
}
