import assert from "node:assert/strict";
import { handleSubagentInput, subagentProgress, type SubagentProgressInfo } from "@seam/subagent";
import { testSubagentProvider } from "@seam/subagent/testing";
import {
  holdInputRequests,
  type ProviderUnderTest,
  providerUnderTest,
} from "@seam/adapter-kit/testing";
import { createOpenAIAgentsProvider } from "./mod.ts";
import { approvalTool, promptAgent } from "./_test_fixtures.ts";

Deno.test("createOpenAIAgentsProvider() passes the conformance suite", (t) =>
  testSubagentProvider(t, {
    createProvider: () => createOpenAIAgentsProvider({ agent: promptAgent() }),
    prompts: {
      complete: "complete hello from the agent",
      hang: "hang",
      fail: "fail",
      maxTokens: "max-tokens",
      structured: "structured",
      persona: "persona",
    },
    expectedOutput: "hello from the agent",
    timeoutMs: 5_000,
  }));

const danger = approvalTool();

function setUp(): ProviderUnderTest {
  return providerUnderTest(createOpenAIAgentsProvider({ agent: promptAgent([danger]) }));
}

Deno.test("createOpenAIAgentsProvider() streams text and tool calls as progress, and maps usage", async () => {
  const { root, start } = setUp();
  const progress: SubagentProgressInfo[] = [];
  root.on(subagentProgress, (p) => void progress.push(p));
  handleSubagentInput(root, () => ({ outcome: "selected", optionId: "approve" }));
  const run = start('call danger {"target":"build"}');
  const result = await run.result;
  assert.equal(result.stopReason, "completed");
  assert.deepEqual(result.output, [{ type: "text", text: "the tool said: deleted build" }]);
  assert.deepEqual(progress.map((p) => p.kind), ["tool-call", "tool-result", "text"]);
  assert.equal(progress[0].name, "danger");
  assert.equal(progress[2].text, "the tool said: deleted build");
  assert.ok(progress.every((p) => p.runId === run.id && p.provider === "openai-agents"));
  assert.deepEqual(
    { ...result.usage!.self, wallTimeMs: 0 },
    {
      inputTokens: 20,
      outputTokens: 10,
      cachedInputTokens: 2,
      modelCalls: 2,
      toolCalls: 1,
      wallTimeMs: 0,
    },
  );
  assert.equal(result.usage!.partial, false);
  await run.dispose();
  await root.dispose();
});

Deno.test("createOpenAIAgentsProvider() turns needsApproval into a seam request and resumes in place", async (t) => {
  await t.step("approved: the tool runs and the run goes on", async () => {
    const { root, start } = setUp();
    const held = holdInputRequests(root);
    const run = start('call danger {"target":"build"}');
    const request = await held.first();
    assert.equal(request.kind, "permission");
    assert.equal(request.toolCall?.name, "danger");
    assert.deepEqual(request.toolCall?.rawInput, { target: "build" });
    assert.deepEqual(request.path, [run.id]);
    run.respond!(request.id, { outcome: "selected", optionId: "approve" });
    assert.throws(
      () => run.respond!(request.id, { outcome: "selected", optionId: "reject" }),
      (e: unknown) => e instanceof RangeError && /no such request waits/.test(e.message),
    );
    const result = await run.result;
    assert.deepEqual(result.output, [{ type: "text", text: "the tool said: deleted build" }]);
    await run.dispose();
    await root.dispose();
  });

  await t.step(
    "refused with a reason: the model reads the rejection, the tool never runs",
    async () => {
      const { root, start } = setUp();
      handleSubagentInput(root, () => ({ outcome: "refused", reason: "not on Sundays" }));
      const run = start('call danger {"target":"build"}');
      const result = await run.result;
      assert.equal(result.stopReason, "completed");
      assert.match(
        String(result.output[0].type === "text" && result.output[0].text),
        /not on Sundays/,
      );
      assert.equal(result.usage!.self.toolCalls, 1);
      await run.dispose();
      await root.dispose();
    },
  );

  await t.step("an option not offered is refused and the request keeps waiting", async () => {
    const { root, start } = setUp();
    const asked = holdInputRequests(root);
    const run = start('call danger {"target":"x"}');
    await asked.first();
    assert.throws(
      () => run.respond!(asked.asked[0].id, { outcome: "selected", optionId: "yes please" }),
      /option "yes please" was not offered/,
    );
    run.respond!(asked.asked[0].id, { outcome: "selected", optionId: "reject" });
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    await run.dispose();
    await root.dispose();
  });

  await t.step("cancelled while it waits: ends aborted, the request is refused", async () => {
    const { root, start } = setUp();
    const asked = holdInputRequests(root);
    const run = start('call danger {"target":"x"}');
    await asked.first();
    run.cancel("no time");
    assert.equal((await run.result).stopReason, "aborted");
    assert.throws(() =>
      run.respond!(asked.asked[0].id, { outcome: "selected", optionId: "approve" })
    );
    await run.dispose();
    await root.dispose();
  });
});
