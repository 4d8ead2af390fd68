import assert from "node:assert/strict";
import { UsageTally } from "./mod.ts";

Deno.test("UsageTally sums each call, and a call missing a token count makes it partial", () => {
  const tally = new UsageTally();
  assert.deepEqual(tally.modelCall({ inputTokens: 5, outputTokens: 2, cachedInputTokens: 4 }), {
    inputTokens: 5,
    outputTokens: 2,
  });
  assert.equal(tally.usage().partial, false);
  assert.deepEqual(tally.modelCall({ inputTokens: 1 }), { inputTokens: 1, outputTokens: 0 });
  tally.toolCall();
  tally.toolCall();
  assert.deepEqual(tally.usage(), {
    self: { inputTokens: 6, outputTokens: 2, cachedInputTokens: 4, modelCalls: 2, toolCalls: 2 },
    partial: true,
  });
});
