import assert from "node:assert/strict";
import { Agent, Runner } from "@openai/agents";
import { createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createOpenAIAgentsProvider } from "./mod.ts";
import { promptAgent, promptModel } from "./_test_fixtures.ts";

Deno.test("createOpenAIAgentsProvider() refuses wrong object kinds by name", () => {
  assert.throws(
    () => createOpenAIAgentsProvider({ agent: { name: "not an agent", run() {} } }),
    /Cannot create the OpenAI Agents provider: options.agent must be an Agent of @openai\/agents, got/,
  );
  assert.throws(
    () => createOpenAIAgentsProvider({ agent: promptAgent(), runner: { run() {} } }),
    /options.runner must be a Runner of @openai\/agents/,
  );
  assert.throws(
    () => createOpenAIAgentsProvider({ agent: promptAgent(), maxTurns: 0 }),
    /options.maxTurns must be a positive integer, got 0/,
  );
  assert.throws(
    () => createOpenAIAgentsProvider({ agent: promptAgent(), agnet: 1 } as never),
    /unknown option agnet \(known: name, agent, runner, maxTurns, context\)/,
  );
  assert.throws(() => createOpenAIAgentsProvider(undefined as never), /options must be an object/);
});

Deno.test("createOpenAIAgentsProvider() ends a run whose model throws error CHILD_FAILED, naming it", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(createOpenAIAgentsProvider({ agent: promptAgent() }));
  const run = subagents.start("openai-agents", {
    prompt: "fail",
    parent: { id: "m", scope: root },
  });
  const result = await run.result;
  assert.equal(result.stopReason, "error");
  assert.equal(result.error?.code, "CHILD_FAILED");
  assert.match(result.error!.message, /The OpenAI Agents run failed: .*the model is down/);
  await run.dispose();
  await root.dispose();
});

Deno.test("createOpenAIAgentsProvider() ends a run that never ends by its budget, and aborts the model", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  const model = promptModel();
  const agent = new Agent({ name: "slow", instructions: "", model });
  subagents.registerProvider(createOpenAIAgentsProvider({ agent }));
  const run = subagents.start("openai-agents", {
    prompt: "hang",
    parent: { id: "m", scope: root },
    budget: { wallTimeMs: 50 },
  });
  const result = await run.result;
  assert.equal(result.stopReason, "budget-exhausted");
  assert.equal(model.calls.length, 1);
  assert.equal(model.calls[0].request.signal?.aborted, true);
  await run.dispose();
  await root.dispose();
});

Deno.test("createOpenAIAgentsProvider() maps the turn limit to error MAX_TURNS", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  const { tool } = await import("@openai/agents");
  const echo = tool({
    name: "echo",
    description: "echo",
    parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
    strict: true,
    execute: () => "call echo {}",
  });
  // The model replies "the tool said: …" after a tool call; one turn is not enough.
  subagents.registerProvider(
    createOpenAIAgentsProvider({ agent: promptAgent([echo]), maxTurns: 1, runner: new Runner() }),
  );
  const run = subagents.start("openai-agents", {
    prompt: "call echo {}",
    parent: { id: "m", scope: root },
  });
  const result = await run.result;
  assert.equal(result.stopReason, "error");
  assert.equal(result.error?.code, "MAX_TURNS");
  await run.dispose();
  await root.dispose();
});

Deno.test("createOpenAIAgentsProvider() ends error when the final output does not parse as the schema, saying so", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(createOpenAIAgentsProvider({ agent: promptAgent() }));
  const run = subagents.start("openai-agents", {
    prompt: "complete not json",
    parent: { id: "m", scope: root },
    outputSchema: { type: "object", properties: { answer: { type: "string" } } },
  });
  const result = await run.result;
  assert.equal(result.stopReason, "error");
  assert.equal(result.error?.code, "CHILD_FAILED");
  assert.match(result.error!.message, /did not match the expected schema/);
  await run.dispose();
  await root.dispose();
});

Deno.test("createOpenAIAgentsProvider() gives the model only the tools the filter allows", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  const model = promptModel();
  const { approvalTool } = await import("./_test_fixtures.ts");
  const agent = new Agent({
    name: "tools",
    instructions: "",
    model,
    tools: [approvalTool("danger"), approvalTool("safe")],
  });
  subagents.registerProvider(createOpenAIAgentsProvider({ agent }));
  for (const toolFilter of [{ deny: ["danger"] }, { allow: [] }]) {
    const run = subagents.start("openai-agents", {
      prompt: "complete ok",
      parent: { id: "m", scope: root },
      toolFilter,
    });
    assert.equal((await run.result).stopReason, "completed");
    await run.dispose();
  }
  const names = model.calls.map((c) => c.request.tools.map((t) => t.name));
  assert.deepEqual(names, [["safe"], []]);
  assert.equal(agent.tools.length, 2, "the application's agent keeps its tools");
  await root.dispose();
});
