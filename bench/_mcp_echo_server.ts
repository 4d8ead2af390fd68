// A minimal MCP server on the official SDK (its high-level McpServer, stdio):
// one `echo` tool answering its `prompt`. The baseline of bench/mcp_bench.ts.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "echo", version: "1.0.0" });
server.registerTool(
  "echo",
  { inputSchema: { description: z.string(), prompt: z.string() } },
  ({ prompt }: { prompt: string }) => ({ content: [{ type: "text", text: prompt }] }),
);
await server.connect(new StdioServerTransport());
