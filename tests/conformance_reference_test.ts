import assert from "node:assert/strict";
import {
  type ConformanceBackend,
  type ConformanceTestContext,
  testSubagentProvider,
} from "@seam/subagent/testing";
import { createReferenceProvider, type ReferenceProvider } from "./reference_provider.ts";

function backend(make: () => ReferenceProvider): ConformanceBackend {
  let provider: ReferenceProvider | undefined;
  return {
    createProvider: () => provider = make(),
    prompts: {
      complete: "complete hello from the child",
      hang: "hang",
      fail: "fail",
      maxTokens: "max-tokens",
      structured: "structured",
      persona: "persona",
    },
    expectedOutput: "hello from the child",
    liveChildren: () => provider?.live.size ?? 0,
    timeoutMs: 2_000,
  };
}

/** Runs the suite's steps and records which failed, without failing this test. */
function recordingContext(failed: string[]): ConformanceTestContext {
  const context: ConformanceTestContext = {
    async step(name, fn) {
      try {
        await fn(context);
        return true;
      } catch {
        failed.push(name);
        return false;
      }
    },
  };
  return context;
}

Deno.test("testSubagentProvider() passes against the reference provider", (t) =>
  testSubagentProvider(t, backend(() => createReferenceProvider())));

Deno.test("testSubagentProvider() passes against a provider with no capabilities", (t) =>
  testSubagentProvider(
    t,
    backend(() =>
      createReferenceProvider({
        capabilities: {
          outputSchema: false,
          depthLimit: false,
          toolFilter: false,
          persona: false,
        },
      })
    ),
  ));

Deno.test("testSubagentProvider() fails a provider that ignores cancel", async () => {
  const failed: string[] = [];
  await testSubagentProvider(
    recordingContext(failed),
    { ...backend(() => createReferenceProvider({ misbehave: "ignore-cancel" })), timeoutMs: 50 },
  );
  assert.ok(failed.includes("cancel mid-run ends aborted"), failed.join("; "));
  assert.ok(failed.includes("an abort mid-run ends aborted"), failed.join("; "));
  assert.ok(!failed.includes("completes with output"), failed.join("; "));
});

Deno.test("testSubagentProvider() fails a provider that maps the token limit wrongly", async () => {
  const failed: string[] = [];
  await testSubagentProvider(
    recordingContext(failed),
    backend(() => createReferenceProvider({ misbehave: "error-instead-of-max-tokens" })),
  );
  assert.deepEqual(failed, ["the token limit maps to max-tokens"]);
});
