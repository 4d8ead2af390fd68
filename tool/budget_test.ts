import assert from "node:assert/strict";
import {
  type Agent,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  textOf,
  type ToolOutcome,
} from "@seam/host";
import { createSubagentService, type SubagentProvider } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "./mod.ts";

interface World {
  host: Host;
  main: Agent;
  dispose(): Promise<void>;
}

async function world(provider: SubagentProvider = createSpawnProvider()): Promise<World> {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  createSubagentService(host.scope).registerProvider(provider);
  const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
  return { host, main, dispose: () => host.scope.dispose() };
}

function call(w: World, prompt: string, agent: Agent = w.main): Promise<ToolOutcome> {
  return w.host.tools.execute(
    agent,
    { id: "call_0", name: "subagent", args: { description: "a task", prompt } },
    new AbortController().signal,
  );
}

Deno.test("installSubagentTool() config.budget bounds every child", async (t) => {
  await t.step("a child that runs out reads as an error result naming the limit", async () => {
    const w = await world();
    installSubagentTool(w.host.scope, { provider: "spawn", budget: { wallTimeMs: 10 } });
    const outcome = await call(w, "@hang");
    assert.equal(outcome.isError, true);
    const text = textOf(outcome.content);
    assert.match(text, /ran out of its budget/);
    assert.match(text, /BUDGET_EXHAUSTED/);
    assert.match(text, /budget\.wallTimeMs allows 10 ms of wall time/);
    await w.dispose();
  });

  await t.step("a child within it answers as usual", async () => {
    const w = await world();
    installSubagentTool(w.host.scope, { provider: "spawn", budget: { tokens: 1000 } });
    const outcome = await call(w, "@reply fine");
    assert.equal(outcome.isError, false);
    assert.equal(textOf(outcome.content), "fine");
    await w.dispose();
  });

  await t.step("a provider without the capability refuses every call", async () => {
    const spawn = createSpawnProvider();
    const w = await world({
      ...spawn,
      name: "spawn",
      capabilities: { ...spawn.capabilities, budget: false },
      start: (request) => spawn.start(request),
    });
    installSubagentTool(w.host.scope, { provider: "spawn", budget: { tokens: 1000 } });
    const outcome = await call(w, "@reply fine");
    assert.equal(outcome.isError, true);
    assert.match(textOf(outcome.content), /does not support request\.budget/);
    await w.dispose();
  });

  await t.step("a bad budget throws at install, naming config.budget", async () => {
    const w = await world();
    const cases: [unknown, RegExp][] = [
      [{ tokens: -1 }, /^RangeError: Invalid config\.budget\.tokens/],
      [{ children: 0.5 }, /config\.budget\.children: expected a non-negative safe integer/],
      [{ wallTimeMs: NaN }, /config\.budget\.wallTimeMs must be/],
      [{ tokenz: 1 }, /^TypeError: .*unknown field config\.budget\.tokenz/],
      [{}, /config\.budget must name at least one/],
      [5, /config\.budget must be an object/],
    ];
    for (const [budget, pattern] of cases) {
      assert.throws(
        () => installSubagentTool(w.host.scope, { provider: "spawn", budget: budget as never }),
        (e: unknown) => pattern.test(String(e)),
        JSON.stringify(budget),
      );
    }
    await w.dispose();
  });
});
