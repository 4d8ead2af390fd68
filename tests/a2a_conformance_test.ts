// The provider conformance suite against the A2A provider → a seam gateway →
// spawn on the scripted model, over real loopback HTTP and through the
// gateway's fetch handler directly, with either binding.
import { type ConformanceBackend, testSubagentProvider } from "@seam/subagent/testing";
import { createA2AProvider } from "@seam/subagent-a2a";
import { type Reach, type SpawnGateway, startSpawnGateway } from "./a2a_support.ts";

function backend(reach: Reach, binding: "JSONRPC" | "HTTP+JSON"): ConformanceBackend {
  let remote: SpawnGateway | undefined;
  return {
    async createProvider(scope) {
      // Every run disposed once its task ends (none kept for a follow-up), so
      // "nothing alive" after dispose is exact.
      const gateway = remote = startSpawnGateway(reach, { maxResumableRuns: 0 });
      scope.onDispose(() => gateway.close());
      const provider = await createA2AProvider({
        url: gateway.url,
        binding,
        fetch: gateway.fetch,
        timeoutMs: 5_000,
      });
      scope.onDispose(() => provider.dispose());
      return provider;
    },
    prompts: {
      complete: "@reply hello from the child",
      hang: "@hang",
      fail: "@fail boom",
      maxTokens: "@max-tokens partial words",
      structured: '@call submit_result {"answer": "42"}',
      persona: "@system",
    },
    expectedOutput: "hello from the child",
    liveChildren: () => remote!.liveChildren(),
  };
}

for (const reach of ["loopback", "fetch"] as const) {
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    Deno.test(
      `a2a → gateway → spawn (${reach}, ${binding}) passes the provider conformance suite`,
      (t) => testSubagentProvider(t, backend(reach, binding)),
    );
  }
}
