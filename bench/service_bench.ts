// The service's cost per run: start → await result → dispose of a trivial
// provider through `ctx.subagents`, against calling the provider directly.
import { runDirect, runThroughService, setupBench } from "./_trivial_provider.ts";

const bench = setupBench();

Deno.bench({
  name: "direct provider call",
  group: "service overhead",
  baseline: true,
  // An async function: deno bench awaits only those.
  async fn() {
    await runDirect(bench);
  },
});

Deno.bench({
  name: "through SubagentService",
  group: "service overhead",
  async fn() {
    await runThroughService(bench);
  },
});
