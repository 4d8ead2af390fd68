// ACP provider cost per run (start → result → dispose through ctx.subagents),
// against the test agent and against our own ACP server (scripted model), with
// the in-process spawn provider as the baseline. `deno task bench` reports averages;
// `deno run -A bench/acp_medians.ts` reports the medians the targets are about.
// Our server is also measured bundled into one module (`deno bundle`), cold.
import { runOnce, setupAcpBench } from "./acp_setup.ts";

const bench = await setupAcpBench();

Deno.bench({
  name: "spawn (in-process, scripted model)",
  group: "acp",
  baseline: true,
  warmup: 20,
  n: 200,
  // An `async` function: deno bench awaits only those (an arrow returning a
  // promise is timed as if synchronous).
  async fn() {
    await runOnce(bench, "spawn");
  },
});

let warmCalls = 0;
Deno.bench({
  name: "acp, reuseProcess (warm process, new session per run)",
  group: "acp",
  warmup: 5,
  n: 100,
  async fn() {
    await runOnce(bench, "acp-warm");
    // No hook runs after a benchmark: the warm process goes with its last run.
    if (++warmCalls === 105) await bench.warm.dispose();
  },
});

Deno.bench({
  name: "acp, cold (spawn → result → dispose)",
  group: "acp",
  warmup: 2,
  n: 30,
  async fn() {
    await runOnce(bench, "acp-cold");
  },
});

let serverWarmCalls = 0;
Deno.bench({
  name: "our ACP server, reuseProcess (warm process, new session per run)",
  group: "acp",
  warmup: 5,
  n: 100,
  async fn() {
    await runOnce(bench, "server-warm");
    if (++serverWarmCalls === 105) await bench.serverWarm.dispose();
  },
});

Deno.bench({
  name: "our ACP server, cold (spawn → result → dispose)",
  group: "acp",
  warmup: 2,
  n: 20,
  async fn() {
    await runOnce(bench, "server-cold");
  },
});

let bundleColdCalls = 0;
Deno.bench({
  name: "our ACP server bundled (deno bundle), cold",
  group: "acp",
  warmup: 2,
  n: 20,
  async fn() {
    await runOnce(bench, "bundle-cold");
    // The last case: its last run closes everything (and removes the bundle).
    if (++bundleColdCalls === 22) await bench.close();
  },
});
