// ACP provider cost per run (start → result → dispose through ctx.subagents),
// against the test agent and against our own ACP server (scripted model), with
// the in-process spawn provider as the baseline. `deno task bench` reports averages;
// `deno run -A bench/acp_medians.ts` reports the medians the targets are about.
// Our server is also measured bundled into one module (`deno bundle`), cold.
import { atExit } from "./_at_exit.ts";
import { runOnce, setupAcpBench } from "./acp_setup.ts";

const bench = await setupAcpBench();
// Nothing is closed inside a case (see _at_exit.ts): the warm processes end
// with ours (stdin EOF); the bundle's temporary folder is removed here.
atExit(() => bench.removeBundleSync());

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

Deno.bench({
  name: "acp, reuseProcess (warm process, new session per run)",
  group: "acp",
  warmup: 5,
  n: 100,
  async fn() {
    await runOnce(bench, "acp-warm");
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

Deno.bench({
  name: "our ACP server, reuseProcess (warm process, new session per run)",
  group: "acp",
  warmup: 5,
  n: 100,
  async fn() {
    await runOnce(bench, "server-warm");
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

Deno.bench({
  name: "our ACP server bundled (deno bundle), cold",
  group: "acp",
  warmup: 2,
  n: 20,
  async fn() {
    await runOnce(bench, "bundle-cold");
  },
});
