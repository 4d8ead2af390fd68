/**
 * Model-call spans (`chat {model}`, OpenTelemetry GenAI conventions) through
 * `@opentelemetry/api` only. Without a registered tracer provider the check
 * below is one global read and nothing else runs.
 */
import {
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from "@opentelemetry/api";
import type { Scope } from "./scope.ts";
import { activeTracer as tracerOf, traceParentKey } from "./trace.ts";

const NAME = "@seam/host";
const VERSION = "0.1.0";

/** The context a span started for `scope`'s agents takes as parent. */
export function parentContextOf(scope: Scope): Context {
  const parent = scope.inject(traceParentKey)?.context as Context | undefined;
  return parent ?? context.active();
}

/** Start the span of one model call, or nothing when no tracer is registered. */
export function startModelSpan(scope: Scope, model: string, adapter: string): Span | undefined {
  const tracer = tracerOf(NAME, VERSION) as Tracer | undefined;
  if (!tracer) return undefined;
  return tracer.startSpan(`chat ${model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": adapter,
      "gen_ai.request.model": model,
    },
  }, parentContextOf(scope));
}

/** End a model call's span: its finish reason and token counts, or the failure. */
export function endModelSpan(
  span: Span,
  reason: string | undefined,
  usage: unknown,
  error?: string,
): void {
  if (reason !== undefined) span.setAttribute("gen_ai.response.finish_reasons", [reason]);
  if (usage !== null && typeof usage === "object") {
    const { inputTokens, outputTokens, cachedInputTokens } = usage as Record<string, unknown>;
    if (typeof inputTokens === "number") {
      span.setAttribute("gen_ai.usage.input_tokens", inputTokens);
    }
    if (typeof outputTokens === "number") {
      span.setAttribute("gen_ai.usage.output_tokens", outputTokens);
    }
    if (typeof cachedInputTokens === "number") {
      span.setAttribute("gen_ai.usage.cache_read.input_tokens", cachedInputTokens);
    }
  }
  if (error !== undefined) {
    span.setAttribute("error.type", "model_error");
    span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  }
  span.end();
}
