import assert from "node:assert/strict";
import { createRootScope } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputRequest,
  type SubagentProgressInfo,
} from "@seam/subagent";
import { subagentToolWording } from "@seam/tool-subagent";
import { createLangGraphProvider, subagentTool } from "./mod.ts";
import { promptGraph } from "./_test_fixtures.ts";

const delegateCall = (prompt: string) =>
  `call subagent ${JSON.stringify({ description: "Ask around", prompt })}`;

Deno.test("subagentTool() is a LangChain tool with the subagent tool's schema and wording", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(createLangGraphProvider({ graph: promptGraph(), name: "child" }));
  const made = subagentTool(root, { provider: "child" });
  assert.equal(made.name, "subagent");
  assert.equal(made.description, subagentToolWording(false).description);
  assert.deepEqual((made.schema as { required: string[] }).required, ["description", "prompt"]);
  assert.equal(
    await made.invoke({ description: "Greet", prompt: "complete hello" }),
    "hello",
  );
  assert.match(
    await made.invoke({ description: "Break", prompt: "fail" }),
    /^Error: The subagent failed before finishing its task\.\nWhat went wrong \(CHILD_FAILED\)/,
  );
  await root.dispose();
});

Deno.test("subagentTool() in a graph: the child's question is answered at the root, its progress is in the custom stream", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(createLangGraphProvider({ graph: promptGraph(), name: "child" }));
  handleSubagentInput(root, () => ({ outcome: "answered", text: "green" }));
  const graph = promptGraph([subagentTool(root, { provider: "child" })]);
  const custom: unknown[] = [];
  let last: unknown;
  for await (
    const [mode, chunk] of await graph.stream(
      { messages: [{ role: "user", content: delegateCall("ask Which colour?") }] },
      { configurable: { thread_id: "t1" }, streamMode: ["custom", "values"] },
    )
  ) {
    if (mode === "custom") custom.push(chunk);
    else last = chunk;
  }
  const messages = (last as { messages: { content: unknown }[] }).messages;
  assert.equal(messages.at(-1)!.content, "the tool said: you said green");
  const progress = custom.map((c) => (c as { subagent: SubagentProgressInfo }).subagent);
  assert.equal(progress.map((p) => p.text ?? "").join(""), "you said green");
  await root.dispose();
});

Deno.test("subagentTool() inside a provider's graph delegates below that run: path, depth cap and usage roll up", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(createLangGraphProvider({ graph: promptGraph(), name: "child" }));
  subagents.registerProvider(
    createLangGraphProvider({
      graph: promptGraph([subagentTool(root, { provider: "child" })]),
      name: "parent",
    }),
  );
  const asked: SubagentInputRequest[] = [];
  handleSubagentInput(root, (request) => {
    asked.push(request);
    return { outcome: "answered", text: "green" };
  });
  const run = subagents.start("parent", {
    prompt: delegateCall("ask Which colour?"),
    parent: { id: "main", scope: root },
  });
  const result = await run.result;
  assert.deepEqual(result.output, [{ type: "text", text: "the tool said: you said green" }]);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].path.length, 2);
  assert.equal(asked[0].path[0], run.id);
  assert.equal(result.usage!.self.toolCalls, 1);
  assert.equal(result.usage!.total.modelCalls, 3);
  await run.dispose();

  const capped = subagents.start("parent", {
    prompt: delegateCall("complete hi"),
    parent: { id: "main", scope: root },
    maxDepth: 1,
  });
  const cappedText = JSON.stringify((await capped.result).output);
  assert.match(cappedText, /the child would be at depth 2, above the maximum depth 1/);
  await capped.dispose();
  await root.dispose();
});

Deno.test("subagentTool() refuses bad input by name", async () => {
  const root = createRootScope();
  createSubagentService(root);
  assert.throws(
    () => subagentTool(root, { provider: "nope" }),
    /Cannot make the langgraph subagent tool: config.provider "nope" is no registered provider \(registered: none\)/,
  );
  assert.throws(
    () => subagentTool(root, { provider: "x", onProgress: 3 } as never),
    /config.onProgress must be a function, got 3/,
  );
  await root.dispose();
});
