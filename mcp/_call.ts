/**
 * One `tools/call`: check the arguments, start the child under a scope of
 * the call's own (its input handler and progress listener live there, so a
 * request from any depth below reaches this call and no other), stream its
 * text as progress, and turn its result into a tool result. Ending the call
 * (its cancellation, or the connection going away) cancels the run, and
 * disposing the call's scope ends the whole subtree.
 */
import type { AgentRef, JsonValue, Scope } from "@seam/host";
import {
  handleSubagentInput,
  startRunsUnder,
  type SubagentAgentOptions,
  type SubagentInputAnswer,
  type SubagentInputRequest,
  subagentProgress,
  type SubagentResult,
  type SubagentRun,
  type SubagentService,
} from "@seam/subagent";
import { subagentResultToToolResult } from "@seam/tool-subagent";
import { asObject, type McpBlock, toMcpBlock } from "./_content.ts";
import { NO_ELICITATION } from "./_elicit.ts";
import { ProgressStream } from "./_progress.ts";
import type { ToolEntry } from "./_tools.ts";

/** What a tool call answers (an MCP `CallToolResult`). */
/** How long a call's last progress may take to go out before its result does, in ms. */
const FLUSH_MS = 5_000;

export interface ToolCallResult {
  content: McpBlock[];
  structuredContent?: Record<string, JsonValue>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What the call needs from its connection and server. */
export interface CallContext {
  readonly subagents: SubagentService;
  readonly scope: Scope;
  readonly parentId: string;
  readonly agentOptions: SubagentAgentOptions | undefined;
  readonly signal: AbortSignal;
  /** Send a progress notification (absent: the client sent no progress token). */
  readonly progress?: (progress: number, message: string) => Promise<void>;
  readonly maxProgressChars: number;
  /** Ask the client (absent: it did not declare elicitation). */
  readonly elicit?: (
    request: SubagentInputRequest,
    signal: AbortSignal,
  ) => Promise<SubagentInputAnswer>;
  /** The caller's trace context (from the request's `_meta`): the run continues it. */
  readonly trace?: unknown;
  /** Called once the run exists, with how to end it. */
  readonly started?: (run: SubagentRun) => void;
}

/** The checked arguments of a call. */
export interface CallArguments {
  readonly description: string;
  readonly prompt: string;
  readonly outputSchema?: Record<string, JsonValue>;
}

/** A tool result that says a call could not run, with its code in `_meta`. */
export function refusal(code: string, message: string): ToolCallResult {
  return {
    content: [{ type: "text", text: message }],
    isError: true,
    _meta: { "seam/error": { code, message } },
  };
}

/** Run one call to the end. Never throws for what the child did. */
export async function runCall(
  entry: ToolEntry,
  args: CallArguments,
  context: CallContext,
): Promise<ToolCallResult> {
  const scope = context.scope.child("mcp-call");
  let run: SubagentRun | undefined;
  let progress: ProgressStream | undefined;
  let onStarted: ((runId: string) => void) | undefined;
  try {
    const parent: AgentRef = { id: context.parentId, scope };
    if (context.progress) {
      const stream = progress = new ProgressStream(context.progress, context.maxProgressChars);
      // A provider may stream before `start` returned the run's id: that text waits for it.
      let early: { runId: string; text: string }[] | undefined = [];
      let earlyChars = 0;
      scope.on(subagentProgress, (info) => {
        if (info.kind !== "text" || typeof info.text !== "string") return;
        if (run === undefined) {
          if (early && (earlyChars += info.text.length) <= context.maxProgressChars) {
            early.push({ runId: info.runId, text: info.text });
          }
        } else if (info.runId === run.id) stream.push(info.text);
      });
      onStarted = (id) => {
        for (const item of early ?? []) if (item.runId === id) stream.push(item.text);
        early = undefined;
      };
    }
    const elicit = context.elicit;
    handleSubagentInput(
      scope,
      (request, { signal }) =>
        elicit ? elicit(request, signal) : { outcome: "refused", reason: NO_ELICITATION },
    );
    try {
      const request = {
        prompt: args.prompt,
        parent,
        signal: context.signal,
        label: args.description,
        ...(context.agentOptions ? { agentOptions: context.agentOptions } : {}),
        ...(args.outputSchema ? { outputSchema: args.outputSchema } : {}),
      };
      run = startRunsUnder(context.trace, () => context.subagents.start(entry.provider, request));
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      return refusal(
        typeof code === "string" ? code : "START_FAILED",
        `Cannot start the subagent: ${(error as Error)?.message ?? String(error)}`,
      );
    }
    onStarted?.(run.id);
    context.started?.(run);
    let result: SubagentResult;
    try {
      result = await run.result;
    } catch (error) {
      return refusal(
        "PROVIDER_FAULT",
        `The subagent's provider failed: ${(error as Error).message}`,
      );
    }
    // The last text streamed goes out before the result (unless the call was cancelled).
    if (!context.signal.aborted) await progress?.finish(FLUSH_MS);
    return toToolResult(result, args.outputSchema !== undefined);
  } finally {
    progress?.close();
    await run?.dispose();
    await scope.dispose();
  }
}

/** A seam result as an MCP tool result. */
export function toToolResult(result: SubagentResult, structured: boolean): ToolCallResult {
  const meta: Record<string, unknown> = { "seam/stopReason": result.stopReason };
  if (result.usage) meta["seam/usage"] = result.usage;
  if (result.error) meta["seam/error"] = result.error;
  if (result.stopReason !== "completed") {
    const text = subagentResultToToolResult(result).content as string;
    return { content: [{ type: "text", text }], isError: true, _meta: meta };
  }
  const content = result.output.map(toMcpBlock);
  const value = structured ? asObject(result.structured) : undefined;
  if (value !== undefined) {
    // Structured results are also given as text, for clients that read only content.
    content.push({ type: "text", text: JSON.stringify(value) });
    return { content, structuredContent: value, _meta: meta };
  }
  if (content.length === 0) {
    content.push({ type: "text", text: "(the subagent finished without any output)" });
  }
  return { content, _meta: meta };
}
