// Warm ACP children (issue 38): milliseconds from `start()` to the run's
// first `session/update` (`acp/update` in the parent's scope), with a fresh
// process per run (cold) and with `pool: { size: 1 }` (warm; the pool is
// refilled before each warm run, so a run always finds one idle), for our own
// ACP server (`providers/acp/serve.ts` on the scripted model, from source and
// bundled) and the test agent. Rounds alternate cold and warm in one process.
// With `--codex=<path of the codex-acp binary>` (npm `@zed-industries/codex-acp`,
// its platform package's `bin/codex-acp`), codex-acp too: offline (a dummy
// key, a model URL nobody answers), its first update is the
// `available_commands_update` it sends after `session/new`, no model reply;
// its run is cancelled then.
// Run: deno run --allow-all bench/acp_pool.ts [--rounds=12] [--codex=<path>]
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { type AcpProvider, acpUpdate, createAcpProvider } from "@seam/subagent-acp";
import {
  bundledServerConfig,
  bundleServer,
  serverConfig,
  testAgentConfig,
} from "../tests/acp_support.ts";

const rounds = Number(
  Deno.args.find((a) => a.startsWith("--rounds="))?.slice("--rounds=".length) ?? 12,
);
const codex = Deno.args.find((a) => a.startsWith("--codex="))?.slice("--codex=".length);
const codexHome = codex === undefined ? undefined : await Deno.makeTempDir();
const { logger } = createMemoryLogger();
const root = createRootScope({ logger });
const service = createSubagentService(root);
const bundle = await bundleServer();
const kinds = {
  "server (source)": (extra: object) => serverConfig({ logger, ...extra }, "warn"),
  "server (bundle)": (extra: object) =>
    bundledServerConfig(bundle.path, { logger, ...extra }, "warn"),
  "test agent": (extra: object) => testAgentConfig([], { logger, ...extra }),
  ...(codex === undefined ? {} : {
    "codex-acp": (extra: object) => ({
      command: codex,
      env: {
        OPENAI_API_KEY: "sk-offline",
        CODEX_HOME: codexHome!,
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      },
      disposeEofGraceMs: 200,
      disposeGraceMs: 1_000,
      logger,
      ...extra,
    }),
  }),
};
const providers: Array<{ kind: string; mode: "cold" | "warm"; provider: AcpProvider }> = [];
for (const [kind, config] of Object.entries(kinds)) {
  const slug = kind.replace(/\W+/g, "-");
  for (const mode of ["cold", "warm"] as const) {
    const provider = createAcpProvider({
      ...config({ name: `${slug}-${mode}` }),
      ...(mode === "warm" ? { pool: { size: 1 } } : {}),
    });
    service.registerProvider(provider);
    providers.push({ kind, mode, provider });
  }
}

let counter = 0;
/** Start one run; ms to its first update and to its result. */
async function once(provider: AcpProvider, kind: string): Promise<[number, number]> {
  const scope = root.child(`parent-${++counter}`);
  let first = 0;
  const t0 = performance.now();
  scope.on(acpUpdate, () => {
    if (first === 0) first = performance.now() - t0;
  });
  const prompt = kind === "test agent"
    ? "complete hello"
    : kind === "codex-acp"
    ? "hi"
    : "@reply hello";
  const run = service.start(provider.name, { prompt, parent: { id: `p${counter}`, scope } });
  try {
    if (kind === "codex-acp") {
      // No model answers: the first update is all there is to time.
      await run.started;
      const deadline = performance.now() + 10_000;
      while (first === 0 && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      if (first === 0) throw new Error("codex-acp sent no update within 10 s");
      return [first, Number.NaN];
    }
    const { stopReason } = await run.result;
    if (stopReason !== "completed") throw new Error(`${provider.name} ended ${stopReason}`);
    return [first, performance.now() - t0];
  } finally {
    await run.dispose();
    await scope.dispose();
  }
}

const samples = new Map<string, { first: number[]; result: number[] }>();
try {
  for (const { provider, kind } of providers) await once(provider, kind); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const { kind, mode, provider } of providers) {
      if (mode === "warm") await provider.whenWarm();
      const [first, result] = await once(provider, kind);
      const key = `${kind} ${mode}`;
      const entry = samples.get(key) ?? { first: [], result: [] };
      entry.first.push(first);
      entry.result.push(result);
      samples.set(key, entry);
    }
  }
} finally {
  for (const { provider } of providers) await provider.dispose();
  await root.dispose();
  await bundle.remove();
  if (codexHome !== undefined) await Deno.remove(codexHome, { recursive: true });
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};
console.log(`${rounds} rounds, cold and warm alternating; ms from start() (median / p90 / min)`);
console.log("| agent | mode | first session/update | result |");
console.log("| --- | --- | --- | --- |");
for (const [key, { first, result }] of samples) {
  const [kind, mode] = [key.slice(0, key.lastIndexOf(" ")), key.slice(key.lastIndexOf(" ") + 1)];
  const f = (v: number[]) =>
    v.some(Number.isNaN)
      ? "n/a"
      : `${pct(v, 0.5).toFixed(1)} / ${pct(v, 0.9).toFixed(1)} / ${Math.min(...v).toFixed(1)}`;
  console.log(`| ${kind} | ${mode} | ${f(first)} | ${f(result)} |`);
}
