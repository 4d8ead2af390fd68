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
