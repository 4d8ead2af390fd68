/** HTTP plumbing: bodies, auth, the version header, JSON and SSE responses. */
import { GatewayError, httpStatusOf, jsonRpcError, restErrorBody } from "./_errors.ts";
import type { Subscriber } from "./_engine.ts";

const JSON_HEADERS = { "content-type": "application/json" } as const;
const encoder = new TextEncoder();

/** A JSON response. */
export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  if (!headers) return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers: h });
}

function errorHeaders(error: GatewayError, extra?: HeadersInit): HeadersInit | undefined {
  if (httpStatusOf(error) !== 401) return extra;
  const h = new Headers(extra);
  h.set(
    "www-authenticate",
    error.metadata?.reason === "invalid_token"
      ? 'Bearer realm="a2a", error="invalid_token"'
      : 'Bearer realm="a2a"',
  );
  return h;
}

/** A JSON-RPC error response: HTTP 200 unless the error carries its own status (401, 413, 500, 503). */
export function jsonRpcErrorResponse(
  id: string | number | null,
  error: GatewayError,
  headers?: HeadersInit,
): Response {
  const status = error.httpStatus ?? (error.kind === "internal" ? 500 : 200);
  return json(
    { jsonrpc: "2.0", id, error: jsonRpcError(error) },
    status,
    errorHeaders(error, headers),
  );
}

/** An HTTP+JSON error response (`google.rpc.Status` body). */
export function restErrorResponse(error: GatewayError, headers?: HeadersInit): Response {
  return json(restErrorBody(error), httpStatusOf(error), errorHeaders(error, headers));
}

/** Whether a Content-Type is JSON (absent counts as JSON). */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return true;
  const type = header.split(";", 1)[0].trim().toLowerCase();
  return type === "application/json" || type === "application/a2a+json";
}

/** Refuse a body whose Content-Type is not JSON. */
export function assertJsonContentType(request: Request): void {
  const header = request.headers.get("content-type");
  if (!isJsonContentType(header)) {
    throw new GatewayError(
      "contentType",
      `Content type not supported: "${
        header!.slice(0, 100)
      }"; send the request as application/json`,
    );
  }
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError(
    "invalidRequest",
    `Request body too large: the limit is ${limit} bytes`,
    { httpStatus: 413 },
  );
}

/** The body as text, refused with 413 beyond `limit` bytes (declared or streamed). */
export function readBody(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    const length = Number(declared);
    if (!Number.isFinite(length) || length > limit) {
      discardBody(request);
      return Promise.reject(tooLarge(limit));
    }
    return request.text();
  }
  return readStreamedBody(request, limit);
}

async function readStreamedBody(request: Request, limit: number): Promise<string> {
  const body = request.body;
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** Drop a body we will not read. */
export function discardBody(request: Request): void {
  if (!request.bodyUsed && request.body) request.body.cancel().catch(() => {});
}

const SUPPORTED_VERSION = /^1\.0(\.\d+)?$/;

/**
 * Check the `A2A-Version` header (or query parameter). A request without
 * one is treated as 1.0, the only version this gateway speaks.
 */
export function assertVersion(request: Request, url: URL | undefined): void {
  let version = request.headers.get("a2a-version");
  if (version === null && url && url.search) version = url.searchParams.get("A2A-Version");
  if (version === null) return;
  version = version.trim();
  if (version === "" || SUPPORTED_VERSION.test(version)) return;
  throw new GatewayError(
    "versionNotSupported",
    `Version not supported: A2A-Version "${
      version.slice(0, 20)
    }"; this gateway speaks A2A 1.0 only`,
    { metadata: { requestedVersion: version.slice(0, 20), supportedVersions: "1.0" } },
  );
}

/** Compare `given` to `secret` in time that depends only on `given`'s length. */
export function timingSafeEqual(given: Uint8Array, secret: Uint8Array): boolean {
  let diff = given.length ^ secret.length;
  const n = secret.length;
  for (let i = 0; i < given.length; i++) {
    diff |= given[i] ^ (n === 0 ? 0 : secret[i % n]);
  }
  return diff === 0;
}

/** Encode a string as UTF-8. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;

/**
 * An SSE response: `first`, then every event `attach` delivers until the
 * final one. `attach` registers a subscriber and returns its remover; it is
 * called synchronously, so no event is missed.
 */
export function sseResponse(
  first: Record<string, unknown> | undefined,
  frame: (event: Record<string, unknown>) => string,
  attach: ((subscriber: Subscriber) => () => void) | undefined,
  headers?: Record<string, string>,
): Response {
  let detach: (() => void) | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first) controller.enqueue(encoder.encode(`data: ${frame(first)}\n\n`));
      if (!attach) {
        controller.close();
        return;
      }
      detach = attach((event, final) => {
        try {
          controller.enqueue(encoder.encode(`data: ${frame(event)}\n\n`));
          if (final) {
            detach = undefined;
            controller.close();
          }
        } catch {
          // The client went away; the task goes on.
        }
      });
    },
    cancel() {
      detach?.();
      detach = undefined;
    },
  });
  return new Response(stream, { headers: headers ? { ...SSE_HEADERS, ...headers } : SSE_HEADERS });
}

/** A buffer of events taken before the response exists. */
export class EventBuffer {
  readonly events: [Record<string, unknown>, boolean][] = [];
  sink: Subscriber | undefined;
  readonly push: Subscriber = (event, final) => {
    if (this.sink) this.sink(event, final);
    else this.events.push([event, final]);
  };
}
