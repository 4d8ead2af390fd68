import { RequestContext } from "@mastra/core/request-context";
import { describe, isRecord, type JsonValue, textOf } from "@seam/host";
import type {
  SubagentInputAnswer,
  SubagentPermissionOption,
  SubagentProvider,
  SubagentResultInput,
  SubagentStopReason,
} from "@seam/subagent";
import {
  checkProviderOptions,
  createFrameworkProvider,
  type FrameworkRunContext,
  questionOf,
} from "@seam/adapter-kit";
import { SEAM_PARENT } from "./_context.ts";

/** How {@linkcode createMastraProvider} runs a Mastra agent. */
export interface MastraProviderOptions {
  /** The provider's name. Default `"mastra"`. */
  readonly name?: string;
  /**
   * The agent (an `Agent` of `@mastra/core/agent`). For tool approvals and
   * suspended tools to resume, register it in a `Mastra` with storage.
   */
  readonly agent: unknown;
  /** The runs' step limit (`maxSteps` of `agent.stream`). */
  readonly maxSteps?: number;
}

const OPTIONS = ["name", "agent", "maxSteps"];

const APPROVAL_OPTIONS: readonly SubagentPermissionOption[] = Object.freeze([
  { id: "approve", label: "Approve", kind: "allow_once" },
  { id: "decline", label: "Decline", kind: "reject_once" },
]);

