// seam over MCP, each against its baseline in the same run:
// - "mcp stdio": one tools/call round trip over stdio from the official SDK
//   client, to a minimal SDK echo server (baseline) and to seam's MCP server
//   over the echo provider (a run started, its result mapped, disposed);
// - "mcp overhead": one delegated call through ctx.subagents directly
//   (baseline) and through seam's MCP server on the SDK's in-memory transport;
// - "mcp tasks": the 2026-07-28 line over HTTP, a tools/call answered inline
//   (baseline) and one answered with a task handle (Tasks extension).
// Child processes end with ours (their stdin's EOF); see _at_exit.ts.
import { Client } from "@modelcontextprotocol/sdk/client";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createHost, createLogger } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createMcpServer, createMcpTasksHandler, type McpTransport } from "@seam/mcp";
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

// The 2026-07-28 line with Tasks over HTTP on loopback (server in this process):
// a tools/call answered inline (no Tasks declared) against one answered with a
// task handle (the child then runs on; the echo child ends at once).
const tasks = createMcpTasksHandler(server);
const http = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) => tasks.fetch(request, "bench"),
);
http.unref();
const tasksUrl = `http://127.0.0.1:${http.addr.port}/mcp`;
const envelope = (withTasks: boolean) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": withTasks
    ? { extensions: { "io.modelcontextprotocol/tasks": {} } }
    : {},
});
let rpcId = 0;
async function modernCall(withTasks: boolean): Promise<void> {
  const response = await fetch(tasksUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "subagent_echo",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++rpcId,
      method: "tools/call",
      params: { name: "subagent_echo", arguments: args, _meta: envelope(withTasks) },
    }),
  });
  const body = await response.json();
  const kind = body.result?.resultType;
  if (kind !== (withTasks ? "task" : "complete")) throw new Error(JSON.stringify(body));
}

Deno.bench({
  name: "tools/call answered inline (no Tasks), HTTP",
  group: "mcp tasks",
  baseline: true,
  warmup: 50,
  n: 1_000,
  async fn() {
    await modernCall(false);
  },
});

Deno.bench({
  name: "tools/call answered with a task handle, HTTP",
  group: "mcp tasks",
  warmup: 50,
  n: 1_000,
  async fn() {
    await modernCall(true);
  },
});
