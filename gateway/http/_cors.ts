/**
 * Cross-origin access (the `cors` option), with the headers Hono's CORS
 * middleware gave when the gateway ran on Hono: any `OPTIONS` request is a
 * preflight answered 204 with the allowed methods and headers; every other
 * response gets the allowed origin, credentials and exposed headers, and
 * `Vary: Origin` unless every origin is allowed.
 */
import type { GatewayCorsOptions } from "../options.ts";

const ALLOW_METHODS = "GET,POST,DELETE,OPTIONS";
const ALLOW_HEADERS = "Authorization,Content-Type,A2A-Version,A2A-Extensions,X-A2A-Extensions";
const EXPOSE_HEADERS = "ETag,A2A-Extensions,X-A2A-Extensions,WWW-Authenticate";

/** The CORS headers of one gateway. */
export class Cors {
  readonly #options: GatewayCorsOptions;
  readonly #allowOrigin: (origin: string) => string | null;

  constructor(options: GatewayCorsOptions) {
    this.#options = options;
    const allowed = options.origin;
    this.#allowOrigin = typeof allowed === "function"
      ? (origin) => allowed(origin) ?? null
      : allowed === "*"
      ? () => "*"
      : typeof allowed === "string"
      ? (origin) => allowed === origin ? origin : null
      : (origin) => allowed.includes(origin) ? origin : null;
  }

  /** The answer to a preflight (`OPTIONS`) request. */
  preflight(request: Request): Response {
    const headers = this.#headers(request);
    if (this.#options.origin !== "*") headers.append("Vary", "Origin");
    if (this.#options.maxAge != null) {
      headers.set("Access-Control-Max-Age", String(this.#options.maxAge));
    }
    headers.set("Access-Control-Allow-Methods", ALLOW_METHODS);
    headers.set("Access-Control-Allow-Headers", ALLOW_HEADERS);
    headers.append("Vary", "Access-Control-Request-Headers");
    return new Response(null, { headers, status: 204, statusText: "No Content" });
  }

  /** `response` (to a request that is no preflight) with the CORS headers. */
  apply(request: Request, response: Response): Response {
    const out = new Response(response.body, response);
    for (const [name, value] of this.#headers(request)) out.headers.set(name, value);
    if (this.#options.origin !== "*") out.headers.append("Vary", "Origin");
    return out;
  }

  #headers(request: Request): Headers {
    const headers = new Headers();
    const origin = this.#allowOrigin(request.headers.get("origin") ?? "");
    if (origin) headers.set("Access-Control-Allow-Origin", origin);
    if (this.#options.credentials) headers.set("Access-Control-Allow-Credentials", "true");
    headers.set("Access-Control-Expose-Headers", EXPOSE_HEADERS);
    return headers;
  }
}
