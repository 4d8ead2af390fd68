/**
 * Seam over MCP: a subagent service as an MCP server (every provider a
 * tool, with progress, elicitation and cancellation of the whole subtree).
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
