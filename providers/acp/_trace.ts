/**
 * W3C trace context over ACP: the client side puts the run's context in the
 * `_meta` of `session/new` and `session/prompt` (`traceparent`,
 * `tracestate`, as the application's propagator writes them); the server
 * side reads it back and opens the prompt's span under it. Through
 * `@opentelemetry/api` only; nothing without a registered tracer provider
 * (and nothing travels without a registered propagator).
 */
import {
  type Context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { activeTracer as tracerOf } from "@seam/host";

const NAME = "@seam/subagent-acp";
const VERSION = "0.1.0";

/** This package's tracer, once the application registered a tracer provider. */
const activeTracer = (): Tracer | undefined => tracerOf(NAME, VERSION) as Tracer | undefined;

/** The `_meta` carrying a run's trace context, or `undefined` when there is nothing to carry. */
export function traceMeta(traceContext: unknown): Record<string, string> | undefined {
  if (traceContext === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(traceContext as Context, carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

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
  const tracer = activeTracer();
  if (!tracer) return undefined;
  const parent = meta !== null && typeof meta === "object" && !Array.isArray(meta)
    ? propagation.extract(ROOT_CONTEXT, meta as Record<string, unknown>, metaGetter)
    : ROOT_CONTEXT;
  const span = tracer.startSpan(`invoke_agent ${agentName}`, {
    kind: SpanKind.SERVER,
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
  }, parent);
  return { span, context: trace.setSpan(parent, span) };
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
    traced.span.setAttribute("error.type", "_OTHER");
    traced.span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  }
  traced.span.end();
}

/** Whether a tracer provider is registered now. */
export function isTracing(): boolean {
  return activeTracer() !== undefined;
}
