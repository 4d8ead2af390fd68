/**
 * The `execute_tool` span of a `subagent` tool call (OpenTelemetry GenAI
 * conventions), through `@opentelemetry/api` only; nothing without a
 * registered tracer provider.
 */
import {
  type Context,
  context as otelContext,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { activeTracer as tracerOf, type Scope, type ToolResult, traceParentKey } from "@seam/host";

const NAME = "@seam/tool-subagent";
const VERSION = "0.1.0";

/** This package's tracer, once the application registered a tracer provider. */
const activeTracer = (): Tracer | undefined => tracerOf(NAME, VERSION) as Tracer | undefined;

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
  const tracer = activeTracer();
  if (!tracer) return undefined;
  const parent = (scope.inject(traceParentKey)?.context ?? otelContext.active()) as Context;
  const span = tracer.startSpan(`execute_tool ${toolName}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": toolName,
      "gen_ai.tool.call.id": callId,
      "gen_ai.tool.type": "function",
      "seam.provider": provider,
    },
  }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** End a tool call's span with what the model sees. */
export function endToolSpan(traced: ToolSpan, result: ToolResult): void {
  if (result.isError) {
    traced.span.setAttribute("error.type", "tool_error");
    traced.span.setStatus({
      code: SpanStatusCode.ERROR,
      message: typeof result.content === "string" ? result.content.slice(0, 200) : undefined,
    });
  }
  traced.span.end();
}
