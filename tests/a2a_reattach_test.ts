// Remotes that drop their stream again and again, each a real server on
// loopback, and bring "news" each time it is re-attached that is no progress:
// a task flipped WORKING to SUBMITTED and back, two words by turns, an
// artifact replaced by turns. Only what a run had not seen before resets the
// re-attach retries, and `reconnect.maxReattaches` ends even a remote that
// brings something new at every re-attachment.
import assert from "node:assert/strict";
import {
  assertLostAfterTwoRetries,
  fakeAgent,
  prompt,
  settleWithin,
  status,
  TASK,
  task,
  withProvider,
  words,
} from "./a2a_fake_agent.ts";
import type { Frame, StreamScript } from "./a2a_fake_agent.ts";

/** A stream script that sends `frames(n)` on its n-th run (from 0), then drops. */
const dropping = (frames: (n: number) => Frame[]): StreamScript => {
  let n = 0;
  return (send, { close }) => {
    for (const frame of frames(n++)) send(frame);
    close();
  };
};

const flips: Record<string, { stream: StreamScript; resubscribe: StreamScript }> = {
  "WORKING to SUBMITTED and back": {
    stream: dropping(() => [task("TASK_STATE_SUBMITTED"), status("TASK_STATE_WORKING")]),
    resubscribe: dropping((n) => {
      const [from, to] = n % 2 === 0
        ? ["TASK_STATE_WORKING", "TASK_STATE_SUBMITTED"]
        : ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"];
      return [task(from), status(to)];
    }),
  },
  "two words by turns": {
    stream: dropping(() => [
      task("TASK_STATE_WORKING"),
      status("TASK_STATE_WORKING", "thinking"),
      status("TASK_STATE_WORKING", "still thinking"),
    ]),
    resubscribe: dropping((n) => [
      task("TASK_STATE_WORKING"),
      status("TASK_STATE_WORKING", n % 2 === 0 ? "thinking" : "still thinking"),
    ]),
  },
  "an artifact replaced by turns": {
    stream: dropping(() => [task("TASK_STATE_WORKING"), words("x", false), words("y", false)]),
    resubscribe: dropping((n) => [task("TASK_STATE_WORKING"), words(n % 2 ? "y" : "x", false)]),
  },
};

Deno.test("a stream that drops after flipping back to what it said before ends CONNECTION_LOST after reconnect.retries: a flip back is not progress", async (t) => {
  for (const [name, scripts] of Object.entries(flips)) {
    await t.step(name, async () => {
      const agent = fakeAgent(scripts);
      await assertLostAfterTwoRetries(agent, "bringing only what this run had seen before");
    });
  }
});

Deno.test("a stream that drops after something new each time ends CONNECTION_LOST at reconnect.maxReattaches", async (t) => {
  await t.step("a new word at every re-attachment: 5 of them, then the end", async () => {
    const agent = fakeAgent({
      stream: dropping(() => [task("TASK_STATE_WORKING")]),
      resubscribe: dropping((n) => [
        task("TASK_STATE_WORKING"),
        status("TASK_STATE_WORKING", `step ${n}`),
      ]),
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settleWithin(run);
      assert.equal(result.error?.code, "CONNECTION_LOST", result.why);
      assert.match(
        result.why,
        /\(SubscribeToTask\): lost remote task "task-1" \(the stream ended before the task did\) after 5 re-attach\(es\) in this run: the limit of 5 was reached \(reconnect\.maxReattaches\)/,
      );
      assert.deepEqual(result.error?.data, {
        call: "SubscribeToTask",
        taskId: TASK,
        option: "reconnect.maxReattaches",
        maxReattaches: 5,
      });
      await run.dispose();
      assert.equal(agent.calls.filter((call) => call === "SubscribeToTask").length, 5);
      assert.equal(agent.calls.at(-1), "CancelTask");
    }, {
      idleTimeoutMs: 60_000,
      reconnect: { retries: 2, delayMs: 1, maxDelayMs: 1, maxReattaches: 5 },
    });
  });

  await t.step("flip-flops with retries without end: 100 re-attachments by default", async () => {
    const agent = fakeAgent(flips["WORKING to SUBMITTED and back"]);
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settleWithin(run, 30_000);
      assert.equal(result.error?.code, "CONNECTION_LOST", result.why);
      assert.match(
        result.why,
        /after 100 re-attach\(es\) in this run: the limit of 100 was reached \(reconnect\.maxReattaches\)/,
      );
      await run.dispose();
      assert.equal(agent.calls.filter((call) => call === "SubscribeToTask").length, 100);
    }, {
      idleTimeoutMs: 60_000,
      reconnect: { retries: 1_000_000, delayMs: 1, maxDelayMs: 1 },
    });
  });
});
