import assert from "node:assert/strict";
import { createTool } from "@mastra/core/tools";
import { createRootScope } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputRequest,
  type SubagentProgressInfo,
} from "@seam/subagent";
import { subagentToolWording } from "@seam/tool-subagent";
import { createMastraProvider, subagentTool } from "./mod.ts";
import { promptAgent } from "./_test_fixtures.ts";

const danger = createTool({
  id: "danger",
  description: "Needs approval.",
  inputSchema: { type: "object", properties: { target: { type: "string" } } } as never,
  requireApproval: true,
  execute: (input: unknown) => Promise.resolve(`deleted ${(input as { target: string }).target}`),
});

const delegateCall = (prompt: string) =>
  `call subagent ${JSON.stringify({ description: "Clean up", prompt })}`;

Deno.test("subagentTool() is a Mastra tool with the subagent tool's schema and wording", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(createMastraProvider({ agent: promptAgent(), name: "child" }));
  const made = subagentTool(root, { provider: "child" });
  assert.equal(made.id, "subagent");
  assert.equal(made.description, subagentToolWording(false).description);
  await root.dispose();
});

Deno.test("subagentTool() delegates from a Mastra agent, the child's approval answered at the root, its progress on the tool's stream", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(
    createMastraProvider({ agent: promptAgent({ danger }), name: "child" }),
  );
  const asked: SubagentInputRequest[] = [];
  handleSubagentInput(root, (request) => {
    asked.push(request);
    return { outcome: "selected", optionId: "approve" };
  });
  const seen: SubagentProgressInfo[] = [];
  const parent = promptAgent(
    { subagent: subagentTool(root, { provider: "child", onProgress: (p) => seen.push(p) }) },
    "parent",
  );
  const output = await parent.stream(delegateCall('call danger {"target":"build"}'));
  const custom: unknown[] = [];
  for await (const chunk of output.fullStream) {
    if (chunk.type === "tool-output") custom.push(chunk.payload);
  }
  assert.equal(await output.text, "the tool said: the tool said: deleted build");
  assert.equal(asked.length, 1);
  assert.equal(asked[0].toolCall?.name, "danger");
  assert.ok(seen.some((p) => p.kind === "tool-call" && p.name === "danger"));
  assert.ok(custom.length > 0, "the child's progress reaches the tool's stream");
  await root.dispose();
});

Deno.test("subagentTool() inside a provider's agent delegates below that run: path, depth cap and usage roll up", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(
    createMastraProvider({ agent: promptAgent({ danger }), name: "child" }),
  );
  subagents.registerProvider(
    createMastraProvider({
      agent: promptAgent({ subagent: subagentTool(root, { provider: "child" }) }, "parent"),
      name: "parent",
    }),
  );
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
  assert.deepEqual(asked[0].path.slice(0, 1), [run.id]);
  assert.equal(asked[0].path.length, 2);
  assert.equal(result.usage!.self.modelCalls, 2);
  assert.equal(result.usage!.total.modelCalls, 4);
  assert.equal(result.usage!.total.toolCalls, 2);
  await run.dispose();

  const capped = subagents.start("parent", {
    prompt: delegateCall("complete hi"),
    parent: { id: "main", scope: root },
    maxDepth: 1,
  });
  assert.match(
    JSON.stringify((await capped.result).output),
    /the child would be at depth 2, above the maximum depth 1/,
  );
  await capped.dispose();
  await root.dispose();
});
