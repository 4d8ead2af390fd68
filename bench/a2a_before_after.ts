// The A2A provider of this tree against another checkout's (`--before=<dir>`),
// in one process, in alternating rounds, both in front of the same seam
// gateway (spawn on the scripted model, reached through its fetch handler):
// medians of sequential runs, and of runs/s at 50 concurrent. Both use this
// tree's host and service, so only the provider differs.
// Run: deno run --allow-net=127.0.0.1 --allow-read bench/a2a_before_after.ts --before=<checkout>
import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { PROMPT, remoteGateway } from "./a2a_setup.ts";

const dir = Deno.args.find((a) => a.startsWith("--before="))?.slice("--before=".length);
if (dir === undefined) throw new Error("Cannot compare: give --before=<checkout>");
const root = new URL(`${dir.replace(/\/?$/, "/")}`, `file://${Deno.cwd()}/`);
const before: typeof createA2AProvider =
  (await import(new URL("providers/a2a/mod.ts", root).href)).createA2AProvider;

const ROUNDS = 25;
const PER_ROUND = 40;
const CONCURRENT = 50;
const BATCHES = 4;

const { remote, gateway } = remoteGateway();
const host = createHost({ logger: createMemoryLogger().logger });
host.models.register(host.scope, "scripted", createScriptedModel());
const service = createSubagentService(host.scope);
const fetch = (input: RequestInfo | URL, init?: RequestInit) =>
  gateway.fetch(new Request(input, init));
const providers = [
  await createA2AProvider({ url: "http://gateway.local", name: "after", fetch }),
  await before({ url: "http://gateway.local", name: "before", fetch }),
];
for (const provider of providers) service.registerProvider(provider);
const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });

async function once(provider: string): Promise<void> {
  const run = service.start(provider, { prompt: PROMPT, parent });
  await run.result;
  await run.dispose();
}

const sequential: Record<string, number[]> = { after: [], before: [] };
const rates: Record<string, number[]> = { after: [], before: [] };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Round 0 warms up; the order alternates so that drift hits both alike.
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 === 0 ? ["after", "before"] : ["before", "after"]) {
    for (let i = 0; i < PER_ROUND; i++) {
      const t0 = performance.now();
      await once(name);
      if (round > 0) sequential[name].push(performance.now() - t0);
    }
    const t0 = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      await Promise.all(Array.from({ length: CONCURRENT }, () => once(name)));
    }
    if (round > 0) rates[name].push((CONCURRENT * BATCHES) / ((performance.now() - t0) / 1000));
  }
}
for (const name of ["before", "after"]) {
  console.log(
    `${name === "before" ? `before (${dir})` : "after (this tree)"}: sequential median ${
      median(sequential[name]).toFixed(3)
    } ms, runs/s at ${CONCURRENT} concurrent median ${median(rates[name]).toFixed(0)}`,
  );
}
for (const provider of providers) await provider.dispose();
await host.scope.dispose();
await gateway.close();
await remote.scope.dispose();
