import { createHost, createMemoryLogger, createScriptedModel, type Host } from "@seam/host";
import { type ConformanceBackend, testSubagentProvider } from "@seam/subagent/testing";
import type { SubagentProvider } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { createForkProvider } from "@seam/subagent-fork";

/** The in-process backends run on the scripted model; its directives pick each behaviour. */
function backend(make: () => SubagentProvider): ConformanceBackend {
  let host: Host | undefined;
  return {
    createProvider(scope) {
      host = createHost({ scope, logger: createMemoryLogger().logger });
      host.models.register(scope, "scripted", createScriptedModel());
      return make();
    },
    async createParent() {
      const parent = await host!.agents.create({ id: "parent", options: { model: "scripted" } });
      // A completed turn, so a fork has something to inherit.
      parent.send("@reply I am the parent");
      await parent.whenIdle();
      return parent;
    },
    prompts: {
      complete: "@reply hello from the child",
      hang: "@hang",
      fail: "@fail the model broke",
      maxTokens: "@max-tokens partial words",
      structured: '@call submit_result {"answer": "42"}',
      persona: "@system",
    },
    expectedOutput: "hello from the child",
    liveChildren: () => host!.agents.list().filter((agent) => agent.id !== "parent").length,
  };
}

Deno.test("spawn passes the provider conformance suite", (t) =>
  testSubagentProvider(t, backend(() => createSpawnProvider())));

Deno.test("fork passes the provider conformance suite", (t) =>
  testSubagentProvider(t, backend(() => createForkProvider())));
