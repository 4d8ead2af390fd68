/**
 * Seam over MCP, both ways:
 *
 * - {@linkcode createMcpServer}: a subagent service as an MCP server (every
 *   provider a tool, with progress, elicitation and cancellation of the
 *   whole subtree); serve it on stdio with `serveMcpStdio` from
 *   `@seam/mcp/stdio`.
 * - {@linkcode createMcpHttpHandler}: the same over Streamable HTTP (sessions
 *   bound to their principal; the gateway mounts it at `{base}/mcp`).
 * - {@linkcode createMcpTasksHandler}: the 2026-07-28 line with the Tasks
 *   extension (a task handle at once, `tasks/get`, `input_required` answered
 *   with `tasks/update`, `tasks/cancel` ending the subtree).
 * - {@linkcode createMcpProvider}: one tool of an MCP server (a process of
 *   its own, or a URL) as a seam child.
 *
 * @module
 */
export { createMcpServer } from "./server.ts";
export type {
  McpConnection,
  McpConnectOptions,
  McpMessage,
  McpServer,
  McpServerLimits,
  McpServerOptions,
  McpTransport,
} from "./types.ts";
export { createMcpProvider, type McpProviderOptions } from "./provider.ts";
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from "./http.ts";
export { createMcpTasksHandler, type McpTasksHandler, type McpTasksOptions } from "./tasks.ts";
export { createMcpEndpoint, type McpEndpoint, type McpEndpointOptions } from "./endpoint.ts";
