import { trace, type Tracer } from "@opentelemetry/api";
import { defineService, type ServiceKey } from "./scope.ts";

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
  const provider = trace.getTracerProvider() as {
    getDelegateTracer?(name: string, version?: string): Tracer | undefined;
    getTracer(name: string, version?: string): Tracer;
  };
  return typeof provider.getDelegateTracer === "function"
    ? provider.getDelegateTracer(name, version)
    : provider.getTracer(name, version);
}
