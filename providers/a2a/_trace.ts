// W3C trace context on every request of a run: the run's `invoke_agent`
// context (`request.traceContext` for a start, the resume request's for a
// resume; set by the service only when the application registered a tracer
// provider) as `traceparent`/`tracestate`
// headers, through the application's propagator (`@opentelemetry/api`).
import { type Context, propagation } from "@opentelemetry/api";

/** The trace headers for a run, or `undefined` when there is nothing to carry. */
export function traceHeaders(traceContext: unknown): Readonly<Record<string, string>> | undefined {
  if (traceContext === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(traceContext as Context, carrier);
  return Object.keys(carrier).length > 0 ? Object.freeze(carrier) : undefined;
}
