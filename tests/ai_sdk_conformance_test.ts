import { createAiSdkProvider } from "@seam/ai-sdk";
import { testSubagentProvider } from "@seam/subagent/testing";
import { jsonSchema, Output, tool, ToolLoopAgent } from "ai";
import { conformanceModel } from "../adapters/ai_sdk/_test_models.ts";

const PROMPTS = {
  complete: "complete",
  hang: "hang",
  fail: "fail",
  maxTokens: "max-tokens",
  structured: "structured",
  persona: "persona",
};

const lookup = tool({
  description: "Look something up",
  inputSchema: jsonSchema<{ q: string }>({ type: "object", properties: { q: { type: "string" } } }),
  execute: ({ q }) => `found ${q}`,
});

Deno.test("createAiSdkProvider() with make passes the conformance suite", async (t) => {
  const { model, open } = conformanceModel();
  let provider: ReturnType<typeof createAiSdkProvider> | undefined;
  await testSubagentProvider(t, {
    createProvider: () =>
      provider = createAiSdkProvider({
        name: "ai-sdk",
        capabilities: { outputSchema: true, toolFilter: true, persona: true, depthLimit: true },
        make: (spec) =>
          new ToolLoopAgent({
            model,
            maxRetries: 0,
            instructions: spec.instructions(""),
            tools: spec.tools({ lookup }),
            ...(spec.outputSchema
              ? { output: Output.object({ schema: jsonSchema(spec.outputSchema) }) }
              : {}),
          }),
      }),
    prompts: PROMPTS,
    expectedOutput: "hello from the child",
    toolFilter: { deny: ["lookup"] },
    liveChildren: () => (provider?.liveRuns ?? 0) + open(),
    timeoutMs: 5_000,
  });
});

Deno.test("createAiSdkProvider() with one fixed agent passes the conformance suite", async (t) => {
  const { model, open } = conformanceModel();
  let provider: ReturnType<typeof createAiSdkProvider> | undefined;
  await testSubagentProvider(t, {
    createProvider: () =>
      provider = createAiSdkProvider({
        name: "ai-sdk",
        agent: new ToolLoopAgent({ model, maxRetries: 0, tools: { lookup } }),
      }),
    prompts: PROMPTS,
    expectedOutput: "hello from the child",
    liveChildren: () => (provider?.liveRuns ?? 0) + open(),
    timeoutMs: 5_000,
  });
});
