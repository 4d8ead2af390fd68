// A program that forgets to dispose: it starts an ACP run, prints its answer
// and the agent's pid, and ends without disposing the run, the provider or
// the scope. It must exit anyway (see acp_forgotten_test.ts).
// Usage: deno run --allow-env --allow-run --allow-read acp_forgotten_run.ts <"pool" | "run"> [agent flags…]
import { createRootScope, textOf } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, testAgentConfig } from "../acp_support.ts";

const [mode, ...flags] = Deno.args;
const watch = new AgentWatch();
const root = createRootScope();
const subagents = createSubagentService(root);
const provider = createAcpProvider(testAgentConfig(flags, {
  logger: watch.logger,
  ...(mode === "pool" ? { pool: { size: 2 } } : {}),
}));
subagents.registerProvider(provider);
if (mode === "pool") await provider.whenWarm();
const parent = { id: "main", scope: root.child("main") };
const run = subagents.start("acp", { prompt: "complete hello, then forgotten", parent });
const result = await run.result;
console.log(textOf(result.output));
// The agents' pids, once each has said something on stderr.
while (watch.pids.size < (mode === "pool" ? 3 : 1)) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
console.log(JSON.stringify([...watch.pids]));
