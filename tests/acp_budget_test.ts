// Budgets on ACP children, over real processes of the test agent: the
// service's clock bounds the wall time of any agent, tool calls and tokens
// count as the agent reports them. Every test ends with no process left.
import assert from "node:assert/strict";
import type { SubagentBudget, SubagentResult } from "@seam/subagent";
import { type AcpHarness, withAcpAgent } from "./acp_support.ts";

async function runWith(
  h: AcpHarness,
  prompt: string,
  budget: SubagentBudget,
): Promise<SubagentResult> {
  const run = h.service.start(h.provider.name, { prompt, parent: h.parent, budget });
  try {
    return await run.result;
  } finally {
    await run.dispose();
  }
}

Deno.test("an ACP child under a budget ends budget-exhausted", async (t) => {
  await t.step(
    "wallTimeMs: an agent that never ends its turn is cancelled",
    () =>
      withAcpAgent([], {}, async (h) => {
        const result = await runWith(h, "hang", { wallTimeMs: 300 });
        assert.equal(result.stopReason, "budget-exhausted");
        assert.equal(result.error?.code, "BUDGET_EXHAUSTED");
        assert.equal((result.error?.data as { limit: string }).limit, "wallTimeMs");
        assert.match(result.error!.message, /budget\.wallTimeMs allows 300 ms of wall time/);
      }),
  );

  await t.step(
    "tokens: the agent's usage_update beyond the budget ends the run",
    () =>
      withAcpAgent([], {}, async (h) => {
        // `progress` reports a context of 10 tokens.
        const result = await runWith(h, "progress x", { tokens: 5 });
        assert.equal(result.stopReason, "budget-exhausted");
        assert.deepEqual(result.error?.data, { limit: "tokens", budget: 5, used: 10 });
      }),
  );

  await t.step(
    "toolCalls: the agent's tool call beyond the budget ends the run",
    () =>
      withAcpAgent([], {}, async (h) => {
        const result = await runWith(h, "progress x", { toolCalls: 0 });
        assert.equal(result.stopReason, "budget-exhausted");
        assert.deepEqual(result.error?.data, { limit: "toolCalls", budget: 0, used: 1 });
      }),
  );

  await t.step("a run within its budget completes", () =>
    withAcpAgent([], {}, async (h) => {
      const result = await runWith(h, "progress x", {
        tokens: 10,
        toolCalls: 1,
        wallTimeMs: 60_000,
      });
      assert.equal(result.stopReason, "completed");
    }));
});

Deno.test("an ACP child reporting a context beyond the safe integers: its usage leaves the figure out, the run completes", async (t) => {
  for (const used of ["1e308", "-5", "9007199254740993"]) {
    await t.step(`used: ${used}`, () =>
      withAcpAgent([`--context-used=${used}`], {}, async (h) => {
        const result = await runWith(h, "progress x", { tokens: 1_000_000 });
        const unbudgeted = h.service.start(h.provider.name, {
          prompt: "progress x",
          parent: h.parent,
        });
        const free = await unbudgeted.result.finally(() => unbudgeted.dispose());
        assert.equal(free.stopReason, "completed", JSON.stringify(free.error));
        assert.ok(Number.isSafeInteger(free.usage?.total.inputTokens), "the total stays a count");
        assert.equal(result.stopReason, "completed", JSON.stringify(result.error));
        const tokens = result.usage?.self.inputTokens;
        assert.ok(Number.isSafeInteger(tokens) && tokens! >= 0, `inputTokens ${tokens}`);
      }));
  }
});
