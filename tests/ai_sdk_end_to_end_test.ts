// The AI SDK on both ends of a real A2A hop: an AI SDK agent (the root)
// delegates through seam's subagent tool to the A2A provider, which talks
// over real HTTP on loopback to a seam gateway serving an AI SDK agent as
// its child (createAiSdkProvider). The child's tool needs approval: the
// request travels up across A2A to the root's handler, the answer comes back
// down and the child's run resumes; the child's usage is rolled up into what
// the root's tool returns.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputRequest,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { createGateway } from "@seam/gateway";
import { createAiSdkProvider, subagentTool, type SubagentToolOutput } from "@seam/ai-sdk";
import { jsonSchema, tool, ToolLoopAgent } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { finish, streamOf, textParts, toolCall } from "../adapters/ai_sdk/_test_models.ts";

/** What the last tool message of a model call says, or undefined. */
function lastToolOutput(prompt: readonly { role: string; content: unknown }[]) {
  const message = prompt.findLast((m) => m.role === "tool");
  return (message?.content as { output: { type: string; value?: unknown } }[] | undefined)?.at(-1)
    ?.output;
}

/** The child: calls deploy (which needs approval), then reports what it did. */
function childAgent(deployed: string[]): ToolLoopAgent<never, Record<string, never>> {
  const model = new MockLanguageModelV4({
    doStream: (options) => {
      const output = lastToolOutput(options.prompt);
      return Promise.resolve(streamOf(
        output === undefined
          ? [
            toolCall("k1", "deploy", { env: "staging" }),
            finish("tool-calls", { input: 40, output: 6, cached: 10 }),
          ]
          : [
            ...textParts(`Deployed: ${String(output.value)}`),
            finish("stop", { input: 60, output: 8, cached: 30 }),
          ],
      ));
    },
  });
  const deploy = tool({
    description: "Deploy the app",
    inputSchema: jsonSchema<{ env: string }>({
      type: "object",
      properties: { env: { type: "string" } },
      required: ["env"],
    }),
    needsApproval: true,
    execute: ({ env }) => {
      deployed.push(env);
      return `${env} is live`;
    },
  });
  return new ToolLoopAgent({ model, maxRetries: 0, tools: { deploy } }) as never;
}

/** The root: delegates once, then repeats what the tool said. */
function rootModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: (options) => {
      const output = lastToolOutput(options.prompt);
      return Promise.resolve(streamOf(
        output === undefined
          ? [
            toolCall("r1", "subagent", {
              description: "Deploy staging",
              prompt: "Deploy to staging",
            }),
            finish("tool-calls", { input: 100, output: 20 }),
          ]
          : [
            ...textParts(`Done. ${String(output.value)}`),
            finish("stop", { input: 150, output: 5 }),
          ],
      ));
    },
  });
}

Deno.test("AI SDK agent -> seam tool -> A2A -> gateway -> AI SDK agent, approval at the root, usage rolled up", async () => {
  const deployed: string[] = [];
  // The remote side: a gateway serving an AI SDK agent.
  const remote = createRootScope({ logger: createMemoryLogger().logger });
  const remoteSubagents = createSubagentService(remote);
  remoteSubagents.registerProvider(
    createAiSdkProvider({ name: "deployer", agent: childAgent(deployed) }),
  );
  const gateway = createGateway({ scope: remote, defaultProvider: "deployer" });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => gateway.fetch(request),
  );
  // The root side: an AI SDK agent with seam's tool over the A2A provider.
  const root = createRootScope({ logger: createMemoryLogger().logger });
  try {
    const subagents = createSubagentService(root);
    subagents.registerProvider(
      await createA2AProvider({ url: `http://127.0.0.1:${server.addr.port}` }),
    );
    const asked: SubagentInputRequest[] = [];
    handleSubagentInput(root, async (request) => {
      asked.push(request);
      // A person takes a moment: the tool reports the wait meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { outcome: "selected", optionId: "allow" };
    });
    const parent = { id: "root-agent", scope: root.child("root-agent") };
    const agent = new ToolLoopAgent({
      model: rootModel(),
      tools: { subagent: subagentTool(subagents, { provider: "a2a", parent, reportUsage: true }) },
    });
    const result = await agent.stream({ prompt: "Ship it to staging" });
    const outputs: SubagentToolOutput[] = [];
    for await (const part of result.fullStream) {
      if (part.type === "tool-result") outputs.push(part.output as SubagentToolOutput);
    }

    // The approval travelled up across A2A and was answered at the root.
    assert.equal(asked.length, 1);
    assert.equal(asked[0].kind, "permission");
    assert.equal(asked[0].toolCall?.name, "deploy");
    assert.deepEqual(asked[0].toolCall?.rawInput, { env: "staging" });
    assert.equal(asked[0].path.length, 2, "the A2A run, then the remote AI SDK run");
    assert.deepEqual(deployed, ["staging"], "the child's run resumed with the answer");
    assert.ok(
      outputs.some((o) => o.status === "running" && o.activity?.startsWith("waiting for input")),
      "the root saw the child wait for the approval as a preliminary result",
    );

    // The child's answer reached the root model.
    const final = outputs.at(-1)!;
    assert.equal(final.status, "completed");
    assert.equal(final.text, "Deployed: staging is live");
    assert.match(
      await result.text,
      /^Done\. Deployed: staging is live\n\n\[usage: 100 input tokens \(40 cached\)/,
    );

    // Usage rolled up: the child's two model calls and its tool call, across A2A.
    const usage = final.usage!;
    assert.equal(usage.partial, false);
    assert.equal(usage.total.inputTokens, 100);
    assert.equal(usage.total.outputTokens, 14);
    assert.equal(usage.total.cachedInputTokens, 40);
    assert.equal(usage.total.modelCalls, 2);
    assert.equal(usage.total.toolCalls, 1);
    // And the root's own: its two steps, plus the subtree it delegated to.
    const own = await result.totalUsage;
    assert.equal(own.inputTokens! + usage.total.inputTokens, 350);
  } finally {
    await root.dispose();
    await gateway.close();
    await server.shutdown();
    await remote.dispose();
  }
});
