import assert from "node:assert/strict";
import { createTool } from "@mastra/core/tools";
import { createRootScope } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  subagentProgress,
  type SubagentProgressInfo,
} from "@seam/subagent";
import { testSubagentProvider } from "@seam/subagent/testing";
import {
  holdInputRequests,
  type ProviderUnderTest,
  providerUnderTest,
} from "@seam/adapter-kit/testing";
import { createMastraProvider } from "./mod.ts";
import { promptAgent } from "./_test_fixtures.ts";

Deno.test("createMastraProvider() passes the conformance suite", (t) =>
  testSubagentProvider(t, {
    createProvider: () => createMastraProvider({ agent: promptAgent() }),
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

const schema = {
  type: "object",
  properties: { target: { type: "string" } },
  required: ["target"],
};
const danger = createTool({
  id: "danger",
  description: "Needs approval.",
  inputSchema: schema as never,
  requireApproval: true,
  execute: (input: unknown) => Promise.resolve(`deleted ${(input as { target: string }).target}`),
});
const ask = createTool({
  id: "ask",
  description: "Asks a person.",
  inputSchema: schema as never,
  execute: async (_input: unknown, context) => {
    const agent = context?.agent;
    if (agent?.resumeData === undefined) {
      await agent?.suspend({ message: "Which colour?" });
      return undefined;
    }
    return `the person said ${JSON.stringify(agent.resumeData)}`;
  },
});

function setUp(): ProviderUnderTest {
  return providerUnderTest(createMastraProvider({ agent: promptAgent({ danger, ask }) }));
}

Deno.test("createMastraProvider() streams text and tool calls as progress, and maps usage", async () => {
  const { root, start } = setUp();
  const progress: SubagentProgressInfo[] = [];
  root.on(subagentProgress, (p) => void progress.push(p));
  handleSubagentInput(root, () => ({ outcome: "selected", optionId: "approve" }));
  const run = start('call danger {"target":"build"}');
  const result = await run.result;
  assert.equal(result.stopReason, "completed");
  assert.deepEqual(result.output, [{ type: "text", text: "the tool said: deleted build" }]);
  assert.deepEqual(
    [...new Set(progress.map((p) => p.kind))],
    ["tool-call", "tool-result", "text"],
  );
  assert.equal(
    progress.filter((p) => p.kind === "text").map((p) => p.text).join(""),
    "the tool said: deleted build",
  );
  assert.deepEqual({ ...result.usage!.self, wallTimeMs: 0 }, {
    inputTokens: 20,
    outputTokens: 10,
    cachedInputTokens: 2,
    modelCalls: 2,
    toolCalls: 1,
    wallTimeMs: 0,
  });
  await run.dispose();
  await root.dispose();
});

Deno.test("createMastraProvider() turns tool approval and suspend into seam requests and resumes in place", async (t) => {
  await t.step("approval answered by run.respond; a second answer is refused", async () => {
    const { root, start } = setUp();
    const held = holdInputRequests(root);
    const run = start('call danger {"target":"build"}');
    const request = await held.first();
    assert.equal(request.kind, "permission");
    assert.deepEqual(request.toolCall?.rawInput, { target: "build" });
    run.respond!(request.id, { outcome: "selected", optionId: "approve" });
    assert.throws(
      () => run.respond!(request.id, { outcome: "selected", optionId: "decline" }),
      /no such request waits/,
    );
    assert.deepEqual((await run.result).output, [
      { type: "text", text: "the tool said: deleted build" },
    ]);
    await run.dispose();
    await root.dispose();
  });

  await t.step("declined: the tool never runs, the run goes on", async () => {
    const { root, start } = setUp();
    handleSubagentInput(root, () => ({ outcome: "refused", reason: "not today" }));
    const run = start('call danger {"target":"build"}');
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.doesNotMatch(JSON.stringify(result.output), /deleted build/);
    await run.dispose();
    await root.dispose();
  });

  await t.step("a suspended tool asks a question; the answer resumes it", async () => {
    const { root, start } = setUp();
    const held = holdInputRequests(root);
    const run = start('call ask {"target":"x"}');
    const request = await held.first();
    assert.equal(request.kind, "question");
    assert.equal(request.message, "Which colour?");
    run.respond!(request.id, { outcome: "answered", text: '{"colour":"green"}' });
    assert.deepEqual((await run.result).output, [
      { type: "text", text: 'the tool said: the person said {"colour":"green"}' },
    ]);
    await run.dispose();
    await root.dispose();
  });

  await t.step("cancelled while it waits: ends aborted", async () => {
    const { root, start } = setUp();
    const held = holdInputRequests(root);
    const run = start('call danger {"target":"x"}');
    const request = await held.first();
    run.cancel("no time");
    assert.equal((await run.result).stopReason, "aborted");
    assert.throws(() => run.respond!(request.id, { outcome: "selected", optionId: "approve" }));
    await run.dispose();
    await root.dispose();
  });
});

Deno.test("createMastraProvider() refuses wrong object kinds by name", () => {
  assert.throws(
    () => createMastraProvider({ agent: { name: "x", generate() {} } }),
    /Cannot create the Mastra provider: options.agent must be an Agent of @mastra\/core, got/,
  );
  assert.throws(
    () => createMastraProvider({ agent: promptAgent(), maxSteps: 1.5 }),
    /options.maxSteps must be a positive integer, got 1.5/,
  );
  assert.throws(
    () => createMastraProvider({ agent: promptAgent(), agents: [] } as never),
    /unknown option agents \(known: name, agent, maxSteps\)/,
  );
});

Deno.test("createMastraProvider() ends a model that throws error CHILD_FAILED, and one that never ends by its budget", async () => {
  const { root, start } = setUp();
  const failed = await start("fail").result;
  assert.equal(failed.stopReason, "error");
  assert.equal(failed.error?.code, "CHILD_FAILED");
  assert.match(failed.error!.message, /The Mastra run failed: .*the model is down/);
  const { getSubagentService } = await import("@seam/subagent");
  const hung = getSubagentService(root).start("mastra", {
    prompt: "hang",
    parent: { id: "m", scope: root },
    budget: { wallTimeMs: 50 },
  });
  assert.equal((await hung.result).stopReason, "budget-exhausted");
  await hung.dispose();
  await root.dispose();
});

Deno.test("createMastraProvider() gives the model only the tools the filter allows", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  const agent = promptAgent({ danger, ask });
  subagents.registerProvider(createMastraProvider({ agent }));
  const run = subagents.start("mastra", {
    prompt: "complete ok",
    parent: { id: "m", scope: root },
    toolFilter: { deny: ["danger"] },
  });
  assert.equal((await run.result).stopReason, "completed");
  await run.dispose();
  // deno-lint-ignore no-explicit-any
  const model = (agent as any).model as { doStreamCalls: { tools?: { name: string }[] }[] };
  assert.deepEqual(model.doStreamCalls.at(-1)!.tools?.map((t) => t.name), ["ask"]);
  await root.dispose();
});
