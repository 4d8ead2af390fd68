// Median per-run overhead of the A2A hop and throughput at 50 concurrent
// runs, in alternating rounds in one process so machine noise hits every
// variant alike: the A2A provider → a seam gateway (spawn, scripted model)
// over loopback HTTP and through the gateway's fetch handler (no socket),
// against the in-process spawn provider running the same child.
// Run: deno run --allow-net=127.0.0.1 bench/a2a_medians.ts
import { type A2ABenchProvider, runOnce, setupA2ABench } from "./a2a_setup.ts";

const ROUNDS = 21;
const PER_ROUND = 40;
const CONCURRENT = 50;
const BATCHES = 6;
const PROVIDERS: A2ABenchProvider[] = ["spawn", "a2a-fetch", "a2a"];

const bench = await setupA2ABench();
const samples = Object.fromEntries(PROVIDERS.map((p) => [p, [] as number[]])) as Record<
  A2ABenchProvider,
  number[]
>;
const rates = Object.fromEntries(PROVIDERS.map((p) => [p, [] as number[]])) as Record<
  A2ABenchProvider,
  number[]
>;

async function sequential(record: boolean): Promise<void> {
  for (const provider of PROVIDERS) {
    for (let i = 0; i < PER_ROUND; i++) {
      const t0 = performance.now();
      await runOnce(bench, provider);
      if (record) samples[provider].push(performance.now() - t0);
    }
  }
}

async function concurrent(record: boolean): Promise<void> {
  for (const provider of PROVIDERS) {
    const t0 = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      await Promise.all(Array.from({ length: CONCURRENT }, () => runOnce(bench, provider)));
    }
    if (record) rates[provider].push((CONCURRENT * BATCHES) / ((performance.now() - t0) / 1000));
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
};

await sequential(false);
await concurrent(false);
for (let i = 0; i < ROUNDS; i++) {
  await sequential(true);
  if (i % 3 === 0) await concurrent(true);
}
await bench.close();

const label: Record<A2ABenchProvider, string> = {
  spawn: "spawn in-process",
  "a2a-fetch": "a2a → gateway.fetch (no socket)",
  a2a: "a2a → gateway, loopback HTTP",
};
const base = quantile(samples.spawn, 0.5);
console.log(
  `Deno ${Deno.version.deno}, ${ROUNDS} rounds × ${PER_ROUND} sequential runs; ` +
    `${Math.ceil(ROUNDS / 3)} × ${BATCHES} batches of ${CONCURRENT} concurrent runs\n`,
);
console.log(
  "| provider | median | p90 | overhead vs spawn (median) | runs/s at 50 concurrent (median) |",
);
console.log("| --- | --- | --- | --- | --- |");
for (const provider of PROVIDERS) {
  const median = quantile(samples[provider], 0.5);
  console.log(
    `| ${label[provider]} | ${median.toFixed(3)} ms | ${
      quantile(samples[provider], 0.9).toFixed(3)
    } ms | ${provider === "spawn" ? "—" : `${(median - base).toFixed(3)} ms`} | ${
      quantile(rates[provider], 0.5).toFixed(0)
    } |`,
  );
}
