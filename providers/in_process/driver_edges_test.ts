import assert from "node:assert/strict";
import {
  agentCreated,
  agentDisposed,
  createHost,
  createMemoryLogger,
  createScriptedModel,
} from "@seam/host";
import {
  createSubagentService,
  delegationContextKey,
  subagentEnd,
  subagentStart,
} from "@seam/subagent";
import { createForkProvider } from "@seam/subagent-fork";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { createInProcessPreset, createInProcessProvider } from "./mod.ts";

/** Run `fn` now (depth 0) or after `depth` nested microtasks. */
function after(depth: number, fn: () => void): void {
  if (depth === 0) return fn();
  queueMicrotask(() => after(depth - 1, fn));
}

Deno.test("createInProcessProvider() keeps a cancel racing creation consistent", async (t) => {
  const outcomes = new Set<string>();
  for (const provider of ["spawn", "fork"]) {
    for (const how of ["cancel", "dispose"] as const) {
      await t.step(`${provider}: ${how}() 0 to 10 microtasks after start()`, async () => {
        for (let depth = 0; depth <= 10; depth++) {
          const host = createHost({ logger: createMemoryLogger().logger });
          host.models.register(host.scope, "scripted", createScriptedModel());
          const subagents = createSubagentService(host.scope);
          subagents.registerProvider(createSpawnProvider());
          subagents.registerProvider(createForkProvider());
          const parent = await host.agents.create({ id: "main", options: { model: "scripted" } });
          const seen: string[] = [];
          host.scope.on(agentCreated, (info) => void seen.push(`created:${info.agent.id}`));
          host.scope.on(agentDisposed, (info) => void seen.push(`disposed:${info.agentId}`));
          host.scope.on(subagentStart, (info) => void seen.push(`start:${info.runId}`));
          host.scope.on(
            subagentEnd,
            (info) => void seen.push(`end:${info.runId}:${info.stopReason}`),
          );

          const run = subagents.start(provider, { prompt: "@hang", parent });
          outcomes.add(depth === 0 ? "same tick" : "later");
          let disposal: Promise<void> | undefined;
          after(depth, () => how === "dispose" ? disposal = run.dispose() : run.cancel("stop"));
          const result = await run.result;
          const started = await run.started.then(() => true, () => false);
          await (disposal ?? run.dispose());
          await new Promise((resolve) => setTimeout(resolve, 0));
          const at = `${provider} ${how} at depth ${depth}: ${seen.join(", ")}`;

          assert.equal(result.stopReason, "aborted", at);
          const id = run.id;
          const published = seen.includes(`created:${id}`);
          outcomes.add(published ? "published" : "unpublished");
          if (published) {
            // A child the world saw is a started run: start and end are paired.
            assert.ok(started, `started fulfils once the child was published (${at})`);
            assert.ok(seen.includes(`start:${id}`), at);
            assert.ok(seen.includes(`end:${id}:aborted`), at);
            assert.ok(seen.indexOf(`start:${id}`) < seen.indexOf(`end:${id}:aborted`), at);
            assert.ok(seen.includes(`disposed:${id}`), at);
          } else {
            assert.ok(!started, at);
            assert.deepEqual(seen, [], `nothing observable escapes (${at})`);
          }
          assert.deepEqual(host.agents.list().map((a) => a.id), ["main"], at);
          await host.scope.dispose();
        }
      });
    }
  }
  assert.ok(outcomes.has("published") && outcomes.has("unpublished"), "both sides were raced");
});

async function world() {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  subagents.registerProvider(createForkProvider());
  const parent = await host.agents.create({ id: "main", options: { model: "scripted" } });
  return { host, subagents, parent };
}

