// W3C trace context on every request of a run: the run's `invoke_agent`
// context (`request.traceContext` for a start, the resume request's for a
// resume; set by the service only when the application registered a tracer
// provider) as `traceparent`/`tracestate` headers, through the application's
// propagator (`@seam/host`'s `traceCarrier`).
import { traceCarrier } from "@seam/host";

/** The trace headers for a run, or `undefined` when there is nothing to carry. */
export function traceHeaders(traceContext: unknown): Readonly<Record<string, string>> | undefined {
  const carrier = traceCarrier(traceContext);
  return carrier === undefined ? undefined : Object.freeze(carrier);
}
