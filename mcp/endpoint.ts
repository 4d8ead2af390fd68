/**
 * {@linkcode createMcpEndpoint}: both MCP lines at one URL, routed by the
 * request's `MCP-Protocol-Version` header.
 */
import { refuseUnknownOptions } from "@seam/host";
import { createMcpHttpHandler, type McpHttpOptions } from "./http.ts";
import { createMcpTasksHandler, type McpTasksOptions } from "./tasks.ts";
import type { McpEndpoint, McpServer } from "./types.ts";

export type { McpEndpoint } from "./types.ts";

/** Options of {@linkcode createMcpEndpoint}. */
export interface McpEndpointOptions {
  /** The 2025-11-25 line's sessions (see `createMcpHttpHandler`). */
  readonly http?: McpHttpOptions;
  /** The 2026-07-28 line's tasks (see `createMcpTasksHandler`). */
  readonly tasks?: McpTasksOptions;
}

const MODERN = "2026-07-28";
const KNOWN = ["http", "tasks"] satisfies (keyof McpEndpointOptions)[];

/**
 * Serve `server` to clients of both protocol lines at one URL: a request
 * whose `MCP-Protocol-Version` header names 2026-07-28 or later (the
 * 2026-07-28 HTTP binding sends it on every request) goes to the Tasks line
 * (`createMcpTasksHandler`), anything else to the 2025-11-25 line's sessions
 * (`createMcpHttpHandler`). This is what `deno task start` mounts at `/mcp`.
 *
 * @param server The server to serve.
 * @param options Each line's options.
 * @returns The endpoint.
 * @throws {TypeError} for an unknown option, naming it and the known ones
 *   (a line's option given at the top level, `maxSessions` for `http.maxSessions`, would
 *   otherwise be dropped without a word).
 */
export function createMcpEndpoint(
  server: McpServer,
  options: McpEndpointOptions = {},
): McpEndpoint {
  refuseUnknownOptions("create the MCP endpoint", options, KNOWN, {
    hint: "each line's options go under its key, e.g. http.maxSessions",
  });
  const legacy = createMcpHttpHandler(server, options.http);
  const modern = createMcpTasksHandler(server, options.tasks);
  return {
    fetch(request, principal) {
      const version = request.headers.get("mcp-protocol-version");
      return version !== null && version >= MODERN
        ? modern.fetch(request, principal)
        : legacy.fetch(request, principal);
    },
    async close() {
      await Promise.all([legacy.close(), modern.close()]);
    },
  };
}
