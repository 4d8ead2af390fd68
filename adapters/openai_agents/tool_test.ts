import assert from "node:assert/strict";
import { Agent, Runner } from "@openai/agents";
import { createRootScope } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  subagentEnd,
  type SubagentInputRequest,
  type SubagentRunEndInfo,
} from "@seam/subagent";
import { subagentToolWording } from "@seam/tool-subagent";
import { createOpenAIAgentsProvider, subagentTool } from "./mod.ts";
import { approvalTool, promptAgent, promptModel } from "./_test_fixtures.ts";

const danger = approvalTool();

const delegateCall = (prompt: string) =>
  `call subagent ${JSON.stringify({ description: "Clean up", prompt })}`;

Deno.test("subagentTool() is a FunctionTool with the subagent tool's schema and wording", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(createOpenAIAgentsProvider({ agent: promptAgent(), name: "child" }));
  const made = subagentTool(root, { provider: "child", toolName: "delegate" });
  assert.equal(made.type, "function");
  assert.equal(made.name, "delegate");
  assert.equal(made.description, subagentToolWording(false).description);
  assert.deepEqual(made.parameters.required, ["description", "prompt"]);
  await root.dispose();
});

Deno.test("subagentTool() delegates from a top-level agent, with the child's approval answered at the root", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(
    createOpenAIAgentsProvider({ agent: promptAgent([danger]), name: "child" }),
  );
  const asked: SubagentInputRequest[] = [];
  handleSubagentInput(root, (request) => {
    asked.push(request);
    return { outcome: "selected", optionId: "approve" };
  });
  const ends: SubagentRunEndInfo[] = [];
  root.on(subagentEnd, (info) => void ends.push(info));
  const parent = new Agent({
    name: "parent",
    instructions: "Delegate.",
    model: promptModel(),
    tools: [subagentTool(root, { provider: "child" })],
  });
  const result = await new Runner({ tracingDisabled: true }).run(
    parent,
    delegateCall('call danger {"target":"build"}'),
    { stream: true },
  );
  await result.completed;
  assert.equal(result.finalOutput, "the tool said: the tool said: deleted build");
  assert.equal(asked.length, 1);
  assert.equal(asked[0].toolCall?.name, "danger");
  assert.equal(ends.length, 1);
  assert.equal(ends[0].parentId, "openai-agents");
  assert.equal(ends[0].label, "Clean up");
  await root.dispose();
});

Deno.test("subagentTool() inside a provider's run delegates below that run: path, depth cap and usage roll up", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(
    createOpenAIAgentsProvider({ agent: promptAgent([danger]), name: "child" }),
  );
  const parentAgent = new Agent({
    name: "parent",
    instructions: "Delegate.",
    model: promptModel(),
    tools: [subagentTool(root, { provider: "child" })],
  });
  subagents.registerProvider(createOpenAIAgentsProvider({ agent: parentAgent, name: "parent" }));
  const asked: SubagentInputRequest[] = [];
  handleSubagentInput(root, (request) => {
    asked.push(request);
    return { outcome: "selected", optionId: "approve" };
  });
  const run = subagents.start("parent", {
    prompt: delegateCall('call danger {"target":"build"}'),
    parent: { id: "main", scope: root },
  });
  const result = await run.result;
  assert.equal(result.stopReason, "completed");
  assert.equal(asked.length, 1);
  assert.equal(asked[0].path.length, 2);
  assert.equal(asked[0].path[0], run.id);
  // The parent's two model calls and one tool call, plus the child's two and one.
  assert.equal(result.usage!.self.modelCalls, 2);
  assert.equal(result.usage!.total.modelCalls, 4);
  assert.equal(result.usage!.total.toolCalls, 2);
  await run.dispose();

  // With maxDepth 1 the child's own delegation is refused, and the model reads why.
  const capped = subagents.start("parent", {
    prompt: delegateCall("complete hi"),
    parent: { id: "main", scope: root },
    maxDepth: 1,
  });
  const cappedResult = await capped.result;
  assert.match(
    String(cappedResult.output[0].type === "text" && cappedResult.output[0].text),
    /could not be started: Cannot start subagent: the child would be at depth 2, above the maximum depth 1/,
  );
  await capped.dispose();
  await root.dispose();
});

Deno.test("subagentTool() refuses bad input by name", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(createOpenAIAgentsProvider({ agent: promptAgent(), name: "child" }));
  assert.throws(
    () => subagentTool({} as never, { provider: "child" }),
    /Cannot make the openai-agents subagent tool: scope must be a seam Scope/,
  );
  assert.throws(
    () => subagentTool(root, { provider: "nope" }),
    /config.provider "nope" is no registered provider \(registered: child\)/,
  );
  assert.throws(
    () => subagentTool(root, { provider: "child", provder: "x" } as never),
    /unknown option provder \(known: provider, toolName/,
  );
  assert.throws(() => subagentTool(root, { provider: "child", maxDepth: -1 }), /maxDepth/);
  await root.dispose();
});
