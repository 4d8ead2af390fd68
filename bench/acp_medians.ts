// Median per-run cost of the ACP provider, in alternating rounds in one
// process so machine noise hits every variant alike: against the test agent
// and against our own ACP server (`providers/acp/serve.ts`, scripted model),
// each cold (spawn → initialize → session/new → prompt → result → dispose)
// and with reuseProcess (a session per run on one warm process), and the
// in-process spawn provider on the scripted model as the baseline; and our
// server bundled into one module (`deno bundle`), cold.
// Run: deno run --allow-env --allow-read --allow-write=tests/.out --allow-run bench/acp_medians.ts [--before=<checkout>]
import { type BenchProvider, runOnce, setupAcpBench } from "./acp_setup.ts";

const ROUNDS = 15;
/** `--before=<dir>`: also run that checkout's server from source (a before/after pair). */
const before = Deno.args.find((a) => a.startsWith("--before="))?.slice("--before=".length);
const PER_ROUND: Partial<Record<BenchProvider, number>> = {
  "acp-cold": 4,
  "acp-warm": 20,
  "server-cold": 4,
  ...(before === undefined ? {} : { "before-cold": 4 }),
  "server-warm": 20,
  "bundle-cold": 4,
  spawn: 50,
};
const PROVIDERS = Object.keys(PER_ROUND) as BenchProvider[];
const COLD = (["acp-cold", "server-cold", "before-cold", "bundle-cold"] as const).filter((p) =>
  p in PER_ROUND
);

interface Phases {
  started: number[];
  result: number[];
  dispose: number[];
}

const bench = await setupAcpBench(before);
const samples = Object.fromEntries(PROVIDERS.map((p) => [p, [] as number[]])) as Record<
  BenchProvider,
  number[]
>;
const phases = Object.fromEntries(
  COLD.map((p) => [p, { started: [], result: [], dispose: [] } as Phases]),
) as Record<string, Phases>;

async function round(record: boolean): Promise<void> {
  for (const provider of PROVIDERS) {
    for (let i = 0; i < PER_ROUND[provider]!; i++) {
      const t0 = performance.now();
      const timing = await runOnce(bench, provider);
      if (!record) continue;
      samples[provider].push(performance.now() - t0);
      const cold = phases[provider];
      if (cold) {
        cold.started.push(timing.started);
        cold.result.push(timing.result);
        cold.dispose.push(timing.dispose);
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
const label: Record<BenchProvider, string> = {
  "acp-cold": "test agent, cold (spawn → result → dispose)",
  "acp-warm": "test agent, reuseProcess (per run)",
  "server-cold": "our server, cold (spawn → result → dispose)",
  "server-warm": "our server, reuseProcess (per run)",
  "bundle-cold": "our server bundled, cold",
  "before-cold": `the server of ${before}, cold`,
  spawn: "spawn in-process (baseline)",
};
for (const provider of PROVIDERS) {
  const values = samples[provider];
  console.log(
    `${label[provider].padEnd(45)} median ${quantile(values, 0.5).toFixed(2).padStart(7)} ms` +
      `   p90 ${quantile(values, 0.9).toFixed(2).padStart(7)} ms   n=${values.length}`,
  );
}
for (const provider of COLD) {
  const { started, result, dispose } = phases[provider];
  console.log(
    `  ${provider} phases (medians): started ${quantile(started, 0.5).toFixed(2)} ms` +
      ` (spawn → initialize → session/new), result ${quantile(result, 0.5).toFixed(2)} ms,` +
      ` dispose ${quantile(dispose, 0.5).toFixed(2)} ms`,
  );
}
await bench.close();
