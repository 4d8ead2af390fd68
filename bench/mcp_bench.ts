// seam over MCP, each against its baseline in the same run:
// - "mcp stdio": one tools/call round trip over stdio from the official SDK
//   client, to a minimal SDK echo server (baseline) and to seam's MCP server
//   over the echo provider (a run started, its result mapped, disposed);
// - "mcp overhead": one delegated call through ctx.subagents directly
//   (baseline) and through seam's MCP server on the SDK's in-memory transport.
// Child processes end with ours (their stdin's EOF); see _at_exit.ts.
import { Client } from "@modelcontextprotocol/sdk/client";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createHost, createLogger } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createMcpServer, type McpTransport } from "@seam/mcp";
import { createStreamTransport } from "@seam/mcp/stdio";
import { echo } from "./_echo_provider.ts";

async function stdioClient(script: string): Promise<Client> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-env", "--allow-read", new URL(script, import.meta.url).pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  child.unref();
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(createStreamTransport(child.stdout, child.stdin) as never);
  return client;
}

const sdkEcho = await stdioClient("./_mcp_echo_server.ts");
const seamEcho = await stdioClient("./_mcp_seam_server.ts");
const args = { description: "bench", prompt: "hello" };

Deno.bench({
  name: "minimal SDK echo server (stdio)",
  group: "mcp stdio",
  baseline: true,
  warmup: 50,
  n: 1_000,
  async fn() {
    await sdkEcho.callTool({ name: "echo", arguments: args });
  },
});

Deno.bench({
  name: "seam MCP server, echo provider (stdio)",
  group: "mcp stdio",
  warmup: 50,
  n: 1_000,
  async fn() {
    await seamEcho.callTool({ name: "subagent_echo", arguments: args });
  },
});

const host = createHost({ logger: createLogger({ level: "error" }) });
const subagents = createSubagentService(host.scope);
subagents.registerProvider(echo);
const parent = { id: "bench", scope: host.scope };
const server = createMcpServer({ scope: host.scope });
const [ours, theirs] = InMemoryTransport.createLinkedPair();
await server.connect(ours as unknown as McpTransport);
const memory = new Client({ name: "bench", version: "1" });
await memory.connect(theirs);

Deno.bench({
  name: "ctx.subagents.start directly",
  group: "mcp overhead",
  baseline: true,
  warmup: 100,
  n: 5_000,
  async fn() {
    const run = subagents.start("echo", { prompt: "hello", parent, label: "bench" });
    await run.result;
    await run.dispose();
  },
});

Deno.bench({
  name: "through seam's MCP server (in-memory transport)",
  group: "mcp overhead",
  warmup: 100,
  n: 5_000,
  async fn() {
    await memory.callTool({ name: "subagent_echo", arguments: args });
  },
});
