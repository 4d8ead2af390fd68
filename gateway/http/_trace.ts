/**
 * Server spans (OpenTelemetry HTTP and RPC conventions) through
 * `@opentelemetry/api` only: one SERVER span per A2A request, parented by
 * the caller's W3C `traceparent`/`tracestate` headers (`@seam/host`'s
 * `traceContextFrom`, through the application's propagator), and the
 * context the runs a request starts hang under. Without a registered tracer provider a request costs one global
 * read here and nothing else.
 */
import type { Context, Span } from "@opentelemetry/api";
import { activeTracer, failSpan, SEAM_VERSION, startSpan, traceContextFrom } from "@seam/host";

const NAME = "@seam/gateway";

interface ServerSpan {
  readonly span: Span;
  readonly context: Context;
}

/** The live server span of each request being answered. */
const serverSpans = new WeakMap<Request, ServerSpan>();
/** The context a send's runs hang under, by its parsed params (bindings link them). */
const sendContexts = new WeakMap<object, Context>();

/**
 * The methods HTTP semantic conventions know. Any other is recorded as
 * `_OTHER` (its span named `HTTP`): a client's own method is unbounded text
 * and would make a span name of any length.
 */
const KNOWN_METHODS = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "QUERY",
  "TRACE",
]);

/**
 * Answer `request` with `handle` inside a SERVER span when a tracer is
 * registered. The span ends when the response is handed back, or for an
 * SSE stream when the stream ends (its last frame, an error, or the client
 * going away), so it spans the run it streams.
 */
export function traceRequest(
  request: Request,
  handle: () => Promise<Response>,
): Promise<Response> {
  const tracer = activeTracer(NAME, SEAM_VERSION);
  if (!tracer) return handle();
  const url = new URL(request.url);
  const known = KNOWN_METHODS.has(request.method);
  const started = startSpan(tracer, {
    name: known ? request.method : "HTTP",
    kind: "server",
    parent: traceContextFrom(request.headers),
    attributes: {
      "http.request.method": known ? request.method : "_OTHER",
      "url.path": url.pathname,
      "url.scheme": url.protocol.slice(0, -1),
      "server.address": url.hostname,
      "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
    },
  });
  const span = started.span as Span;
  serverSpans.set(request, { span, context: started.context as Context });
  // `handle` is the gateway's own: it answers every failure (a rejection would be a bug).
  return handle().then((response) => {
    span.setAttribute("http.response.status_code", response.status);
    if (response.status >= 500) {
      failSpan(span, String(response.status), undefined);
    }
    const body = response.body;
    if (body && response.headers.get("content-type")?.startsWith("text/event-stream")) {
      return new Response(endsWith(body, span, request.signal), response);
    }
    span.end();
    return response;
  }, (error) => {
    span.end();
    throw error;
  });
}

/** `body`, ending `span` once (it ends, fails, is cancelled, or the request is aborted). */
function endsWith(
  body: ReadableStream<Uint8Array>,
  span: Span,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  // A transformer's `cancel` runs when the client goes away and when the source fails
  // (newer than ES2023's lib types, hence no literal); a runtime without it still aborts
  // the request's signal when the client goes.
  let open = true;
  const end = () => {
    if (!open) return;
    open = false;
    signal.removeEventListener("abort", end);
    span.end();
  };
  signal.addEventListener("abort", end, { once: true });
  const transformer = { flush: end, cancel: end };
  return body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(transformer));
}

/** Name the request's span for its JSON-RPC method (`SendStreamingMessage`, …). */
export function traceRpcMethod(request: Request, method: string): void {
  const traced = serverSpans.get(request);
  if (!traced) return;
  traced.span.updateName(method);
  traced.span.setAttributes({ "rpc.system": "jsonrpc", "rpc.method": method });
}

/** Hang the runs a send starts under its request's span (when there is one). */
export function linkSendTrace(request: Request, params: object): void {
  const traced = serverSpans.get(request);
  if (traced) sendContexts.set(params, traced.context);
}

/** The context a send's runs hang under, if its request is traced. */
export function sendTraceOf(params: object): Context | undefined {
  return sendContexts.get(params);
}