Deno.test("createInProcessProvider() refuses a depth with no safe successor before any child", async (t) => {
  await t.step("a parent agent at Number.MAX_SAFE_INTEGER", async () => {
    const { host, subagents } = await world();
    const deep = await host.agents.create({
      id: "deep",
      options: { model: "scripted", subagentDepth: Number.MAX_SAFE_INTEGER },
    });
    const created: string[] = [];
    host.scope.on(agentCreated, (info) => void created.push(info.agent.id));
    for (const provider of ["spawn", "fork"]) {
      assert.throws(
        () => subagents.start(provider, { prompt: "@reply x", parent: deep }),
        (error: unknown) =>
          error instanceof RangeError && /depth 9007199254740991 has no safe successor/.test(
            error.message,
          ),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(created, [], "no child was created");
    await host.scope.dispose();
  });
  await t.step("a delegation context at Number.MAX_SAFE_INTEGER", async () => {
    const { host, subagents } = await world();
    const scope = host.scope.child("remote caller");
    scope.provide(delegationContextKey, { depth: Number.MAX_SAFE_INTEGER });
    assert.throws(
      () =>
        subagents.start("spawn", {
          prompt: "@reply x",
          parent: { id: "gateway", scope },
          agentOptions: { model: "scripted" },
        }),
      RangeError,
    );
    await host.scope.dispose();
  });
});

Deno.test("createInProcessProvider() never takes an agent id the user chose", async () => {
  const { host, subagents, parent } = await world();
  // Whatever the next run number, the user holds the ids of the next runs.
  const probe = subagents.start("spawn", { prompt: "@reply probe", parent });
  await probe.result;
  await probe.dispose();
  const n = Number(probe.id.slice("spawn-".length));
  for (const k of [1, 2, 3]) {
    await host.agents.create({ id: `spawn-${n + k}`, options: { model: "scripted" } });
  }
  const run = subagents.start("spawn", { prompt: "@reply mine", parent });
  const result = await run.result;
  assert.equal(result.stopReason, "completed", result.error?.message);
  assert.equal(run.id, `spawn-${n + 4}`);
  await run.dispose();
  assert.ok(host.agents.get(`spawn-${n + 1}`), "the user's agents are untouched");
  await host.scope.dispose();
});

/** A tool that waits until its call is aborted and records the abort's message. */
function registerWaitTool(host: Awaited<ReturnType<typeof world>>["host"], reasons: string[]) {
  let entered!: () => void;
  const inTool = new Promise<void>((resolve) => entered = resolve);
  host.tools.register(host.scope, {
    name: "wait",
    description: "Wait until aborted",
    parameters: { type: "object" },
    execute: (_args, call) => {
      entered();
      return new Promise((resolve) =>
        call.signal.addEventListener("abort", () => {
          const reason = call.signal.reason;
          reasons.push(reason instanceof Error ? reason.message : String(reason));
          resolve({ content: "stopped" });
        })
      );
    },
  });
  return inTool;
}

Deno.test("createInProcessProvider() cancels the child with the signal's reason", async (t) => {
  for (
    const [label, reason, expected] of [
      ["a string reason", "the user pressed stop", "the user pressed stop"],
      ["an Error reason", new Error("the deadline passed"), "the deadline passed"],
    ] as const
  ) {
    await t.step(label, async () => {
      const { host, subagents, parent } = await world();
      const reasons: string[] = [];
      const inTool = registerWaitTool(host, reasons);
      const controller = new AbortController();
      const run = subagents.start("spawn", {
        prompt: "@call wait {}",
        parent,
        signal: controller.signal,
      });
      await inTool;
      controller.abort(reason);
      assert.equal((await run.result).stopReason, "aborted");
      assert.deepEqual(reasons, [expected]);
      await run.dispose();
      await host.scope.dispose();
    });
  }
});

Deno.test("createInProcessProvider(): unloading the provider ends its runs and their children", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  const plugin = host.scope.child("plugin");
  subagents.registerProvider(createSpawnProvider(), { scope: plugin });
  const parent = await host.agents.create({ id: "main", options: { model: "scripted" } });
  const reasons: string[] = [];
  const inTool = registerWaitTool(host, reasons);
  const working = subagents.start("spawn", { prompt: "@call wait {}", parent });
  const idle = subagents.start("spawn", { prompt: "@reply done", parent });
  assert.equal((await idle.result).stopReason, "completed");
  await inTool;
  assert.equal(host.agents.list().length, 3);

  await plugin.dispose(); // a hot reload of the plugin that registered spawn

  assert.equal((await working.result).stopReason, "aborted");
  assert.deepEqual(reasons, ["the subagent provider was unloaded"]);
  assert.deepEqual(host.agents.list().map((a) => a.id), ["main"], "both children are gone");
  assert.deepEqual(subagents.list(), []);
  await working.dispose();
  await idle.dispose();
  await host.scope.dispose();
});

Deno.test("createInProcessProvider() and createInProcessPreset() refuse an unknown option", () => {
  assert.throws(
    () => createInProcessProvider({ name: "x", inheritsParentContext: false, hots: {} } as never),
    new TypeError(
      'Cannot create provider "x": unknown option hots (known: name, inheritsParentContext, host)',
    ),
  );
  assert.throws(
    () => createInProcessPreset("helper", false, { nmae: "x" } as never),
    new TypeError('Cannot create provider "helper": unknown option nmae (known: name, host)'),
  );
});
