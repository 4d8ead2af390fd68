// Usage across an A2A hop: a seam gateway reports its run's usage (rolled up
// over its subtree) in the task's seam metadata; the A2A provider reads it
// into the run's result, and the local service adds it to the parent's total.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import { createSubagentService, subagentEnd, type SubagentRunEndInfo } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { installSubagentTool } from "@seam/tool-subagent";
import { readSeamReport, SEAM_EXTENSION_URI } from "../providers/a2a/_extension.ts";
import { startSpawnGateway } from "./a2a_support.ts";

Deno.test("usage crosses A2A: a seam gateway's run and its subtree reach the caller's result", async () => {
  const remote = startSpawnGateway("loopback", {
    setup: (host) => void installSubagentTool(host.scope, { provider: "spawn" }),
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const parent = { id: "main", scope: root.child("main") };
  const ends: SubagentRunEndInfo[] = [];
  root.on(subagentEnd, (info) => void ends.push(info));
  try {
    subagents.registerProvider(await createA2AProvider({ url: remote.url }));
    const run = subagents.start("a2a", {
      prompt: '@call subagent {"description": "d", "prompt": "@reply deep words"}\n@reply got it',
      parent,
    });
    const result = await run.result;
    assert.equal(textOf(result.output), "got it");
    const usage = result.usage!;
    assert.equal(usage.partial, false, "a seam gateway reports every leg");
    assert.equal(usage.self.modelCalls, 2, "the remote child: a tool step and its reply");
    assert.equal(usage.self.toolCalls, 1);
    assert.equal(usage.total.modelCalls, 3, "the remote grandchild's call is in the total");
    assert.equal(usage.total.outputTokens, usage.self.outputTokens + 2);
    assert.ok(usage.total.inputTokens > usage.self.inputTokens);
    assert.equal(ends.find((e) => e.runId === run.id)?.usage, usage);
    await run.dispose();
  } finally {
    await root.dispose();
    await remote.close();
  }
});

Deno.test("readSeamReport() keeps well-formed usage and drops anything else", () => {
  const figures = {
    inputTokens: 5,
    outputTokens: 2,
    cachedInputTokens: 0,
    modelCalls: 1,
    toolCalls: 0,
    wallTimeMs: 12,
  };
  const report = (usage: unknown) =>
    readSeamReport({ [SEAM_EXTENSION_URI]: { stopReason: "completed", usage } })?.usage;
  const { wallTimeMs: _, ...own } = figures;
  assert.deepEqual(report({ self: figures, total: figures, partial: true }), {
    self: own,
    total: figures,
    partial: true,
  });
  assert.equal(report(undefined), undefined, "no usage: the caller's figure is partial");
  assert.equal(report({ self: figures }), undefined, "no total");
  assert.equal(report({ self: { ...figures, modelCalls: -1 }, total: figures }), undefined);
  assert.equal(report({ self: figures, total: { ...figures, inputTokens: "5" } }), undefined);
});

Deno.test("readSeamReport() drops usage whose figures are beyond the safe integers", () => {
  const figures = {
    inputTokens: 5,
    outputTokens: 2,
    cachedInputTokens: 0,
    modelCalls: 1,
    toolCalls: 0,
    wallTimeMs: 12,
  };
  const report = (usage: unknown) =>
    readSeamReport({ [SEAM_EXTENSION_URI]: { stopReason: "completed", usage } })?.usage;
  // Two such figures add up to Infinity: a parent's total, a budget's charge.
  const huge = { ...figures, inputTokens: 1e308, outputTokens: 1e308 };
  assert.equal(report({ self: huge, total: huge }), undefined);
  assert.equal(report({ self: figures, total: { ...figures, toolCalls: 2 ** 53 } }), undefined);
  assert.ok(report({ self: figures, total: { ...figures, inputTokens: 2 ** 53 - 1 } }));
});
