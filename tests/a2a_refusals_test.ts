// Refusals heard (issue 37 item 3): a remote that refuses CancelTask still
// ends the run `aborted`, with a warning that its task may still run.
import assert from "node:assert/strict";
import { createMemoryLogger } from "@seam/host";
import { fakeAgent, prompt, settle, task, withProvider } from "./a2a_fake_agent.ts";

Deno.test("a refused CancelTask: the run ends aborted and a warning says the task may still run", async () => {
  const agent = fakeAgent({
    streaming: false,
    refuseCancel: true,
    sendMessage: () => task("TASK_STATE_WORKING"),
  });
  const { logger, records } = createMemoryLogger();
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    await run.started;
    run.cancel("changed my mind");
    const result = await settle(run);
    assert.equal(result.stopReason, "aborted");
    await run.dispose();
    assert.ok(agent.calls.includes("CancelTask"), JSON.stringify(agent.calls));
    const warnings = records.filter((r) => r.level === "warn").map((r) => r.message);
    assert.ok(
      warnings.some((w) =>
        /refused CancelTask ".+" \(.*not supported yet.*\); its task may still run/.test(w)
      ),
      JSON.stringify(warnings),
    );
  }, { logger });
});
