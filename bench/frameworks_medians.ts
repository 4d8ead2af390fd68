// Median per-run overhead of each framework adapter's provider against
// running the framework's agent directly (same agent, same fake model, same
// prompt), the two alternating run by run in one process so machine noise
// hits both alike; the medians are of single runs. Issue 39's goal: ≤ 10%.
// Run: deno run --allow-env --allow-sys=homedir --allow-read bench/frameworks_medians.ts
import { FRAMEWORKS, setupFrameworks } from "./frameworks_setup.ts";

const RUNS = 1_000;
const WARMUP = 100;

const runs = setupFrameworks();
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

console.log(
  `| framework | the agent directly | the provider alone (no service) | through ctx.subagents | overhead |`,
);
console.log(`| --- | --- | --- | --- | --- |`);
for (const framework of FRAMEWORKS) {
  const { direct, provider, seam } = runs[framework];
  for (let i = 0; i < WARMUP; i++) {
    await direct();
    await provider();
    await seam();
  }
  const perRun = { direct: [] as number[], provider: [] as number[], seam: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    // Rotate which goes first, so none always runs on a warmer heap.
    const all = ["direct", "provider", "seam"] as const;
    const order = [...all.slice(i % 3), ...all.slice(0, i % 3)];
    for (const variant of order) {
      const t0 = performance.now();
      await runs[framework][variant]();
      perRun[variant].push(performance.now() - t0);
    }
  }
  const d = median(perRun.direct), p = median(perRun.provider), s = median(perRun.seam);
  console.log(
    `| ${framework} | ${d.toFixed(3)} ms | ${p.toFixed(3)} ms | ${s.toFixed(3)} ms | ${
      ((s - d) / d * 100).toFixed(1)
    }% (${((s - d) * 1000).toFixed(0)} µs) |`,
  );
}

// The seam layer alone: a provider built on @seam/adapter-kit whose driver
// answers at once, against a hand-written provider answering at once, both
// through ctx.subagents: what the kit adds to every framework run.
{
  const { createRootScope } = await import("@seam/host");
  const { createSubagentService } = await import("@seam/subagent");
  const { startFrameworkRun } = await import("@seam/adapter-kit");
  const root = createRootScope();
  const subagents = createSubagentService(root);
  const capabilities = {
    outputSchema: false,
    depthLimit: false,
    toolFilter: false,
    persona: false,
  };
  subagents.registerProvider({
    name: "kit",
    capabilities,
    inheritsParentContext: false,
    start: (request) =>
      startFrameworkRun(request, () => Promise.resolve({ output: "hi", stopReason: "completed" }), {
        framework: "Bench",
        idPrefix: "kit",
      }),
  });
  let n = 0;
  subagents.registerProvider({
    name: "plain",
    capabilities,
    inheritsParentContext: false,
    start: () => ({
      id: `plain-${++n}`,
      started: Promise.resolve(),
      result: Promise.resolve({ output: "hi", stopReason: "completed" }),
      cancel() {},
      dispose: () => Promise.resolve(),
    }),
  });
  const parent = { id: "bench", scope: root };
  const once = async (name: string) => {
    const run = subagents.start(name, { prompt: "x", parent });
    await run.result;
    await run.dispose();
  };
  for (let i = 0; i < 2_000; i++) await once("kit"), await once("plain");
  const plain: number[] = [], kit: number[] = [];
  for (let i = 0; i < 10_000; i++) {
    let t0 = performance.now();
    await once("plain");
    plain.push(performance.now() - t0);
    t0 = performance.now();
    await once("kit");
    kit.push(performance.now() - t0);
  }
  const p = median(plain), k = median(kit);
  console.log(
    `| (the kit alone) | ${(p * 1000).toFixed(1)} µs | | ${(k * 1000).toFixed(1)} µs | ${
      ((k - p) * 1000).toFixed(1)
    } µs per run |`,
  );
  await root.dispose();
}
