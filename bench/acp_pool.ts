// Warm ACP children (issue 38): milliseconds from `start()` to the run's
// first `session/update` (`acp/update` in the parent's scope), with a fresh
// process per run (cold) and with `pool: { size: 1 }` (warm; the pool is
// refilled before each warm run, so a run always finds one idle), for our own
// ACP server (`providers/acp/serve.ts` on the scripted model, from source and
// bundled) and the test agent. Rounds alternate cold and warm in one process.
// With `--codex` (npm `@zed-industries/codex-acp`, installed into tests/.out
// on first use; or `--codex=<path>` of its executable), codex-acp too,
// offline: its model is the fake Responses API server of the tests
// (tests/mcp_fake_responses.ts, tests/acp_codex.ts), so its run answers.
// Run: deno run --allow-all bench/acp_pool.ts [--rounds=12] [--codex[=<path>]]
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { type AcpProvider, acpUpdate, createAcpProvider } from "@seam/subagent-acp";
import {
  bundledServerConfig,
  bundleServer,
  serverConfig,
  testAgentConfig,
} from "../tests/acp_support.ts";
import { codexAcp, codexAcpConfig, codexHome } from "../tests/acp_codex.ts";
import { startFakeResponses } from "../tests/mcp_fake_responses.ts";

const rounds = Number(
  Deno.args.find((a) => a.startsWith("--rounds="))?.slice("--rounds=".length) ?? 12,
);
const codexFlag = Deno.args.find((a) => a === "--codex" || a.startsWith("--codex="));
const codex = codexFlag === undefined
  ? undefined
  : codexFlag.slice("--codex=".length) || await codexAcp();
if (codexFlag !== undefined && codex === undefined) throw new Error("codex-acp is not installed");
const fake = codex === undefined ? undefined : startFakeResponses();
const home = fake === undefined ? undefined : await codexHome(fake.baseUrl);
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
    "codex-acp": (extra: object) => codexAcpConfig(codex, home!, { logger, ...extra }),
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
    ? "say hello"
    : "@reply hello";
  const run = service.start(provider.name, { prompt, parent: { id: `p${counter}`, scope } });
  try {
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
  await fake?.[Symbol.asyncDispose]();
  if (home !== undefined) await Deno.remove(home, { recursive: true });
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
