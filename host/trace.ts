import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from "@opentelemetry/api";
import { defineService, type ServiceKey } from "./scope.ts";
import { ROOT_CONTEXT } from "@opentelemetry/api";
import { activeContext, registered, withSpan } from "./_otel_global.ts";

/**
 * Where the spans of a scope's agents hang in an OpenTelemetry trace: the
 * `@opentelemetry/api` `Context` their model calls, tool calls and runs
 * take as parent. A provider of `@seam/subagent` provides it on each child's
 * scope (the run's `invoke_agent` span), the gateway on each task's scope
 * (its server span), the ACP server on each session's (the prompt's span).
 * Without one, spans take the api's active context.
 *
 * Nothing is recorded unless the application registered a tracer provider
 * with `@opentelemetry/api`; this is only where spans would go.
 */
export interface TraceParent {
  /**
   * An `@opentelemetry/api` `Context` (typed `unknown` so the api's types
   * stay out of this package's signatures). Read each time a span starts,
   * so a getter may return a changing one.
   */
  readonly context: unknown;
}

/** The service key under which a scope provides its {@linkcode TraceParent}. */
export const traceParentKey: ServiceKey<TraceParent> = defineService("trace-parent");

/**
 * The `@opentelemetry/api` `Tracer` named `name` at `version` from the
 * tracer provider the application registered, or `undefined` while it
 * registered none (the api's global proxy has no delegate): a span then
 * costs one global read and nothing more. What every seam package starts
 * its spans with, for a provider's own spans too. Typed `unknown`, as
 * {@linkcode TraceParent.context} is, so the api's types stay out of this
 * package's signatures: cast it to the api's `Tracer`.
 *
 * @example No tracer provider registered: nothing to record with
 * ```ts
 * import { activeTracer } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.equal(activeTracer("my-provider", "1.0.0"), undefined);
 * ```
 */
export function activeTracer(name: string, version: string): unknown {
  // The api's own proxy, with no delegate, when nothing is registered: no tracer either way.
  const provider = registered("trace") as {
    getDelegateTracer?(name: string, version?: string): Tracer | undefined;
    getTracer(name: string, version?: string): Tracer;
  } | undefined;
  if (provider === undefined) return undefined;
  return typeof provider.getDelegateTracer === "function"
    ? provider.getDelegateTracer(name, version)
    : provider.getTracer(name, version);
}

/** The kind of a span, as OpenTelemetry's `SpanKind` names it. */
export type TraceSpanKind = "internal" | "client" | "server";

/** A span attribute's value. */
export type TraceAttribute = string | number | boolean | readonly string[];

/** What {@linkcode startSpan} opens. */
export interface SpanStart {
  /** The span's name (`invoke_agent spawn`, `chat gpt-4o`, …). */
  readonly name: string;
  /** The span's kind: `server` for a request served, `client` for one made, else `internal`. */
  readonly kind: TraceSpanKind;
  /** Its attributes (OpenTelemetry GenAI conventions, `seam.*`). */
  readonly attributes: Readonly<Record<string, TraceAttribute>>;
  /**
   * The parent: an `@opentelemetry/api` `Context`. Default: `scope`'s
   * {@linkcode TraceParent}, else the api's active context.
   */
  readonly parent?: unknown;
  /** The scope whose {@linkcode TraceParent} is the default parent. */
  readonly scope?: { inject<T>(key: ServiceKey<T>): T | undefined };
}

/**
 * A span {@linkcode startSpan} opened and the context that holds it (for
 * the spans under it, or to carry in headers). Typed `unknown`, as
 * {@linkcode TraceParent.context} is: cast them to the api's `Span` and
 * `Context`.
 */
export interface StartedSpan {
  /** The span: an `@opentelemetry/api` `Span`, to end. */
  readonly span: unknown;
  /** The parent's context with this span set in it. */
  readonly context: unknown;
}

const SPAN_KINDS: Readonly<Record<TraceSpanKind, SpanKind>> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  server: SpanKind.SERVER,
};

/**
 * Open a span with `tracer` (what {@linkcode activeTracer} gave: check it
 * first, so that without a tracer provider nothing is built), under
 * `start.parent`, else `start.scope`'s {@linkcode TraceParent}, else the
 * api's active context: the one way every seam package starts its spans
 * (runs, tool calls, model calls, prompts served), so a provider's own
 * spans can start the same way.
 *
 * @example Only with a tracer provider registered
 * ```ts
 * import { activeTracer, startSpan } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const tracer = activeTracer("my-provider", "1.0.0");
 * const started = tracer === undefined ? undefined : startSpan(tracer, {
 *   name: "invoke_agent my-agent",
 *   kind: "internal",
 *   attributes: { "gen_ai.operation.name": "invoke_agent" },
 * });
 * assert.equal(started, undefined); // no tracer provider in this example
 * ```
 */
export function startSpan(tracer: unknown, start: SpanStart): StartedSpan {
  const parent = (start.parent ?? start.scope?.inject(traceParentKey)?.context ??
    activeContext()) as Context;
  const span = (tracer as Tracer).startSpan(start.name, {
    kind: SPAN_KINDS[start.kind],
    attributes: start.attributes as Attributes,
  }, parent);
  return { span, context: withSpan(parent, span) };
}

/**
 * Mark `span` (an `@opentelemetry/api` `Span`) failed: its `error.type` and
 * an error status with `message`. It is not ended.
 */
export function failSpan(span: unknown, type: string, message: string | undefined): void {
  const failed = span as Span;
  failed.setAttribute("error.type", type);
  failed.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * The W3C trace headers (`traceparent`, `tracestate`) for `traceContext`
 * (an `@opentelemetry/api` `Context`), through the application's
 * propagator: what a request to another process carries. `undefined` when
 * there is nothing to carry (no context, or no propagator registered).
 *
 * @example No propagator registered: nothing to carry
 * ```ts
 * import { traceCarrier } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.equal(traceCarrier(undefined), undefined);
 * ```
 */
export function traceCarrier(traceContext: unknown): Record<string, string> | undefined {
  if (traceContext === undefined) return undefined;
  const carrier: Record<string, string> = {};
  // The api's default setter writes each header as a property of the carrier.
  registered("propagation")?.inject(traceContext as Context, carrier, {
    set: (into, key, value) => into[key] = value,
  });
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/**
 * The trace context a request's W3C trace headers (`traceparent`,
 * `tracestate`) carry, read by the application's propagator: the parent of
 * the span a server opens for the request. The api's root context when
 * there is nothing to read (no propagator registered, or none the api would
 * use). Typed `unknown`, as {@linkcode TraceParent.context} is: pass it as
 * {@linkcode SpanStart.parent}.
 *
 * @example No propagator registered: the root context (the span starts its own trace)
 * ```ts
 * import { ROOT_CONTEXT } from "@opentelemetry/api";
 * import { traceContextFrom } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const headers = new Headers({
 *   traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
 * });
 * assert.equal(traceContextFrom(headers), ROOT_CONTEXT);
 * ```
 */
export function traceContextFrom(headers: Headers): unknown {
  return registered("propagation")?.extract(ROOT_CONTEXT, headers, {
    get: (from, key) => from.get(key) ?? undefined,
    keys: (from) => [...from.keys()],
  }) ?? ROOT_CONTEXT;
}
