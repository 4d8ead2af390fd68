/**
 * W3C trace context over ACP: the client side puts the run's context in the
 * `_meta` of `session/new` and `session/prompt` (`traceparent`,
 * `tracestate`, as the application's propagator writes them); the server
 * side reads it back and opens the prompt's span under it. Through
 * `@opentelemetry/api` only; nothing without a registered tracer provider
 * (and nothing travels without a registered propagator).
 */
import { type Context, propagation, ROOT_CONTEXT, type Span } from "@opentelemetry/api";
import { activeTracer, failSpan, SEAM_VERSION, startSpan, traceCarrier } from "@seam/host";

const NAME = "@seam/subagent-acp";

/** The `_meta` carrying a run's trace context, or `undefined` when there is nothing to carry. */
export const traceMeta: (traceContext: unknown) => Record<string, string> | undefined =
  traceCarrier;

const metaGetter = {
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
};

/** A prompt's span and the context its agent's spans hang under. */
export interface PromptSpan {
  readonly span: Span;
  readonly context: Context;
}

/**
 * Open the span of one `session/prompt` under the trace context its
 * `_meta` carries, or nothing without a tracer.
 */
export function startPromptSpan(
  meta: unknown,
  agentName: string,
  sessionId: string,
  model: string,
): PromptSpan | undefined {
  const tracer = activeTracer(NAME, SEAM_VERSION);
  if (tracer === undefined) return undefined;
  const parent = meta !== null && typeof meta === "object" && !Array.isArray(meta)
    ? propagation.extract(ROOT_CONTEXT, meta as Record<string, unknown>, metaGetter)
    : ROOT_CONTEXT;
  return startSpan(tracer, {
    name: `invoke_agent ${agentName}`,
    kind: "server",
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "seam",
      "gen_ai.agent.name": agentName,
      "gen_ai.agent.id": sessionId,
      "gen_ai.conversation.id": sessionId,
      "gen_ai.request.model": model,
      "rpc.system": "jsonrpc",
      "rpc.method": "session/prompt",
    },
    parent,
  }) as PromptSpan;
}

/** End a prompt's span with the stop reason it answers, or the failure. */
export function endPromptSpan(
  traced: PromptSpan,
  stopReason: string | undefined,
  error?: unknown,
): void {
  if (stopReason !== undefined) {
    traced.span.setAttribute("gen_ai.response.finish_reasons", [stopReason]);
  }
  if (error !== undefined) {
    failSpan(traced.span, "_OTHER", error instanceof Error ? error.message : String(error));
  }
  traced.span.end();
}

/** Whether a tracer provider is registered now. */
export function isTracing(): boolean {
  return activeTracer(NAME, SEAM_VERSION) !== undefined;
}
