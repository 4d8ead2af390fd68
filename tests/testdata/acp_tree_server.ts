// Our ACP server over stdio whose session agents delegate: `subagent` to an
// in-process child (spawn; it may delegate again) and `acp_agent` to the ACP
// test agent (`permission: "ask"`, so its permission requests travel up),
// all on the scripted model. For tests/acp_server_tree_test.ts.
// Usage: deno run --allow-env --allow-run --allow-read acp_tree_server.ts <test agent path>
import { createHost, createLogger, createScriptedModel } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createAcpProvider, serveAcpAgent } from "@seam/subagent-acp";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";

const [testAgent] = Deno.args;
const logger = createLogger({
  level: "warn",
  name: `tree-server[${Deno.pid}]`,
  sink: (r) => console.error(`${r.name} ${r.level}: ${r.message}`, ...r.data),
});
const host = createHost({ logger });
host.models.register(host.scope, "scripted", createScriptedModel());
const subagents = createSubagentService(host.scope);
subagents.registerProvider(createSpawnProvider());
subagents.registerProvider(createAcpProvider({
  name: "acp",
  command: Deno.execPath(),
  args: ["run", "--quiet", "--no-config", "--no-lock", "--allow-env", "--allow-run", testAgent],
  permission: "ask",
  disposeEofGraceMs: 300,
  disposeGraceMs: 500,
}));
installSubagentTool(host.scope, { provider: "spawn", toolName: "subagent" });
installSubagentTool(host.scope, { provider: "acp", toolName: "acp_agent" });
const server = serveAcpAgent({
  host,
  model: "scripted",
  streams: { readable: Deno.stdin.readable, writable: Deno.stdout.writable },
  logger,
});
await server.closed;
await host.scope.dispose();
