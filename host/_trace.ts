/**
 * Model-call spans (`chat {model}`, OpenTelemetry GenAI conventions) through
 * `@opentelemetry/api` only, opened with the public `startSpan`. Without a
 * registered tracer provider the check is one global read and nothing else runs.
 */
import type { Span } from "@opentelemetry/api";
import type { Scope } from "./scope.ts";
import { activeTracer, failSpan, startSpan } from "./trace.ts";
import { SEAM_VERSION } from "./version.ts";

const NAME = "@seam/host";

/** Start the span of one model call, or nothing when no tracer is registered. */
export function startModelSpan(scope: Scope, model: string, adapter: string): Span | undefined {
  const tracer = activeTracer(NAME, SEAM_VERSION);
  if (tracer === undefined) return undefined;
  return startSpan(tracer, {
    name: `chat ${model}`,
    kind: "client",
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": adapter,
      "gen_ai.request.model": model,
    },
    scope,
  }).span as Span;
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
  if (error !== undefined) failSpan(span, "model_error", error);
  span.end();
}
