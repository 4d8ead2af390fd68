/** {@linkcode createMcpProvider}: one tool of an MCP server as a seam child. */
import type { SubagentProvider, SubagentRequest, SubagentRunHandle } from "@seam/subagent";
import { McpRun } from "./_client_run.ts";
import { resolveProviderConfig } from "./_provider_config.ts";
import { detectProtocol, type ProtocolLine } from "./_tasks_client.ts";
import type { McpProviderOptions } from "./_provider_options.ts";

export type { McpProviderOptions } from "./_provider_options.ts";

/**
 * A provider whose child is one tool of an MCP server: started per run as a
 * process (`command`, in a process group of its own, torn down on dispose
 * with nothing left behind) or reached by `url` over Streamable HTTP. The
 * prompt goes out as a `tools/call`; the server's progress becomes
 * `subagent/progress`, its elicitations input requests up the tree (answer
 * them with `handleSubagentInput` or `run.respond`), cancel sends
 * `notifications/cancelled`, and the tool's result is the run's result
 * (`isError` as `stopReason: "error"`, a JSON-RPC error or a lost
 * connection as data too). It declares no start-time capability: an MCP
 * tool honours no output schema, depth cap, tool filter or persona.
 *
 * @example
 * ```ts ignore
 * import { createMcpProvider } from "@seam/mcp";
 *
 * subagents.registerProvider(createMcpProvider({
 *   name: "codex",
 *   command: "codex",
 *   args: ["mcp-server"],
 *   tool: "codex",
 * }));
 * ```
 *
 * @param options Which server and which tool.
 * @returns The provider.
 * @throws {TypeError} naming what is wrong with `options`.
 */
export function createMcpProvider(options: McpProviderOptions): SubagentProvider {
  const config = resolveProviderConfig(options);
  // The server's line, asked once (again after a failed attempt) unless `protocol` was given.
  let detected: Promise<ProtocolLine> | undefined;
  const line = (): Promise<ProtocolLine> => {
    if (config.protocol !== undefined) return Promise.resolve(config.protocol);
    return detected ??= detectProtocol(config.url!, config.headers, config.startTimeoutMs)
      .catch((error) => {
        detected = undefined;
        throw error;
      });
  };
  return {
    name: config.name,
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: config.inheritsParentContext,
    start(request: SubagentRequest): SubagentRunHandle {
      return new McpRun(config, request, line);
    },
  };
}
