// Median per-run cost of the ACP provider against the test agent, in
// alternating rounds in one process so machine noise hits every variant
// alike: cold (spawn → initialize → session/new → prompt → result →
// dispose), reuseProcess (a session per run on one warm process), and the
// in-process spawn provider on the scripted model as the baseline.
// Run: deno run --allow-env --allow-read --allow-run bench/acp_medians.ts
import { runOnce, setupAcpBench } from "./acp_setup.ts";

const ROUNDS = 15;
const PER_ROUND = { "acp-cold": 4, "acp-warm": 20, spawn: 50 } as const;

const bench = await setupAcpBench();
const samples: Record<keyof typeof PER_ROUND, number[]> = {
  "acp-cold": [],
  "acp-warm": [],
  spawn: [],
};
const coldPhases: { started: number[]; result: number[]; dispose: number[] } = {
  started: [],
  result: [],
  dispose: [],
};

async function round(record: boolean): Promise<void> {
  for (const provider of Object.keys(PER_ROUND) as (keyof typeof PER_ROUND)[]) {
    for (let i = 0; i < PER_ROUND[provider]; i++) {
      const t0 = performance.now();
      const timing = await runOnce(bench, provider);
      if (!record) continue;
      samples[provider].push(performance.now() - t0);
      if (provider === "acp-cold") {
        coldPhases.started.push(timing.started);
        coldPhases.result.push(timing.result);
        coldPhases.dispose.push(timing.dispose);
      }
    }
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
};

await round(false);
for (let i = 0; i < ROUNDS; i++) await round(true);
const label = {
  "acp-cold": "acp cold (spawn → result → dispose)",
  "acp-warm": "acp reuseProcess (per run)",
  spawn: "spawn in-process (baseline)",
};
for (const provider of Object.keys(samples) as (keyof typeof PER_ROUND)[]) {
  const values = samples[provider];
  console.log(
    `${label[provider].padEnd(38)} median ${quantile(values, 0.5).toFixed(2).padStart(7)} ms` +
      `   p90 ${quantile(values, 0.9).toFixed(2).padStart(7)} ms   n=${values.length}`,
  );
}
console.log(
  `  cold phases (medians): started ${quantile(coldPhases.started, 0.5).toFixed(2)} ms` +
    ` (spawn → initialize → session/new), result ${
      quantile(coldPhases.result, 0.5).toFixed(2)
    } ms, dispose ${quantile(coldPhases.dispose, 0.5).toFixed(2)} ms`,
);
await bench.close();
