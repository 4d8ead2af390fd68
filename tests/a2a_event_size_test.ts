// One stream event is held to 4 × maxOutputChars bytes as it arrives, in
// bytes on the wire (the SDK client's own bound counts UTF-16 code units,
// a third of the bytes of CJK text), and only an event: the blank line
// between events starts the count again, and comments count for nothing.
import assert from "node:assert/strict";
import { fakeAgent, prompt, settleWithin, status, task, withProvider } from "./a2a_fake_agent.ts";

const CJK = "漢".repeat(16_384); // 49,152 bytes of UTF-8, 16,384 UTF-16 code units

Deno.test("start() ends the run OUTPUT_LIMIT at a stream event of CJK text past 4 × maxOutputChars bytes, counted in bytes", async () => {
  // An event that never ends: the status message's text goes on and on.
  const agent = fakeAgent({
    stream: (send, { raw, every }) => {
      send(task("TASK_STATE_WORKING"));
      raw(
        `data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"`,
      );
      every(1, () => raw(CJK));
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.error?.code, "OUTPUT_LIMIT", result.why);
    assert.match(
      result.why,
      /\(SendStreamingMessage\): the remote agent sent a stream event larger than 40000 bytes \(4 × maxOutputChars\)/,
    );
    assert.deepEqual(result.error?.data, {
      call: "SendStreamingMessage",
      option: "maxOutputChars",
      maxBodyBytes: 40_000,
    });
    await run.dispose();
    assert.equal(agent.calls.at(-1), "CancelTask");
  }, { maxOutputChars: 10_000, timeoutMs: 20_000 });
});

Deno.test("start() holds each stream event to 4 × maxOutputChars bytes, not the stream: many events and comment lines pass", async () => {
  // 60 events of 3,000 bytes each (180,000 bytes, over 40,000), and 60,000
  // bytes of comment lines with no blank line between them.
  const word = "漢".repeat(1_000);
  const agent = fakeAgent({
    stream: (send, { raw, close }) => {
      send(task("TASK_STATE_WORKING"));
      for (let i = 0; i < 60; i++) send(status("TASK_STATE_WORKING", word));
      for (let i = 0; i < 6_000; i++) raw(": keep-al\n");
      raw("\n");
      for (let i = 0; i < 60; i++) send(status("TASK_STATE_WORKING", word));
      send(status("TASK_STATE_COMPLETED", "done"));
      close();
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.stopReason, "completed", result.why);
    assert.equal(result.text, "done");
    await run.dispose();
  }, { maxOutputChars: 10_000 });
});

Deno.test("start() ends the run OUTPUT_LIMIT at a comment line past 4 × maxOutputChars bytes: comments count for nothing only line by line", async () => {
  // A comment line that never ends: the SDK client holds it whole until its newline.
  const agent = fakeAgent({
    stream: (send, { raw, every }) => {
      send(task("TASK_STATE_WORKING"));
      raw(": ");
      every(1, () => raw(CJK));
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.error?.code, "OUTPUT_LIMIT", result.why);
    assert.match(result.why, /larger than 40000 bytes \(4 × maxOutputChars\)/);
    await run.dispose();
  }, { maxOutputChars: 10_000, timeoutMs: 20_000 });
});
