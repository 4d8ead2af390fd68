/**
 * The `invoke_agent` span of a run (OpenTelemetry GenAI conventions), through
 * `@opentelemetry/api` only. With no tracer provider registered, a start
 * costs one global read (`activeTracer`) and nothing is recorded or copied.
 */
import type { Context, Span } from "@opentelemetry/api";
import { activeTracer, failSpan, type Scope, SEAM_VERSION, startSpan } from "@seam/host";
import type { SubagentResult, SubagentRun, SubagentRunPlace } from "./types.ts";

const NAME = "@seam/subagent";

/** The parent set by `startRunsUnder` for the runs started synchronously inside it. */
export type PendingParent = unknown;
export const pendingParent: { context: PendingParent } = { context: undefined };

/**
 * `fn()` with `context` as the pending parent; `undefined` calls it outside
 * any `startRunsUnder` (a provider's `start` or `resume`: a run it starts
 * synchronously in turn does not take this run's parent; the provider names
 * the run with `startRunsUnder(request.traceContext, …)`).
 */
export function underParent<T>(context: PendingParent, fn: () => T): T {
  const outer = pendingParent.context;
  pendingParent.context = context;
  try {
    return fn();
  } finally {
    pendingParent.context = outer;
  }
}

/** A run's span and the context its provider hands on (headers, `_meta`, a child's scope). */
export interface RunSpan {
  readonly span: Span;
  readonly context: Context;
}

/**
 * Start the span of a run about to start, or nothing without a tracer. Its
 * parent: `startRunsUnder`'s, else the parent scope's `TraceParent`, else
 * the api's active context.
 */
export function startRunSpan(
  place: SubagentRunPlace,
  parentScope: Scope,
  model: string | undefined,
): RunSpan | undefined {
  const tracer = activeTracer(NAME, SEAM_VERSION);
  if (tracer === undefined) return undefined;
  const attributes: Record<string, string | number> = {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.provider.name": "seam",
    "gen_ai.agent.name": place.provider,
    "seam.provider": place.provider,
    "seam.run.depth": place.depth,
  };
  if (place.parentRunId !== undefined) attributes["seam.run.parent_id"] = place.parentRunId;
  if (place.label !== undefined) attributes["seam.run.label"] = place.label;
  if (model !== undefined) attributes["gen_ai.request.model"] = model;
  return startSpan(tracer, {
    name: `invoke_agent ${place.provider}`,
    kind: "internal",
    attributes,
    // startRunsUnder's parent, else the parent scope's TraceParent, else the active context.
    parent: pendingParent.context,
    scope: parentScope,
  }) as RunSpan;
}

/** Record the run's id now, and its end (usage, stop reason, failure) once it settles. */
export function traceRun(traced: RunSpan, run: SubagentRun): void {
  const { span } = traced;
  span.setAttribute("gen_ai.agent.id", run.id);
  span.setAttribute("seam.run.id", run.id);
  run.result.then((result) => endRunSpan(span, result), (error) => failRunSpan(span, error));
}

function endRunSpan(span: Span, result: SubagentResult): void {
  span.setAttribute("seam.stop_reason", result.stopReason);
  const usage = result.usage;
  if (usage) {
    span.setAttributes({
      "gen_ai.usage.input_tokens": usage.self.inputTokens,
      "gen_ai.usage.output_tokens": usage.self.outputTokens,
      "gen_ai.usage.cache_read.input_tokens": usage.self.cachedInputTokens,
      "seam.usage.model_calls": usage.self.modelCalls,
      "seam.usage.tool_calls": usage.self.toolCalls,
      "seam.usage.total.input_tokens": usage.total.inputTokens,
      "seam.usage.total.output_tokens": usage.total.outputTokens,
      "seam.usage.partial": usage.partial,
    });
  }
  if (result.stopReason === "error") {
    failSpan(span, result.error?.code ?? "error", result.error?.message);
  }
  span.end();
}

/** End a run's span for a fault: the run never started, or its result rejected. */
export function failRunSpan(span: Span, error: unknown): void {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  failSpan(
    span,
    typeof code === "string" ? code : "PROVIDER_FAULT",
    error instanceof Error ? error.message : String(error),
  );
  span.end();
}