/** A Mastra agent, as far as the mapping drives it. */
interface MastraAgent {
  readonly name: string;
  stream(prompt: unknown, options: Record<string, unknown>): Promise<Output>;
  approveToolCall(options: Record<string, unknown>): Promise<Output>;
  declineToolCall(options: Record<string, unknown>): Promise<Output>;
  resumeStream(data: unknown, options: Record<string, unknown>): Promise<Output>;
  listTools(options?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** A Mastra agent's stream (`MastraModelOutput`), as far as the mapping reads it. */
interface Output {
  readonly runId: string;
  readonly fullStream: AsyncIterable<{ type: string; payload?: Record<string, unknown> }>;
  readonly text: Promise<string>;
  readonly finishReason: Promise<string | undefined>;
  readonly usage: Promise<Record<string, number | undefined>>;
  readonly object: Promise<unknown>;
}

/** A tool call the run stopped for. */
interface Pause {
  readonly kind: "approval" | "suspended";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly args?: unknown;
  readonly payload?: unknown;
}

/**
 * A Mastra agent as a seam provider. Each run is `agent.stream()`: text
 * deltas become `subagent/progress` (`text`), tool calls and results
 * `tool-call` / `tool-result`; usage is the stream's (input, output and
 * cached tokens; model calls are its steps; tool calls counted); cancel
 * aborts its `abortSignal`. A tool call that needs approval
 * (`requireApproval`, `requireToolApproval`) becomes a seam permission
 * request, resumed in place with `approveToolCall` or `declineToolCall` (a
 * refusal declines with its reason); a tool that calls `suspend()` becomes a
 * question (its payload's `message` or `question`, else its JSON), resumed
 * with `resumeStream` and the answer (parsed as JSON when it is JSON, else
 * the text; a refused one ends `error`, `INPUT_REQUIRED`).
 *
 * Start-time capabilities: `outputSchema` (Mastra's `structuredOutput`; the
 * result's `structured` is its `object`), `persona` (a system message for
 * the run), `toolFilter` (`activeTools`), `depthLimit` and `budget` (tokens
 * charged per stream, tool calls as they come). A finish for `length` ends
 * `max-tokens`, `content-filter` `refusal`, an error chunk `error`.
 *
 * @throws {TypeError} naming the option for bad options (an `agent` that is
 * no Mastra `Agent`, unknown options).
 *
 * @example
 * ```ts
 * import { Agent } from "@mastra/core/agent";
 * import { createMockModel } from "@mastra/core/test-utils/llm-mock";
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createMastraProvider } from "@seam/mastra";
 * import assert from "node:assert/strict";
 *
 * const agent = new Agent({
 *   id: "geo",
 *   name: "geo",
 *   instructions: "Answer briefly.",
 *   model: createMockModel({ mockText: "Paris", version: "v2" }),
 * });
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * subagents.registerProvider(createMastraProvider({ agent }));
 * const run = subagents.start("mastra", {
 *   prompt: "Capital of France?",
 *   parent: { id: "main", scope: root },
 * });
 * assert.deepEqual((await run.result).output, [{ type: "text", text: "Paris" }]);
 * await run.dispose();
 * await root.dispose();
 * ```
 */
export function createMastraProvider(options: MastraProviderOptions): SubagentProvider {
  const { name, fail, positiveInteger } = checkProviderOptions(
    "Mastra",
    options,
    OPTIONS,
    "mastra",
  );
  const { agent, maxSteps } = options;
  // By shape, not instanceof: the application's copy of Mastra may not be ours.
  if (
    !isRecord(agent) || typeof agent.name !== "string" || typeof agent.stream !== "function" ||
    typeof agent.approveToolCall !== "function" || typeof agent.resumeStream !== "function"
  ) {
    fail(`options.agent must be an Agent of @mastra/core, got ${describe(agent)}`);
  }
  positiveInteger("maxSteps", maxSteps);
  const mastra = agent as unknown as MastraAgent;
  return createFrameworkProvider({
    name,
    framework: "Mastra",
    capabilities: {
      outputSchema: true,
      depthLimit: true,
      toolFilter: true,
      persona: true,
      budget: true,
    },
    drive: (run) => drive(run, mastra, maxSteps),
  });
}

async function drive(
  run: FrameworkRunContext,
  agent: MastraAgent,
  maxSteps: number | undefined,
): Promise<SubagentResultInput> {
  const { request } = run;
  const requestContext = new RequestContext();
  requestContext.set(SEAM_PARENT, run.child);
  const common: Record<string, unknown> = {
    abortSignal: run.signal,
    requestContext,
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(request.persona !== undefined ? { system: request.persona } : {}),
    ...(request.outputSchema !== undefined
      ? { structuredOutput: { schema: request.outputSchema } }
      : {}),
  };
  if (request.toolFilter !== undefined) {
    const { allow, deny = [] } = request.toolFilter;
    const names = Object.keys(await agent.listTools({ requestContext }));
    common.activeTools = names.filter((n) => (!allow || allow.includes(n)) && !deny.includes(n));
  }
  const tally = { modelCalls: 0, toolCalls: 0, charged: { input: 0, output: 0 } };
  let output = await agent.stream(textOf(request.prompt), common);
  for (;;) {
    let pause: Pause | undefined;
    let failure: unknown;
    for await (const chunk of output.fullStream) {
      const p = chunk.payload ?? {};
      const call = {
        ...(typeof p.toolName === "string" ? { name: p.toolName } : {}),
        ...(typeof p.toolCallId === "string" ? { callId: p.toolCallId } : {}),
      };
      if (chunk.type === "text-delta" && typeof p.text === "string") run.text(p.text);
      else if (chunk.type === "step-finish") tally.modelCalls++;
      else if (chunk.type === "tool-call") {
        tally.toolCalls++;
        run.charge({ toolCalls: 1 });
        run.progress({ kind: "tool-call", ...call });
      } else if (chunk.type === "tool-result") {
        const text = typeof p.result === "string" ? p.result : JSON.stringify(p.result);
        run.progress({ kind: "tool-result", ...call, ...(text ? { text } : {}) });
      } else if (chunk.type === "tool-call-approval" || chunk.type === "tool-call-suspended") {
        pause ??= {
          kind: chunk.type === "tool-call-approval" ? "approval" : "suspended",
          toolCallId: String(p.toolCallId),
          toolName: String(p.toolName),
          args: p.args,
          payload: p.suspendPayload,
        };
      } else if (chunk.type === "error") failure ??= p.error ?? new Error("the stream failed");
    }
    if (failure !== undefined) throw failure;
    const usage = await output.usage;
    const input = usage.inputTokens ?? 0, out = usage.outputTokens ?? 0;
    run.charge({
      inputTokens: input - tally.charged.input,
      outputTokens: out - tally.charged.output,
    });
    tally.charged = { input, output: out };
    if (pause === undefined) break;
    const answer = await run.ask(askOf(agent, pause));
    run.signal.throwIfAborted();
    const resume = { ...common, runId: output.runId, toolCallId: pause.toolCallId };
    if (pause.kind === "approval") {
      output = answer.outcome === "selected" && answer.optionId === "approve"
        ? await agent.approveToolCall(resume)
        : await agent.declineToolCall({
          ...resume,
          ...(answer.outcome === "refused" ? { reason: answer.reason } : {}),
        });
    } else if (answer.outcome === "answered") {
      output = await agent.resumeStream(parsed(answer), resume);
    } else {
      return {
        output: "",
        stopReason: "error",
        error: {
          code: "INPUT_REQUIRED",
          message: `Tool "${pause.toolName}" suspended for input and got none${
            answer.outcome === "refused" ? `: ${answer.reason}` : ""
          }`,
        },
      };
    }
  }
  return await resultOf(output, tally, request.outputSchema !== undefined);
}

function askOf(agent: MastraAgent, pause: Pause) {
  if (pause.kind === "approval") {
    return {
      kind: "permission" as const,
      message: `The Mastra agent "${agent.name}" wants to call tool "${pause.toolName}"`,
      toolCall: {
        name: pause.toolName,
        title: `Call ${pause.toolName}`,
        ...(pause.args !== undefined ? { rawInput: pause.args as JsonValue } : {}),
      },
      options: APPROVAL_OPTIONS,
    };
  }
  return questionOf(
    pause.payload,
    ["message", "question"],
    () => `Tool "${pause.toolName}" asks: ${JSON.stringify(pause.payload) ?? "(no payload)"}`,
  );
}

/** The resume data of an answer: its JSON when it is JSON, else its text. */
function parsed(answer: SubagentInputAnswer & { outcome: "answered" }): unknown {
  try {
    return JSON.parse(answer.text);
  } catch {
    return answer.text;
  }
}

const STOP: Readonly<Record<string, SubagentStopReason>> = {
  length: "max-tokens",
  "content-filter": "refusal",
};

async function resultOf(
  output: Output,
  tally: { modelCalls: number; toolCalls: number },
  structured: boolean,
): Promise<SubagentResultInput> {
  const [text, finishReason, usage] = await Promise.all([
    output.text,
    output.finishReason,
    output.usage,
  ]);
  const result = {
    output: text ?? "",
    usage: {
      self: {
        inputTokens: usage.inputTokens ?? 0,
        outputTokens: usage.outputTokens ?? 0,
        cachedInputTokens: usage.cachedInputTokens ?? 0,
        modelCalls: tally.modelCalls,
        toolCalls: tally.toolCalls,
      },
      partial: usage.inputTokens === undefined,
    },
  };
  const stop = STOP[finishReason ?? ""];
  if (stop) return { ...result, stopReason: stop };
  if (!structured) return { ...result, stopReason: "completed" };
  const object = await output.object;
  if (!isRecord(object)) {
    return {
      ...result,
      stopReason: "error",
      error: { code: "NO_STRUCTURED_RESULT", message: "The agent gave no structured output" },
    };
  }
  return { ...result, structured: object as JsonValue, stopReason: "completed" };
}
