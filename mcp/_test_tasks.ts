/**
 * The official 2026-07-28 client (`@modelcontextprotocol/client` 2.4) with
 * the Tasks extension's requester session (`@modelcontextprotocol/ext-tasks`
 * 0.2) against a tasks handler on loopback. The session's `rawDispatch` posts
 * the framed request as the 2026-07-28 HTTP binding wants it (`Mcp-Method`,
 * `Mcp-Name` headers, a JSON-RPC id).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type ApplicationInputRequest,
  createTaskSessionFromClient,
  type TaskEnabledSession,
} from "@modelcontextprotocol/ext-tasks/client";
import { createMcpTasksHandler, type McpTasksHandler } from "./tasks.ts";
import { type World, world } from "./_test_support.ts";
import { serveOnLoopback } from "./_test_http.ts";

export const VERSION = "2026-07-28";

/** A tasks endpoint on loopback over a test world; the principal is the `x-principal` header. */
export interface TasksWorld extends AsyncDisposable {
  readonly world: World;
  readonly handler: McpTasksHandler;
  readonly url: string;
  /** A connected client and its tasks session, for `principal`. */
  session(
    principal: string,
    onInput?: (request: ApplicationInputRequest) => unknown,
  ): Promise<TaskEnabledSession>;
  /** One framed request, raw (what the session sends), as `principal`. */
  raw(principal: string, method: string, params: Record<string, unknown>): Promise<RawResponse>;
}

/** A JSON-RPC response. */
export interface RawResponse {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

let nextId = 1;

/** What every 2026-07-28 request carries in `_meta`: version, client, capabilities (Tasks). */
export const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
};

function nameOf(params: Record<string, unknown>): string | undefined {
  const value = params.name ?? params.taskId ?? params.uri;
  return typeof value === "string" ? value : undefined;
}

/** Make one; everything it made is closed by its `Symbol.asyncDispose`. */
export async function tasksWorld(): Promise<TasksWorld> {
  const w = world();
  const handler = createMcpTasksHandler(w.server, { pollIntervalMs: 10 });
  const server = await serveOnLoopback((request) =>
    handler.fetch(request, request.headers.get("x-principal") ?? undefined)
  );
  const url = `${server.origin}/mcp`;
  const closers: (() => Promise<void>)[] = [];
  const post = async (principal: string, body: Record<string, unknown>): Promise<RawResponse> => {
    const params = (body.params ?? {}) as Record<string, unknown>;
    const name = nameOf(params);
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": String(body.method),
        ...(name ? { "mcp-name": name } : {}),
        "x-principal": principal,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, ...body }),
    });
    return await response.json();
  };
  return {
    world: w,
    handler,
    url,
    async session(principal, onInput) {
      const client = new Client({ name: principal, version: "1" }, {
        versionNegotiation: { mode: { pin: VERSION } },
      });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { "x-principal": principal } },
        }),
      );
      const session = createTaskSessionFromClient(client, {
        endpointId: `seam-${principal}`,
        rawDispatch: (request) => post(principal, request as Record<string, unknown>) as never,
        v2RequestFraming: {
          protocolVersion: VERSION,
          clientInfo: { name: principal, version: "1" },
          clientCapabilities: {},
        },
        ...(onInput
          ? { onInputRequest: (request) => Promise.resolve(onInput(request)) as never }
          : {}),
      });
      closers.push(async () => {
        await session.close();
        await client.close();
      });
      return session;
    },
    raw: (principal, method, params) =>
      post(principal, {
        method,
        params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object | undefined) } },
      }),
    async [Symbol.asyncDispose]() {
      for (const close of closers) await close();
      await handler.close();
      await server.shutdown();
      await w[Symbol.asyncDispose]();
    },
  };
}
