/** HTTP plumbing: JSON and error responses, the version header, constant-time comparison. */
import {
  GatewayError,
  httpStatusOf,
  internalError,
  jsonRpcError,
  restErrorBody,
} from "../core/_errors.ts";
import { stringifyResult } from "../memory/_task_json.ts";
import { stringify } from "../core/_builtins.ts";

const JSON_HEADERS = { "content-type": "application/json" } as const;
const encoder = new TextEncoder();

/**
 * A JSON response.
 *
 * @throws {GatewayError} `internal` when `body` cannot be serialized.
 */
export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  let text: string;
  try {
    text = stringifyResult(body);
  } catch (error) {
    throw unserializable(error);
  }
  return jsonResponse(text, status, headers);
}

/**
 * A JSON-RPC success response: the text of `json({ jsonrpc, id, result })`,
 * with the result's remembered JSON reused (_task_json.ts).
 *
 * @throws {GatewayError} `internal` when `result` cannot be serialized.
 */
export function jsonRpcResult(
  id: string | number | null,
  result: unknown,
  headers?: HeadersInit,
): Response {
  if (result === undefined) return json({ jsonrpc: "2.0", id, result }, 200, headers);
  let text: string;
  try {
    text = `{"jsonrpc":"2.0","id":${stringify(id)},"result":${stringifyResult(result)}}`;
  } catch (error) {
    throw unserializable(error);
  }
  return jsonResponse(text, 200, headers);
}

/** `what` (the response, a task event) could not be serialized. */
export function unserializable(error: unknown, what = "the response"): GatewayError {
  return internalError(
    `Internal error: ${what} could not be serialized (${(error as Error).message})`,
  );
}

function jsonResponse(text: string, status: number, headers?: HeadersInit): Response {
  if (!headers) return new Response(text, { status, headers: JSON_HEADERS });
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  return new Response(text, { status, headers: h });
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
