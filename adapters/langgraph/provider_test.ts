import assert from "node:assert/strict";
import { handleSubagentInput, subagentProgress, type SubagentProgressInfo } from "@seam/subagent";
import { testSubagentProvider } from "@seam/subagent/testing";
import {
  holdInputRequests,
  type ProviderUnderTest,
  providerUnderTest,
} from "@seam/adapter-kit/testing";
import { createLangGraphProvider } from "./mod.ts";
import { promptGraph } from "./_test_fixtures.ts";

Deno.test("createLangGraphProvider() passes the conformance suite", (t) =>
  testSubagentProvider(t, {
    createProvider: () => createLangGraphProvider({ graph: promptGraph() }),
    prompts: {
      complete: "complete hello from the graph",
      hang: "hang",
      fail: "fail",
      maxTokens: "max-tokens",
      persona: "persona",
    },
    expectedOutput: "hello from the graph",
    timeoutMs: 5_000,
  }));

function setUp(): ProviderUnderTest {
  return providerUnderTest(createLangGraphProvider({ graph: promptGraph() }));
}

Deno.test("createLangGraphProvider() streams tokens as progress and maps usage", async () => {
  const { root, start } = setUp();
  const progress: SubagentProgressInfo[] = [];
  root.on(subagentProgress, (p) => void progress.push(p));
  const run = start("complete hi there");
  const result = await run.result;
  assert.deepEqual(result.output, [{ type: "text", text: "hi there" }]);
  // FakeListChatModel streams one character at a time.
  assert.equal(progress.filter((p) => p.kind === "text").map((p) => p.text).join(""), "hi there");
  assert.ok(progress.length > 1);
  assert.deepEqual({ ...result.usage!.self, wallTimeMs: 0 }, {
    inputTokens: 10,
    outputTokens: 5,
    cachedInputTokens: 2,
    modelCalls: 1,
    toolCalls: 0,
    wallTimeMs: 0,
  });
  assert.equal(result.usage!.partial, false);
  await run.dispose();
  await root.dispose();
});

Deno.test("createLangGraphProvider() turns interrupt() into seam requests and resumes with Command", async (t) => {
  await t.step("a question: the answer's text is the resume value", async () => {
    const { root, start } = setUp();
    const held = holdInputRequests(root);
    const run = start("ask Which colour?");
    const request = await held.first();
    assert.equal(request.kind, "question");
    assert.equal(request.message, "Which colour?");
    run.respond!(request.id, { outcome: "answered", text: "blue" });
    assert.throws(
      () => run.respond!(request.id, { outcome: "answered", text: "red" }),
      /no such request waits/,
    );
    assert.deepEqual((await run.result).output, [{ type: "text", text: "you said blue" }]);
    await run.dispose();
    await root.dispose();
  });

  await t.step("a refused question ends error INPUT_REQUIRED, naming it", async () => {
    const { root, start } = setUp();
    handleSubagentInput(root, () => ({ outcome: "refused", reason: "not telling" }));
    const run = start("ask Which colour?");
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.equal(result.error?.code, "INPUT_REQUIRED");
    assert.match(result.error!.message, /asked "Which colour\?" and got no answer: not telling/);
    await run.dispose();
    await root.dispose();
  });

  await t.step(
    "a prebuilt HumanInterrupt: a permission request, resumed with a HumanResponse",
    async () => {
      const { root, start } = setUp();
      const held = holdInputRequests(root);
      const run = start('review deploy {"env":"prod"}');
      const request = await held.first();
      assert.equal(request.kind, "permission");
      assert.equal(request.message, "Run deploy?");
      assert.deepEqual(request.toolCall?.rawInput, { env: "prod" });
      assert.deepEqual(request.options?.map((o) => o.id), ["approve", "reject"]);
      run.respond!(request.id, { outcome: "selected", optionId: "approve" });
      assert.deepEqual((await run.result).output, [
        { type: "text", text: 'review: {"type":"accept","args":null}' },
      ]);
      await run.dispose();
      await root.dispose();
    },
  );

  await t.step("a refusal of a HumanInterrupt responds with its reason", async () => {
    const { root, start } = setUp();
    handleSubagentInput(root, () => ({ outcome: "refused", reason: "freeze week" }));
    const run = start('review deploy {"env":"prod"}');
    assert.deepEqual((await run.result).output, [
      { type: "text", text: 'review: {"type":"response","args":"freeze week"}' },
    ]);
    await run.dispose();
    await root.dispose();
  });

  await t.step("cancelled while it waits: ends aborted, nothing left waiting", async () => {
    const { root, start } = setUp();
    const held = holdInputRequests(root);
    const run = start("ask Which colour?");
    const request = await held.first();
    run.cancel("no time");
    assert.equal((await run.result).stopReason, "aborted");
    assert.throws(() => run.respond!(request.id, { outcome: "answered", text: "blue" }));
    await run.dispose();
    await root.dispose();
  });
});

Deno.test("createLangGraphProvider() refuses wrong object kinds by name", async () => {
  const { StateGraph, MessagesAnnotation } = await import("@langchain/langgraph");
  assert.throws(
    () => createLangGraphProvider({ graph: new StateGraph(MessagesAnnotation) }),
    /Cannot create the LangGraph provider: options.graph is a StateGraph that is not compiled: pass graph.compile\(\)/,
  );
  assert.throws(
    () => createLangGraphProvider({ graph: { invoke() {} } }),
    /options.graph must be a compiled LangGraph graph, got/,
  );
  assert.throws(
    () => createLangGraphProvider({ graph: promptGraph(), input: "messages" as never }),
    /options.input must be a function, got/,
  );
  assert.throws(
    () => createLangGraphProvider({ graph: promptGraph(), grpah: 1 } as never),
    /unknown option grpah \(known: name, graph, input, output, recursionLimit\)/,
  );
});

Deno.test("createLangGraphProvider() ends a graph that throws error CHILD_FAILED, and one that never ends by its budget", async () => {
  const { root, start } = setUp();
  const failed = await start("fail").result;
  assert.equal(failed.error?.code, "CHILD_FAILED");
  assert.match(failed.error!.message, /The LangGraph run failed: the model is down/);
  const subagents = (await import("@seam/subagent")).getSubagentService(root);
  const hung = subagents.start("langgraph", {
    prompt: "hang",
    parent: { id: "m", scope: root },
    budget: { wallTimeMs: 50 },
  });
  assert.equal((await hung.result).stopReason, "budget-exhausted");
  await hung.dispose();
  await root.dispose();
});
