// The provider conformance suite over real processes: the ACP provider
// driving the well-behaved test agent, and driving our own ACP server
// (`providers/acp/serve.ts` on the scripted model), each with one process per
// run and with `reuseProcess`; after every dispose, no process is left in any
// agent's group.
import assert from "node:assert/strict";
import {
  type ConformanceBackend,
  type ConformancePrompts,
  testSubagentProvider,
} from "@seam/subagent/testing";
import { type AcpProviderConfig, createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, IS_DENO, serverConfig, testAgentConfig } from "./acp_support.ts";

/** The test agent's prompts. */
const TEST_AGENT_PROMPTS: ConformancePrompts = {
  complete: "complete hello from the child",
  hang: "hang",
  fail: "fail",
  maxTokens: "max-tokens",
};

/** The scripted model's directives, through our server. */
const SERVER_PROMPTS: ConformancePrompts = {
  complete: "@reply hello from the child",
  hang: "@hang",
  fail: "@fail boom",
  maxTokens: "@max-tokens partial words",
};

function backend(
  watch: AgentWatch,
  config: AcpProviderConfig,
  prompts: ConformancePrompts,
): ConformanceBackend {
  return {
    createProvider(scope) {
      const provider = createAcpProvider({ ...config, logger: watch.logger });
      scope.onDispose(() => provider.dispose());
      return provider;
    },
    prompts,
    expectedOutput: "hello from the child",
    // With reuseProcess the warm process outlives each run by design; it is
    // checked once its provider is disposed (below).
    ...(config.reuseProcess ? {} : { liveChildren: async () => (await watch.live()).length }),
    timeoutMs: 20_000,
  };
}

const cases: [string, (reuseProcess: boolean) => AcpProviderConfig, ConformancePrompts][] = [
  ["the test agent", (reuseProcess) => testAgentConfig([], { reuseProcess }), TEST_AGENT_PROMPTS],
  ["our ACP server", (reuseProcess) => serverConfig({ reuseProcess }), SERVER_PROMPTS],
];

for (const [agent, config, prompts] of cases) {
  // Our server is a Deno program (serve.ts): under Node only the test agent runs.
  const ignore = agent === "our ACP server" && !IS_DENO;
  Deno.test({
    name: `createAcpProvider() passes the conformance suite over real processes (${agent})`,
    ignore,
  }, async (t) => {
    const watch = new AgentWatch();
    await testSubagentProvider(t, backend(watch, config(false), prompts));
    assert.ok(watch.pids.size > 0, "no agent process was seen");
    assert.deepEqual(await watch.live(), []);
  });

  Deno.test({
    name: `createAcpProvider() passes the conformance suite with reuseProcess (${agent})`,
    ignore,
  }, async (t) => {
    const watch = new AgentWatch();
    await testSubagentProvider(t, backend(watch, config(true), prompts));
    assert.ok(watch.pids.size > 0, "no agent process was seen");
    assert.deepEqual(await watch.live(), [], "a warm process outlived its provider");
    if (agent === "our ACP server") {
      // Every run's session was closed and every cancel honoured: the warm
      // process was never stopped for ignoring a cancel.
      assert.deepEqual(
        watch.messages("warn").filter((m) => /ignored session\/cancel|did not end/.test(m)),
        [],
      );
    }
  });
}
