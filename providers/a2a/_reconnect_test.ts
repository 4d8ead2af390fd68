import assert from "node:assert/strict";
import {
  newTally,
  rearmsIdle,
  type ReconnectLimits,
  ReconnectPolicy,
  type StreamTally,
  tallied,
} from "./_reconnect.ts";

const LIMITS: ReconnectLimits = {
  retries: 3,
  delayMs: 200,
  maxDelayMs: 500,
  maxReattaches: 100,
  pollIntervalMs: 50,
};

function tally(count: number, news: number, progress: number): StreamTally {
  return { count, news, progress };
}

Deno.test("ReconnectPolicy: a dropped stream is re-attached with doubling backoff, then given up", () => {
  const policy = new ReconnectPolicy(LIMITS);
  policy.begin(true, undefined);
  assert.deepEqual(policy.next("t1"), { kind: "reattach", waitMs: 200 });
  policy.reattachEnded(tally(0, 0, 0), undefined);
  assert.deepEqual(policy.next("t1"), { kind: "reattach", waitMs: 400 });
  policy.reattachEnded(tally(0, 0, 0), undefined);
  assert.deepEqual(policy.next("t1"), { kind: "reattach", waitMs: 500 }, "capped at maxDelayMs");
  policy.reattachEnded(tally(0, 0, 0), undefined);
  const step = policy.next("t1");
  assert.equal(step.kind, "give-up");
  assert.equal(step.kind === "give-up" && step.limit, "retries");
  assert.deepEqual(step.kind === "give-up" && step.data, { taskId: "t1", retries: 3 });
  assert.match(
    step.kind === "give-up" ? step.message : "",
    /^lost remote task "t1" \(the re-attached stream ended before the task did\) and 3 attempt\(s\) to re-attach failed$/,
  );
  assert.equal(policy.reattaches, 3);
});

Deno.test("ReconnectPolicy: only progress resets the retries", async (t) => {
  await t.step("a stream that brought progress counts as one failure, not more", () => {
    const policy = new ReconnectPolicy(LIMITS);
    policy.begin(true, undefined);
    for (let i = 0; i < 10; i++) {
      assert.deepEqual(policy.next("t"), { kind: "reattach", waitMs: 200 });
      policy.reattachEnded(tally(2, 2, 1), undefined);
    }
  });
  await t.step("news seen before is no progress: the failures add up", () => {
    const policy = new ReconnectPolicy(LIMITS);
    policy.begin(true, new TypeError("connection reset"));
    for (const waitMs of [200, 400, 500]) {
      assert.deepEqual(policy.next("t"), { kind: "reattach", waitMs });
      policy.reattachEnded(tally(3, 2, 0), undefined);
    }
    const step = policy.next("t");
    assert.equal(step.kind, "give-up");
    assert.match(
      step.kind === "give-up" ? step.message : "",
      /ended before the task did, bringing only what this run had seen before\)/,
    );
  });
  await t.step(
    "events without news say 'bringing nothing new'; a network error is the reason",
    () => {
      const policy = new ReconnectPolicy({ ...LIMITS, retries: 1 });
      policy.begin(true, undefined);
      policy.next("t");
      policy.reattachEnded(tally(4, 0, 0), undefined);
      const step = policy.next("t");
      assert.match(step.kind === "give-up" ? step.message : "", /, bringing nothing new\)/);
      const dropped = new ReconnectPolicy({ ...LIMITS, retries: 1 });
      dropped.begin(true, undefined);
      dropped.next("t");
      dropped.reattachEnded(tally(4, 0, 0), new TypeError("network down"));
      const lost = dropped.next("t");
      assert.match(lost.kind === "give-up" ? lost.message : "", /\(network down\)/);
    },
  );
});

Deno.test("ReconnectPolicy: a run re-attaches at most maxReattaches times, across follows", () => {
  const policy = new ReconnectPolicy({ ...LIMITS, maxReattaches: 3 });
  policy.begin(true, undefined);
  policy.next("t");
  policy.reattachEnded(tally(1, 1, 1), undefined);
  policy.next("t");
  policy.reattachEnded(tally(1, 1, 1), undefined);
  // A later exchange of the same run (an answer to an interruption) follows again.
  policy.begin(true, undefined);
  assert.equal(policy.next("t").kind, "reattach");
  policy.reattachEnded(tally(1, 1, 1), undefined);
  const step = policy.next("t");
  assert.equal(step.kind, "give-up");
  assert.equal(step.kind === "give-up" && step.limit, "reattaches");
  assert.deepEqual(step.kind === "give-up" && step.data, {
    taskId: "t",
    option: "reconnect.maxReattaches",
    maxReattaches: 3,
  });
  assert.match(
    step.kind === "give-up" ? step.message : "",
    /after 3 re-attach\(es\) in this run: the limit of 3 was reached \(reconnect\.maxReattaches\)$/,
  );
});

Deno.test("ReconnectPolicy: reconnect off gives a dropped stream up at once", () => {
  const policy = new ReconnectPolicy({ ...LIMITS, retries: 0 });
  policy.begin(true, undefined);
  const step = policy.next("t");
  assert.equal(step.kind, "give-up");
  assert.match(
    step.kind === "give-up" ? step.message : "",
    /^lost remote task "t" \(the stream ended early\) \(reconnect is off\)$/,
  );
});

Deno.test("ReconnectPolicy: a refusal to stream switches to polling; while polling it is thrown", () => {
  for (const kind of ["refused", "limited"] as const) {
    const policy = new ReconnectPolicy(LIMITS);
    policy.begin(true, undefined);
    policy.next("t");
    assert.equal(policy.failed(kind, new Error("no")), "poll");
    assert.equal(policy.streaming, false);
    assert.deepEqual(policy.next("t"), { kind: "poll", waitMs: 50 }, "no failure counted");
    assert.equal(policy.failed(kind, new Error("no")), "throw");
  }
});

Deno.test("ReconnectPolicy: a broken protocol is thrown; a lost connection retried with backoff", () => {
  const policy = new ReconnectPolicy(LIMITS);
  policy.begin(false, undefined);
  assert.equal(policy.failed("protocol", new Error("bad event")), "throw");
  assert.deepEqual(policy.next("t"), { kind: "poll", waitMs: 50 });
  assert.equal(policy.failed("lost", new TypeError("reset")), "retry");
  assert.deepEqual(policy.next("t"), { kind: "poll", waitMs: 200 });
  policy.polled();
  assert.deepEqual(policy.next("t"), { kind: "poll", waitMs: 50 }, "a poll answered resets");
  for (let i = 0; i < 4; i++) policy.failed("lost", new TypeError("reset"));
  const step = policy.next("t");
  assert.equal(step.kind, "give-up");
  assert.match(step.kind === "give-up" ? step.message : "", /\(reset\) and 3 attempt/);
});

Deno.test("rearmsIdle() and tallied(): only progress re-arms the idle alarm and counts as progress", () => {
  assert.equal(rearmsIdle({ changed: true, progress: false }), false);
  assert.equal(rearmsIdle({ changed: true, progress: true }), true);
  const t = newTally();
  t.count++;
  tallied(t, { changed: true, progress: false });
  t.count++;
  tallied(t, { changed: true, progress: true });
  t.count++;
  tallied(t, { changed: false, progress: false });
  assert.deepEqual(t, { count: 3, news: 2, progress: 1 });
});
