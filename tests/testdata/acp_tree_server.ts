// Our ACP server over stdio whose session agents delegate: `subagent` to an
// in-process child (spawn; it may delegate again) and `acp_agent` to the ACP
// test agent (`permission: "ask"`, so its permission requests travel up),
// all on the scripted model. For tests/acp_server_tree_test.ts.
// `ask_user` runs a child that asks its prompt as a question (an input
// request of kind "question", through @seam/subagent's SubagentInputs, as any
// provider asks) and replies with the answer, or the refusal's reason.
// With `--a2a=<agent card url>`, also `remote_agent`: an A2A agent there
// (a seam gateway), for the three-level tree. With `--log=debug`, logs at
// debug level (stderr) too.
// Usage: deno run --allow-env --allow-run --allow-read --allow-net acp_tree_server.ts <test agent path> [--a2a=<url>]
import { createHost, createLogger, createScriptedModel, textOf } from "@seam/host";
import { createSubagentService, type SubagentProvider } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { createAcpProvider, serveAcpAgent } from "@seam/subagent-acp";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";
import { askingProvider } from "../asking_support.ts";

const [testAgent] = Deno.args;
const logger = createLogger({
  level: Deno.args.includes("--log=debug") ? "debug" : "warn",
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
subagents.registerProvider(questionProvider());
installSubagentTool(host.scope, { provider: "spawn", toolName: "subagent" });
installSubagentTool(host.scope, { provider: "asker", toolName: "ask_user" });
installSubagentTool(host.scope, { provider: "acp", toolName: "acp_agent" });
const a2a = Deno.args.find((a) => a.startsWith("--a2a="))?.slice("--a2a=".length);
if (a2a) {
  subagents.registerProvider(await createA2AProvider({ url: a2a, name: "remote" }));
  installSubagentTool(host.scope, { provider: "remote", toolName: "remote_agent" });
}
const server = serveAcpAgent({
  host,
  model: "scripted",
  streams: { readable: Deno.stdin.readable, writable: Deno.stdout.writable },
  logger,
});
await server.closed;
await host.scope.dispose();

/** Runs that ask their prompt as a question and reply with what they were told. */
function questionProvider(): SubagentProvider {
  return askingProvider("asker", async ({ request, ask }) => {
    const answer = await ask({ kind: "question", message: textOf(request.prompt) });
    return {
      stopReason: "completed",
      output: answer.outcome === "answered"
        ? `answered: ${answer.text}`
        : `refused: ${answer.outcome === "refused" ? answer.reason : answer.outcome}`,
    };
  });
}
