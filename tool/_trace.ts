/**
 * The `execute_tool` span of a `subagent` tool call (OpenTelemetry GenAI
 * conventions), opened with `@seam/host`'s `startSpan`; nothing without a
 * registered tracer provider.
 */
import type { Context, Span } from "@opentelemetry/api";
import {
  activeTracer,
  failSpan,
  type Scope,
  SEAM_VERSION,
  startSpan,
  type ToolResult,
} from "@seam/host";

const NAME = "@seam/tool-subagent";

/** A tool call's span and the context the run it starts hangs under. */
export interface ToolSpan {
  readonly span: Span;
  readonly context: Context;
}

/** Start the span of a call by the agent of `scope`, or nothing without a tracer. */
export function startToolSpan(
  scope: Scope,
  toolName: string,
  callId: string,
  provider: string,
): ToolSpan | undefined {
  const tracer = activeTracer(NAME, SEAM_VERSION);
  if (tracer === undefined) return undefined;
  return startSpan(tracer, {
    name: `execute_tool ${toolName}`,
    kind: "internal",
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": toolName,
      "gen_ai.tool.call.id": callId,
      "gen_ai.tool.type": "function",
      "seam.provider": provider,
    },
    scope,
  }) as ToolSpan;
}

/** End a tool call's span with what the model sees. */
export function endToolSpan(traced: ToolSpan, result: ToolResult): void {
  if (result.isError) {
    failSpan(
      traced.span,
      "tool_error",
      typeof result.content === "string" ? result.content.slice(0, 200) : undefined,
    );
  }
  traced.span.end();
}
