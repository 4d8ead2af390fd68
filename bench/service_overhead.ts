// Median per-run cost of the service against the direct call, measured in
// alternating batches in one process so machine noise hits both alike.
// Run: deno task bench:overhead (add `-- --trace` to register a recording
// tracer provider whose exporter drops the spans: the cost of tracing ON;
// `-- --budget` to run every start under a budget: the cost of budgets ON).
import {
  runDirect,
  runThroughService as runPlain,
  runThroughServiceBudgeted,
  setupBench,
} from "./_trivial_provider.ts";

const runThroughService = Deno.args.includes("--budget") ? runThroughServiceBudgeted : runPlain;
if (Deno.args.includes("--budget")) console.log("budgets ON (tokens, tool calls, wall time)");

if (Deno.args.includes("--trace")) {
  const { trace } = await import("@opentelemetry/api");
  const { SimpleSpanProcessor, TracerProvider } = await import("@opentelemetry/sdk-trace");
  const exporter = {
    export: (_spans: unknown, done: (result: { code: 0 }) => void) => done({ code: 0 }),
    shutdown: () => Promise.resolve(),
  };
  trace.setGlobalTracerProvider(
    new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
  );
  console.log("tracing ON (a recording provider, spans dropped at export)");
}

const BATCH = 2_000;
const ROUNDS = 41;
const bench = setupBench();

async function batch(fn: (b: typeof bench) => Promise<void>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < BATCH; i++) await fn(bench);
  return ((performance.now() - t0) * 1000) / BATCH; // µs per run
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

for (let i = 0; i < 5; i++) {
  await batch(runDirect);
  await batch(runThroughService);
}
const direct: number[] = [];
const service: number[] = [];
const added: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const d = await batch(runDirect);
  const s = await batch(runThroughService);
  direct.push(d);
  service.push(s);
  added.push(s - d);
}
const md = median(direct);
const ms = median(service);
console.log(`direct provider call   median ${md.toFixed(2)} µs/run`);
console.log(`through the service    median ${ms.toFixed(2)} µs/run`);
console.log(`added by the service   median ${median(added).toFixed(2)} µs/run (target ≤ 10)`);
console.log(`ratio                  ${(ms / md).toFixed(2)}×`);
await bench.root.dispose();
