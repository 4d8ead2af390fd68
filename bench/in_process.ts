// In-process children, each figure against a baseline in the same run:
//   1. spawn runs per second (scripted one-turn reply, start → result →
//      dispose) against the same turn run by a plain agent with no seam;
//   2. RSS with 10,000 concurrent children parked on a hanging model,
//      before / during / after dispose;
//   3. fork start of a parent with a 1,000-event session, against a spawn
//      start from the same parent.
// Run: deno task bench:in-process (or: deno run --v8-flags=--expose-gc bench/in_process.ts memory)
import {
  type Agent,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
} from "@seam/host";
import { createSubagentService, type SubagentService } from "@seam/subagent";
import { createForkProvider } from "@seam/subagent-fork";
import { createSpawnProvider } from "@seam/subagent-spawn";

interface World {
  host: Host;
  subagents: SubagentService;
  parent: Agent;
}

async function world(): Promise<World> {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  subagents.registerProvider(createForkProvider());
  const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });
  return { host, subagents, parent };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const gc = (globalThis as { gc?: () => void }).gc;

async function plainTurn(w: World): Promise<void> {
  const agent = await w.host.agents.create({ options: { model: "scripted" } });
  agent.send("@reply done");
  await agent.whenIdle();
  await agent.dispose();
}

async function spawnRun(w: World): Promise<void> {
  const run = w.subagents.start("spawn", { prompt: "@reply done", parent: w.parent });
  try {
    await run.result;
  } finally {
    await run.dispose();
  }
}

async function throughput(): Promise<void> {
  const w = await world();
  const BATCH = 10_000;
  const rounds = 15;
  const rate = async (fn: (w: World) => Promise<void>) => {
    const t0 = performance.now();
    for (let i = 0; i < BATCH; i++) await fn(w);
    return BATCH / ((performance.now() - t0) / 1000);
  };
  for (let i = 0; i < 3; i++) {
    await rate(plainTurn);
    await rate(spawnRun);
  }
  const plain: number[] = [];
  const spawn: number[] = [];
  for (let i = 0; i < rounds; i++) {
    plain.push(await rate(plainTurn));
    spawn.push(await rate(spawnRun));
  }
  const p = median(plain);
  const s = median(spawn);
  console.log("1. one-turn runs per second (median of 15 alternating batches of 10,000)");
  console.log(`   plain agent, no seam   ${p.toFixed(0)} runs/s`);
  console.log(`   spawn via the service  ${s.toFixed(0)} runs/s (target ≥ 20,000)`);
  console.log(`   seam cost              ${(p / s).toFixed(2)}× the plain agent (target ≤ 2×)`);
  await w.host.scope.dispose();
}

async function memory(): Promise<void> {
  const N = 10_000;
  const w = await world();
  gc?.();
  const before = Deno.memoryUsage().rss;
  const heapBefore = Deno.memoryUsage().heapUsed;
  const runs = [];
  for (let i = 0; i < N; i++) {
    runs.push(w.subagents.start("spawn", { prompt: "@hang", parent: w.parent }));
  }
  await Promise.all(runs.map((run) => run.started));
  gc?.();
  const during = Deno.memoryUsage().rss;
  const heapDuring = Deno.memoryUsage().heapUsed;
  const live = w.host.agents.list().length - 1;
  await Promise.all(runs.map((run) => run.dispose()));
  const stops = new Set(
    (await Promise.all(runs.map((run) => run.result))).map((r) => r.stopReason),
  );
  runs.length = 0;
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc?.();
  const after = Deno.memoryUsage().rss;
  const heapAfter = Deno.memoryUsage().heapUsed;
  console.log(`2. ${N.toLocaleString()} concurrent children on a hanging model`);
  console.log(`   RSS before ${mb(before)}, during ${mb(during)} (${live} live children),`);
  console.log(
    `   after dispose ${mb(after)}; the children cost ${mb(during - before)} (target ≤ 200 MB)`,
  );
  console.log(
    `   V8 heap used: before ${mb(heapBefore)}, during ${mb(heapDuring)}, after ${mb(heapAfter)}`,
  );
  console.log(
    `   stop reasons after dispose: ${[...stops].join(", ")}; agents left: ${
      w.host.agents.list().length - 1
    }`,
  );
  await w.host.scope.dispose();
}

async function forkStart(): Promise<void> {
  const w = await world();
  // 250 turns of user + assistant messages: 1,000 session events.
  for (let i = 0; i < 250; i++) {
    w.parent.send(`@reply answer ${i}`);
    await w.parent.whenIdle();
  }
  const events = w.parent.session.length;
  const time = async (provider: string) => {
    const samples: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      const run = w.subagents.start(provider, { prompt: "@hang", parent: w.parent });
      await run.started;
      samples.push(performance.now() - t0);
      await run.dispose();
    }
    return median(samples);
  };
  await time("fork");
  await time("spawn");
  const fork = await time("fork");
  const spawn = await time("spawn");
  console.log(`3. start → started with a ${events}-event parent session (median of 200)`);
  console.log(`   spawn ${spawn.toFixed(3)} ms, fork ${fork.toFixed(3)} ms (target ≤ 5 ms)`);
  await w.host.scope.dispose();
}

// Each phase runs in its own process (see the bench:in-process task), so the
// memory figures start from a fresh heap.
const phases: Record<string, () => Promise<void>> = { throughput, memory, fork: forkStart };
for (const phase of Deno.args.length ? Deno.args : Object.keys(phases)) {
  if (!phases[phase]) throw new RangeError(`Unknown phase "${phase}" (${Object.keys(phases)})`);
  await phases[phase]();
}
