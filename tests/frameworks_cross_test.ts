// Across frameworks and the network: a LangGraph.js graph (run as a seam
// child) calls its `subagent` tool, which delegates over A2A to a seam
// gateway (real HTTP on loopback) serving an OpenAI Agents JS agent whose
// tool needs approval. The approval travels up from the gateway's run
// through the A2A hop and the graph's run to the root's handler; the answer
// comes back down and the agent's run resumes in place from its RunState;
// the remote usage rolls up into the graph's run.
import assert from "node:assert/strict";
import { Agent, tool } from "@openai/agents";
import { createRootScope } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputRequest,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { createGateway } from "@seam/gateway";
import { createOpenAIAgentsProvider } from "@seam/openai-agents";
import { createLangGraphProvider, subagentTool } from "@seam/langgraph";
import { promptModel } from "../adapters/openai_agents/_test_fixtures.ts";
import { promptGraph } from "../adapters/langgraph/_test_fixtures.ts";

const deploy = tool({
  name: "deploy",
  description: "Deploys; needs approval.",
  parameters: {
    type: "object",
    properties: { env: { type: "string" } },
    required: ["env"],
    additionalProperties: false,
  },
  strict: true,
  needsApproval: true,
  execute: (args: unknown) => `deployed to ${(args as { env: string }).env}`,
});

async function withGateway(
  body: (url: string, executed: () => number) => Promise<void>,
): Promise<void> {
  const remote = createRootScope();
  let executed = 0;
  const counted = {
    ...deploy,
    invoke: (...args: Parameters<typeof deploy.invoke>) => {
      executed++;
      return deploy.invoke(...args);
    },
  };
  createSubagentService(remote).registerProvider(createOpenAIAgentsProvider({
    name: "deployer",
    agent: new Agent({
      name: "deployer",
      instructions: "Deploy.",
      model: promptModel(),
      tools: [counted],
    }),
  }));
  const gateway = createGateway({ scope: remote, defaultProvider: "deployer" });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, gateway.fetch);
  try {
    await body(`http://127.0.0.1:${server.addr.port}`, () => executed);
  } finally {
    await gateway.close();
    await server.shutdown();
    await remote.dispose();
  }
}

const delegate = (prompt: string) =>
  `call subagent ${JSON.stringify({ description: "Ship it", prompt })}`;

Deno.test("a LangGraph graph delegates over A2A to an OpenAI Agents agent whose tool is approved at the root", async (t) => {
  for (
    const [answer, expected, runs] of [
      ["approve", "the tool said: the tool said: deployed to prod", 1],
      ["reject", "the tool said: the tool said: Tool execution was not approved.", 0],
    ] as const
  ) {
    await t.step(`answered ${answer}`, () =>
      withGateway(async (url, executed) => {
        const root = createRootScope();
        try {
          const subagents = createSubagentService(root);
          subagents.registerProvider(await createA2AProvider({ url, provider: "deployer" }));
          subagents.registerProvider(createLangGraphProvider({
            name: "graph",
            graph: promptGraph([subagentTool(root, { provider: "a2a" })]),
          }));
          const asked: SubagentInputRequest[] = [];
          handleSubagentInput(root, (request) => {
            asked.push(request);
            return { outcome: "selected", optionId: answer };
          });
          const run = subagents.start("graph", {
            prompt: delegate('call deploy {"env":"prod"}'),
            parent: { id: "main", scope: root },
          });
          const result = await run.result;
          assert.equal(result.stopReason, "completed");
          assert.deepEqual(result.output, [{ type: "text", text: expected }]);
          assert.equal(executed(), runs);
          assert.equal(asked.length, 1);
          assert.equal(asked[0].kind, "permission");
          assert.equal(asked[0].toolCall?.name, "deploy");
          assert.deepEqual(asked[0].toolCall?.rawInput, { env: "prod" });
          // The graph's run, the A2A run, the gateway's run of the agent.
          assert.equal(asked[0].path.length, 3);
          assert.equal(asked[0].path[0], run.id);
          // The agent's two model calls (10 + 5 tokens each) reached the root over A2A.
          assert.ok(result.usage!.total.modelCalls >= result.usage!.self.modelCalls + 2);
          assert.ok(result.usage!.total.inputTokens >= 20);
          await run.dispose();
        } finally {
          await root.dispose();
        }
      }));
  }
});
