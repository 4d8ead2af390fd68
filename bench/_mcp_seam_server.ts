// seam's MCP server on stdio over the echo provider (bench/_echo_provider.ts):
// what bench/mcp_bench.ts compares with the minimal SDK echo server.
import { createHost, createLogger } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createMcpServer } from "@seam/mcp";
import { serveMcpStdio } from "@seam/mcp/stdio";
import { echo } from "./_echo_provider.ts";

const host = createHost({ logger: createLogger({ level: "error" }) });
createSubagentService(host.scope).registerProvider(echo);
const connection = await serveMcpStdio(createMcpServer({ scope: host.scope }));
await connection.closed;
Deno.exit(0);
