// The provider conformance suite over real processes: the ACP provider
// driving the well-behaved test agent, one process per run and with
// `reuseProcess`; after every dispose, no process is left in any agent's group.
import assert from "node:assert/strict";
import { type ConformanceBackend, testSubagentProvider } from "@seam/subagent/testing";
import { createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, testAgentConfig } from "./acp_support.ts";

const PROMPTS = {
  complete: "complete hello from the child",
  hang: "hang",
  fail: "fail",
  maxTokens: "max-tokens",
};

function backend(watch: AgentWatch, reuseProcess: boolean): ConformanceBackend {
  return {
    createProvider(scope) {
      const provider = createAcpProvider(
        testAgentConfig([], { logger: watch.logger, reuseProcess }),
      );
      scope.onDispose(() => provider.dispose());
      return provider;
    },
    prompts: PROMPTS,
    expectedOutput: "hello from the child",
    // With reuseProcess the warm process outlives each run by design; it is
    // checked once its provider is disposed (below).
    ...(reuseProcess ? {} : { liveChildren: async () => (await watch.live()).length }),
    timeoutMs: 20_000,
  };
}

Deno.test("createAcpProvider() passes the conformance suite over real processes", async (t) => {
  const watch = new AgentWatch();
  await testSubagentProvider(t, backend(watch, false));
  assert.ok(watch.pids.size > 0, "no agent process was seen");
  assert.deepEqual(await watch.live(), []);
});

Deno.test("createAcpProvider() passes the conformance suite with reuseProcess", async (t) => {
  const watch = new AgentWatch();
  await testSubagentProvider(t, backend(watch, true));
  assert.ok(watch.pids.size > 0, "no agent process was seen");
  assert.deepEqual(await watch.live(), [], "a warm process outlived its provider");
});
