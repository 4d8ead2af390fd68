// The ACP provider (its client: the connection, the runs) of this tree
// against another checkout's (`--before=<dir>`), in one process, in
// alternating rounds: each with one warm process (`reuseProcess`) of the
// test agent and of this tree's server, so only the client differs (for the
// server, `acp_medians.ts --before=<dir>`). Medians of sequential runs.
// Run: deno run --allow-env --allow-read --allow-write=tests/.out --allow-run bench/acp_before_after.ts --before=<checkout>
import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createAcpProvider } from "@seam/subagent-acp";
import { serverConfig, testAgentConfig } from "../tests/acp_support.ts";

const dir = Deno.args.find((a) => a.startsWith("--before="))?.slice("--before=".length);
if (dir === undefined) throw new Error("Cannot compare: give --before=<checkout>");
const root = new URL(`${dir.replace(/\/?$/, "/")}`, `file://${Deno.cwd()}/`);
const before: typeof createAcpProvider =
  (await import(new URL("providers/acp/mod.ts", root).href)).createAcpProvider;

const ROUNDS = 16;
const PER_ROUND = 20;
const NAMES = ["agent-after", "agent-before", "server-after", "server-before"];

const { logger } = createMemoryLogger();
const host = createHost({ logger });
host.models.register(host.scope, "scripted", createScriptedModel());
const service = createSubagentService(host.scope);
const providers = [
  createAcpProvider(testAgentConfig([], { name: "agent-after", logger, reuseProcess: true })),
  before(testAgentConfig([], { name: "agent-before", logger, reuseProcess: true })),
  createAcpProvider(serverConfig({ name: "server-after", logger, reuseProcess: true }, "warn")),
  before(serverConfig({ name: "server-before", logger, reuseProcess: true }, "warn")),
];
for (const provider of providers) service.registerProvider(provider);
const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });

const samples: Record<string, number[]> = Object.fromEntries(NAMES.map((n) => [n, []]));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Round 0 warms up; the order alternates so that drift hits both alike.
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 === 0 ? NAMES : [...NAMES].reverse()) {
    const prompt = name.startsWith("agent")
      ? "complete hello from the child"
      : "@reply hello from the child";
    for (let i = 0; i < PER_ROUND; i++) {
      const t0 = performance.now();
      const run = service.start(name, { prompt, parent });
      await run.result;
      await run.dispose();
      if (round > 0) samples[name].push(performance.now() - t0);
    }
  }
}
for (const name of NAMES) {
  console.log(`${name} (before: ${dir}): median ${median(samples[name]).toFixed(3)} ms`);
}
for (const provider of providers) await provider.dispose();
await host.scope.dispose();
