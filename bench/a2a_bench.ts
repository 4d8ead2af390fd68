// A2A provider cost per run (start → result → dispose through ctx.subagents)
// against a seam gateway in front of spawn on the scripted model, over
// loopback HTTP and through the gateway's fetch handler, with the in-process
// spawn provider as the baseline. `deno task bench` reports averages;
// `deno run --allow-net=127.0.0.1 bench/a2a_medians.ts` reports the medians
// and the 50-concurrent throughput the targets are about.
import { runOnce, setupA2ABench } from "./a2a_setup.ts";

// Nothing is closed inside a case (see _at_exit.ts): the server and the
// providers go with the process.
const bench = await setupA2ABench();
const N = 300;

Deno.bench({
  name: "spawn (in-process, scripted model)",
  group: "a2a",
  baseline: true,
  warmup: 50,
  n: N,
  async fn() {
    await runOnce(bench, "spawn");
  },
});

Deno.bench({
  name: "a2a → gateway → spawn, through gateway.fetch (no socket)",
  group: "a2a",
  warmup: 50,
  n: N,
  async fn() {
    await runOnce(bench, "a2a-fetch");
  },
});

Deno.bench({
  name: "a2a → gateway → spawn, loopback HTTP",
  group: "a2a",
  warmup: 50,
  n: N,
  async fn() {
    await runOnce(bench, "a2a");
  },
});
