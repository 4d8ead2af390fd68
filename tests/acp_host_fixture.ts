// A host process for tests/acp_orphans_test.ts: it starts one ACP run on the
// test agent (flags from argv), prints `agent <pid>` and `grandchild <pid>`
// as the agent announces them and `ready` once the run started, then waits
// to be killed. Its agents must not outlive it.
// `--seam-pool=<n>` (not passed to the agent) gives the provider a pool of
// `<n>` warm agents, printed too once warm.
// Run: deno run --allow-env --allow-read --allow-run tests/acp_host_fixture.ts [flags]
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, testAgentConfig } from "./acp_support.ts";

const poolFlag = Deno.args.find((a) => a.startsWith("--seam-pool="));
const poolSize = poolFlag ? Number(poolFlag.slice("--seam-pool=".length)) : 0;
const agentFlags = Deno.args.filter((a) => a !== poolFlag);
const watch = new AgentWatch();
const root = createRootScope({ logger: createMemoryLogger().logger });
const service = createSubagentService(root);
const provider = createAcpProvider(
  testAgentConfig(agentFlags, {
    logger: watch.logger,
    disposeGraceMs: 500,
    ...(poolSize > 0 ? { pool: { size: poolSize } } : {}),
  }),
);
service.registerProvider(provider);
const run = service.start("acp", { prompt: "hang", parent: { id: "host", scope: root } });
await run.started;
await provider.whenWarm();
const deadline = Date.now() + 20_000;
while (
  watch.pids.size < 1 + poolSize || (agentFlags.some((a) => a.includes("grandchild")) &&
    watch.grandchildren.size === 0)
) {
  if (Date.now() > deadline) throw new Error("the agent never announced itself");
  await new Promise((resolve) => setTimeout(resolve, 10));
}
for (const pid of watch.pids) console.log(`agent ${pid}`);
for (const pid of watch.grandchildren) console.log(`grandchild ${pid}`);
console.log("ready");
setInterval(() => {}, 1_000); // until killed
