/**
 * {@linkcode createMcpHttpHandler}: an {@linkcode McpServer} over MCP's
 * Streamable HTTP, as a fetch handler (the SDK's web-standard transport, one
 * per session). Runtime-neutral: Request in, Response out.
 */
// The SDK's subpath export maps `*.js` to `*.js.d.ts`; its declarations are found without `.js`.
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { refuseUnknownOptions } from "@seam/host";
import { Backlog, BoundedTransport } from "./_backlog.ts";
import type { McpConnection, McpEndpoint, McpServer, McpTransport } from "./types.ts";

/** Options of {@linkcode createMcpHttpHandler}. */
export interface McpHttpOptions {
  /** Sessions open at once, over all principals (default 1,000). */
  readonly maxSessions?: number;
  /** Sessions one principal may hold open (default 16). */
  readonly maxSessionsPerPrincipal?: number;
  /** A session without a request and without a running call for this long is closed, in ms (30 min). */
  readonly idleTimeoutMs?: number;
  /** The largest request body, in bytes (4 MiB). */
  readonly maxRequestBytes?: number;
  /**
   * Bytes of a session's POST event streams (where progress goes) the
   * client has not read yet past which progress waits (1 MiB): a call's
   * streamed text is then coalesced,
   * the oldest dropped past `limits.maxProgressChars`, and the next
   * notification starts with `[N characters not delivered]`. Results and
   * elicitations are never dropped.
   */
  readonly maxUnreadBytes?: number;
}

/**
 * An MCP endpoint on sessions: `fetch` answers `POST`, `GET` for the event
 * stream and `DELETE` to end a session for `principal`; `close` closes every
 * session (their runs cancelled). A session belongs to the principal that
 * opened it: another principal naming it gets 404, as for a session that
 * does not exist, so it can neither see, answer nor cancel its runs.
 */
export interface McpHttpHandler extends McpEndpoint {
  /** Sessions open now. */
  readonly sessions: number;
}

interface Session {
  readonly id: string;
  readonly principal: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly backlog: Backlog;
  connection?: McpConnection;
  lastSeen: number;
  busy: number;
}

const KNOWN = [
  "maxSessions",
  "maxSessionsPerPrincipal",
  "idleTimeoutMs",
  "maxRequestBytes",
  "maxUnreadBytes",
] satisfies (keyof McpHttpOptions)[];
const ANONYMOUS = "anonymous";

function positive(options: McpHttpOptions, key: keyof McpHttpOptions, fallback: number): number {
  const value = options[key];
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `Cannot create the MCP HTTP handler: ${key} must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

/** An event stream's body read through `backlog`; any other response as it is. */
function counted(response: Response, backlog: Backlog): Response {
  const type = response.headers.get("content-type") ?? "";
  if (response.body === null || !type.startsWith("text/event-stream")) return response;
  return new Response(backlog.wrap(response.body), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

class HttpEndpoint implements McpHttpHandler {
  readonly #server: McpServer;
  readonly #sessions = new Map<string, Session>();
  readonly #maxSessions: number;
  readonly #maxPerPrincipal: number;
  readonly #idleMs: number;
  readonly #maxBytes: number;
  readonly #maxUnread: number;
  #state: "open" | "closed" = "open";

  constructor(server: McpServer, options: McpHttpOptions) {
    refuseUnknownOptions("create the MCP HTTP handler", options, KNOWN);
    this.#server = server;
    this.#maxSessions = positive(options, "maxSessions", 1_000);
    this.#maxPerPrincipal = positive(options, "maxSessionsPerPrincipal", 16);
    this.#idleMs = positive(options, "idleTimeoutMs", 30 * 60_000);
    this.#maxBytes = positive(options, "maxRequestBytes", 4 * 1024 * 1024);
    this.#maxUnread = positive(options, "maxUnreadBytes", 1024 * 1024);
  }

  get sessions(): number {
    return this.#sessions.size;
  }

  async fetch(request: Request, principal: string = ANONYMOUS): Promise<Response> {
    if (this.#state !== "open") return jsonRpcError(503, -32000, "The MCP endpoint is closed");
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      if (request.method !== "POST") {
        return jsonRpcError(400, -32000, "Bad Request: no Mcp-Session-Id (initialize first)");
      }
      return await this.#open(request, principal);
    }
    const session = this.#sessions.get(id);
    // Another principal's session is answered as one that does not exist.
    if (!session || session.principal !== principal) {
      return jsonRpcError(404, -32001, "Session not found");
    }
    session.lastSeen = Date.now();
    session.busy++;
    try {
      const response = await session.transport.handleRequest(request);
      return request.method === "POST" ? counted(response, session.backlog) : response;
    } finally {
      session.busy--;
      session.lastSeen = Date.now();
    }
  }

  async #open(request: Request, principal: string): Promise<Response> {
    this.#sweep();
    let mine = 0;
    for (const s of this.#sessions.values()) if (s.principal === principal) mine++;
    if (mine >= this.#maxPerPrincipal || this.#sessions.size >= this.#maxSessions) {
      return jsonRpcError(
        429,
        -32000,
        mine >= this.#maxPerPrincipal
          ? `Cannot open an MCP session: this principal already has ${mine} open (the most is ${this.#maxPerPrincipal}; end one with DELETE)`
          : `Cannot open an MCP session: ${this.#sessions.size} are open (the most is ${this.#maxSessions})`,
      );
    }
    let session: Session | undefined;
    const backlog = new Backlog(this.#maxUnread);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      maxRequestBodySize: this.#maxBytes,
      onsessioninitialized: (id) => {
        session = { id, principal, transport, backlog, lastSeen: Date.now(), busy: 1 };
        this.#sessions.set(id, session);
      },
    });
    const bounded = new BoundedTransport(transport as unknown as McpTransport, backlog);
    const connection = await this.#server.connect(bounded, { principal });
    connection.closed.then(() => {
      backlog.close();
      if (session) this.#sessions.delete(session.id);
    });
    const response = counted(await transport.handleRequest(request), backlog);
    if (session) {
      session.connection = connection;
      session.busy--;
    } else {
      // Not an initialize request (or a bad one): nothing was opened.
      await connection.close();
    }
    return response;
  }

  /** Close sessions idle for longer than the timeout. */
  #sweep(): void {
    const now = Date.now();
    for (const session of this.#sessions.values()) {
      if (session.busy === 0 && now - session.lastSeen > this.#idleMs) {
        this.#sessions.delete(session.id);
        session.connection?.close().catch(() => {});
      }
    }
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => s.connection?.close() ?? s.transport.close()));
  }
}

/**
 * Serve `server` over Streamable HTTP: a fetch handler for one endpoint
 * path, with sessions (the `Mcp-Session-Id` header), progress and
 * elicitation on the request's event stream, and cancellation by
 * `notifications/cancelled`. The caller authenticates: pass who the request
 * comes from as `principal` (the gateway's mount does this behind its bearer
 * auth); a session is bound to the principal that opened it.
 *
 * @example Beside your own routes
 * ```ts ignore
 * const mcp = createMcpHttpHandler(createMcpServer({ scope }));
 * Deno.serve((request) =>
 *   new URL(request.url).pathname === "/mcp" ? mcp.fetch(request, "local") : notFound());
 * ```
 *
 * @param server The server to serve.
 * @param options Bounds.
 * @returns The handler.
 */
export function createMcpHttpHandler(
  server: McpServer,
  options: McpHttpOptions = {},
): McpHttpHandler {
  return new HttpEndpoint(server, options);
}
