import assert from "node:assert/strict";
import { SubagentContractError } from "./errors.ts";
import { subagentEnd } from "./events.ts";
import type { SubagentRunEndInfo } from "./types.ts";
import { flush, manualProvider, setup } from "./_test_fixtures.ts";

const figures = (n: number) => ({
  inputTokens: 10 * n,
  outputTokens: n,
  cachedInputTokens: 2 * n,
  modelCalls: n,
  toolCalls: n - 1,
});

Deno.test("result.usage rolls a run's own usage up over its descendants", async (t) => {
  await t.step("a parent's total is its own plus each child's total", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const ends: SubagentRunEndInfo[] = [];
    root.on(subagentEnd, (info) => void ends.push(info));
    const top = service.start("p", { prompt: "top", parent });
    provider.runs[0].started.resolve();
    const child = { id: top.id, scope: parent.scope.child("c") };
    const a = service.start("p", { prompt: "a", parent: child });
    const b = service.start("p", { prompt: "b", parent: child });
    provider.runs[1].started.resolve();
    provider.runs[2].started.resolve();
    const grandchild = service.start("p", {
      prompt: "g",
      parent: { id: a.id, scope: child.scope.child("g") },
    });
    provider.runs[3].started.resolve();

    provider.runs[3].result.resolve({
      output: "g",
      stopReason: "completed",
      usage: { self: figures(1) },
    });
    const g = await grandchild.result;
    assert.deepEqual({ ...g.usage!.self, wallTimeMs: 0 }, { ...figures(1), wallTimeMs: 0 });
    assert.equal(g.usage!.partial, false);
    provider.runs[1].result.resolve({
      output: "a",
      stopReason: "completed",
      usage: { self: figures(2) },
    });
    provider.runs[2].result.resolve({
      output: "b",
      stopReason: "completed",
      usage: { self: figures(3) },
    });
    const ra = await a.result;
    assert.equal(ra.usage!.self.inputTokens, 20);
    assert.equal(ra.usage!.total.inputTokens, 30, "a's total includes its grandchild");
    await b.result;
    provider.runs[0].result.resolve({
      output: "t",
      stopReason: "completed",
      usage: { self: figures(4) },
    });
    const rt = await top.result;
    const { wallTimeMs: _w, ...total } = rt.usage!.total;
    assert.deepEqual(total, {
      inputTokens: 100,
      outputTokens: 10,
      cachedInputTokens: 20,
      modelCalls: 10,
      toolCalls: 6,
    });
    assert.equal(rt.usage!.partial, false);
    assert.ok(rt.usage!.total.wallTimeMs >= rt.usage!.self.wallTimeMs);
    await flush();
    const topEnd = ends.find((e) => e.runId === top.id)!;
    assert.equal(topEnd.usage, rt.usage, "subagent/end carries the result's usage");
    for (const run of [top, a, b, grandchild]) await run.dispose();
    await root.dispose();
  });

  await t.step("a leg that does not report makes every total above it partial", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const top = service.start("p", { prompt: "top", parent });
    provider.runs[0].started.resolve();
    const silent = service.start("p", { prompt: "s", parent: { id: top.id, scope: parent.scope } });
    provider.runs[1].started.resolve();
    provider.runs[1].result.resolve({ output: "s", stopReason: "completed" });
    const rs = await silent.result;
    assert.equal(rs.usage!.partial, true);
    assert.equal(rs.usage!.self.modelCalls, 0);
    provider.runs[0].result.resolve({
      output: "t",
      stopReason: "completed",
      usage: { self: figures(1) },
    });
    const rt = await top.result;
    assert.equal(rt.usage!.partial, true, "the silent child makes the parent's total partial");
    assert.equal(rt.usage!.total.inputTokens, 10);
    await silent.dispose();
    await top.dispose();
    await root.dispose();
  });

  await t.step("a child whose result rejects makes its parent's total partial", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const top = service.start("p", { prompt: "top", parent });
    provider.runs[0].started.resolve();
    const broken = service.start("p", { prompt: "b", parent: { id: top.id, scope: parent.scope } });
    provider.runs[1].started.resolve();
    provider.runs[1].result.reject(new Error("broken"));
    await assert.rejects(broken.result);
    provider.runs[0].result.resolve({
      output: "t",
      stopReason: "completed",
      usage: { self: figures(1) },
    });
    const rt = await top.result;
    assert.equal(rt.usage!.partial, true, "the failed child's usage is missing from the total");
    await broken.dispose();
    await top.dispose();
    await root.dispose();
  });

  await t.step("a provider's own total (a remote subtree) and partial flag are kept", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const run = service.start("p", { prompt: "x", parent });
    provider.runs[0].started.resolve();
    provider.runs[0].result.resolve({
      output: "x",
      stopReason: "completed",
      usage: { self: { inputTokens: 1 }, total: { inputTokens: 9, modelCalls: 3 }, partial: true },
    });
    const usage = (await run.result).usage!;
    assert.equal(usage.self.inputTokens, 1);
    assert.equal(usage.self.modelCalls, 0, "an absent count is 0");
    assert.equal(usage.total.inputTokens, 9);
    assert.equal(usage.total.modelCalls, 3);
    assert.equal(usage.partial, true);
    await run.dispose();
    await root.dispose();
  });

  await t.step("malformed usage is a contract fault naming the field", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const bad: unknown[] = [
      [{ self: { inputTokens: -1 } }, /result\.usage\.self\.inputTokens must be a non-negative/],
      [{ self: { modelCalls: "2" } }, /result\.usage\.self\.modelCalls must be a non-negative/],
      [{ self: {}, partial: "yes" }, /result\.usage\.partial must be a boolean/],
      [{ self: {}, total: { toolCalls: Infinity } }, /result\.usage\.total\.toolCalls/],
      ["lots", /result\.usage must be an object/],
    ];
    for (const [usage, pattern] of bad as [unknown, RegExp][]) {
      const run = service.start("p", { prompt: "x", parent });
      const manual = provider.runs.at(-1)!;
      manual.started.resolve();
      manual.result.resolve({ output: "x", stopReason: "completed", usage: usage as never });
      await assert.rejects(
        run.result,
        (e: unknown) => e instanceof SubagentContractError && pattern.test(e.message),
      );
      await run.dispose();
    }
    await root.dispose();
  });

  await t.step("a rejected result's subagent/end has the wall time, partial", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const ends: SubagentRunEndInfo[] = [];
    root.on(subagentEnd, (info) => void ends.push(info));
    const run = service.start("p", { prompt: "x", parent });
    provider.runs[0].started.resolve();
    provider.runs[0].result.reject(new Error("broken"));
    await assert.rejects(run.result);
    await flush();
    assert.equal(ends[0].usage.partial, true);
    assert.equal(ends[0].usage.self.modelCalls, 0);
    await run.dispose();
    await root.dispose();
  });
});
