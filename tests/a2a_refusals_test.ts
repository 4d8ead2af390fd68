// Refusals heard (issue 37 item 3): a remote that refuses CancelTask still
// ends the run `aborted`, its error data and a warning saying that its task
// may still run.
import assert from "node:assert/strict";
import { createMemoryLogger } from "@seam/host";
import { fakeAgent, prompt, settle, settleWithin, task, withProvider } from "./a2a_fake_agent.ts";

Deno.test("a refused CancelTask: the run ends aborted, its error data and a warning say the task may still run", async () => {
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
    // The result waited for CancelTask's answer, so it can say what the remote did.
    assert.ok(agent.calls.includes("CancelTask"), JSON.stringify(agent.calls));
    assert.equal(result.error?.code, "REMOTE_CANCEL_REFUSED");
    assert.match(result.why, /refused CancelTask for task "task-1" .*; its task may still run/);
    assert.deepEqual(result.error?.data, {
      call: "CancelTask",
      taskId: "task-1",
      remoteCancel: {
        refused: true,
        code: -32603,
        message: (result.error?.data as { remoteCancel: { message: string } }).remoteCancel
          .message,
      },
    });
    assert.match(
      (result.error?.data as { remoteCancel: { message: string } }).remoteCancel.message,
      /not supported yet/,
    );
    await run.dispose();
    const warnings = records.filter((r) => r.level === "warn").map((r) => r.message);
    assert.ok(
      warnings.some((w) =>
        /refused CancelTask ".+" \(.*not supported yet.*\); its task may still run/.test(w)
      ),
      JSON.stringify(warnings),
    );
  }, { logger });
});

Deno.test("a CancelTask left unanswered: the run ends aborted within timeoutMs, saying so", async () => {
  const agent = fakeAgent({
    streaming: false,
    refuseCancel: "hang",
    sendMessage: () => task("TASK_STATE_WORKING"),
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    await run.started;
    run.cancel();
    const result = await settleWithin(run);
    assert.equal(result.stopReason, "aborted");
    const remoteCancel = (result.error?.data as { remoteCancel: Record<string, unknown> })
      .remoteCancel;
    assert.equal(remoteCancel.timedOut, true);
    assert.equal(remoteCancel.refused, true);
    assert.match(String(remoteCancel.message), /did not answer CancelTask within 300 ms/);
    await run.dispose();
  });
});

Deno.test("a CancelTask answered: the run ends aborted with no error", async () => {
  const agent = fakeAgent({ streaming: false, sendMessage: () => task("TASK_STATE_WORKING") });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    await run.started;
    run.cancel();
    const result = await settle(run);
    assert.equal(result.stopReason, "aborted");
    assert.equal(result.error, undefined);
    assert.ok(agent.calls.includes("CancelTask"), "the result came after CancelTask was answered");
    await run.dispose();
  });
});
