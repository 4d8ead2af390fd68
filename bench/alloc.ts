// Bytes allocated per operation, counted by V8's sampling heap profiler
// (through node:inspector, every 256 bytes, collected objects included):
// repeatable to about ±50 bytes whatever else the machine is doing, so it can
// resolve a change that a timing on a busy machine cannot.
//
//   deno run -A bench/alloc.ts [--n=20000] [--only=gateway,spawn,plain]
//
// gateway: a blocking JSON-RPC `SendMessage` through `gateway.fetch` to an
// echo provider, 10 in flight (the Request built for it included);
// spawn: a spawn run on the scripted model (start → result → dispose);
// plain: the same one-turn reply by a plain agent, the baseline of spawn.
// Printed, never asserted.
import { Session } from "node:inspector/promises";
import { createHost, createLogger, createRootScope, createScriptedModel } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { createGateway } from "../gateway/mod.ts";
import { LOAD_BODY } from "./gateway_load_server.ts";
import { echo } from "./_echo_provider.ts";

const flags = new Map(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [k, v] = a.slice(2).split("=");
    return [k, v ?? "true"] as const;
  }),
);
const N = Number(flags.get("n") ?? 20_000);
const ONLY = (flags.get("only") ?? "gateway,spawn,plain").split(",");

/** Bytes allocated per call of `op`, after a warm-up. */
async function allocated(op: () => Promise<void>, n: number): Promise<number> {
  for (let i = 0; i < Math.min(5_000, n); i++) await op();
  const session = new Session();
  session.connect();
  try {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    for (let i = 0; i < n; i++) await op();
    const { profile } = await session.post("HeapProfiler.stopSampling");
    // Each sample is one allocation site's bytes (Node's typings leave the list out).
    const { samples } = profile as unknown as { samples: { size: number }[] };
    return samples.reduce((sum, sample) => sum + sample.size, 0) / n;
  } finally {
    session.disconnect();
  }
}

const rows: string[] = [];

if (ONLY.includes("gateway")) {
  const root = createRootScope({ logger: createLogger({ level: "silent" }) });
  createSubagentService(root).registerProvider(echo);
  const gateway = createGateway({ scope: root });
  const headers = { "content-type": "application/json", "a2a-version": "1.0" };
  const send = async () => {
    const request = new Request("http://127.0.0.1/", { method: "POST", headers, body: LOAD_BODY });
    await (await gateway.fetch(request)).text();
  };
  // Ten in flight, as under the load benchmark.
  const ten = () => Promise.all(Array.from({ length: 10 }, send)).then(() => {});
  const bytes = await allocated(ten, Math.ceil(N / 10)) / 10;
  rows.push(`| gateway \`SendMessage\` (blocking, echo) | ${bytes.toFixed(0)} |`);
  await gateway.close();
  await root.dispose();
}

if (ONLY.includes("spawn") || ONLY.includes("plain")) {
  const host = createHost({ logger: createLogger({ level: "silent" }) });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });
  if (ONLY.includes("plain")) {
    const bytes = await allocated(async () => {
      const agent = await host.agents.create({ options: { model: "scripted" } });
      agent.send("@reply done");
      await agent.whenIdle();
      await agent.dispose();
    }, N);
    rows.push(`| plain agent, one turn | ${bytes.toFixed(0)} |`);
  }
  if (ONLY.includes("spawn")) {
    const bytes = await allocated(async () => {
      const run = subagents.start("spawn", { prompt: "@reply done", parent });
      try {
        await run.result;
      } finally {
        await run.dispose();
      }
    }, N);
    rows.push(`| spawn run (start → result → dispose) | ${bytes.toFixed(0)} |`);
  }
  await host.scope.dispose();
}

console.log(`bytes allocated per operation (V8 sampling heap profiler, 256 B interval), n=${N}\n`);
console.log("| operation | bytes |\n| --- | --- |");
for (const row of rows) console.log(row);
