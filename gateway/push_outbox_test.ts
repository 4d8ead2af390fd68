import assert from "node:assert/strict";
import { createMemoryLogger } from "@seam/host";
import { PUSH_TIMEOUT_MS, resolvePushDelivery } from "./push_outbox.ts";

Deno.test("resolvePushDelivery() checks and defaults the options every outbox takes", async (t) => {
  await t.step("the defaults", () => {
    const d = resolvePushDelivery({}, "an outbox");
    assert.equal(d.maxAttempts, 5);
    assert.equal(d.timeoutMs, PUSH_TIMEOUT_MS);
    assert.equal(d.maxQueuedPerWebhook, 100);
    assert.equal(d.closeGraceMs, 2_000);
    assert.equal(typeof d.logger.warn, "function");
  });

  await t.step("given values, and 0 where a wait may be none", () => {
    const { logger } = createMemoryLogger();
    const d = resolvePushDelivery({ maxAttempts: 2, closeGraceMs: 0, logger }, "an outbox");
    assert.equal(d.maxAttempts, 2);
    assert.equal(d.closeGraceMs, 0);
    assert.equal(d.logger, logger);
    const none = resolvePushDelivery({ baseDelayMs: 0, maxDelayMs: 0 }, "an outbox");
    assert.equal(none.retryWait(3, undefined), 0);
  });

  await t.step("a bad bound is refused, naming the outbox, the option and its minimum", () => {
    assert.throws(
      () => resolvePushDelivery({ maxAttempts: 0 }, "the test outbox"),
      (e: Error) =>
        e instanceof RangeError &&
        /^Cannot create the test outbox: maxAttempts must be an integer of at least 1, got 0$/
          .test(e.message),
    );
    assert.throws(() => resolvePushDelivery({ closeGraceMs: -1 }, "o"), /closeGraceMs .* 0,/);
    assert.throws(() => resolvePushDelivery({ timeoutMs: 1.5 }, "o"), /timeoutMs/);
  });

  await t.step("integer() checks the outbox's own options in the same words", () => {
    const { integer } = resolvePushDelivery({}, "o");
    assert.equal(integer(undefined, "concurrency", 8), 8);
    assert.equal(integer(250, "leaseMarginMs", 5_000, 250), 250);
    assert.throws(
      () => integer(249, "leaseMarginMs", 5_000, 250),
      /^RangeError: Cannot create o: leaseMarginMs must be an integer of at least 250, got 249$/,
    );
  });

  await t.step("retryWait(): the backoff, or a longer Retry-After, at most maxDelayMs", () => {
    const d = resolvePushDelivery({ baseDelayMs: 100, maxDelayMs: 1_000 }, "o");
    const first = d.retryWait(1, undefined);
    assert.ok(first >= 50 && first <= 100, `${first}`);
    assert.equal(d.retryWait(1, 700), 700);
    assert.equal(d.retryWait(1, 60_000), 1_000);
    assert.ok(d.retryWait(20, undefined) <= 1_000);
  });

  await t.step("send() attempts with the outbox's fetch", async () => {
    const sent: string[] = [];
    const d = resolvePushDelivery({
      fetch: (input) => {
        sent.push(String(input));
        return Promise.resolve(new Response(null, { status: 204 }));
      },
    }, "o");
    const outcome = await d.send({
      id: "n1",
      taskId: "t",
      configId: "c",
      url: "https://hook.test/a",
      body: "{}",
      createdAt: 0,
    }, new AbortController().signal);
    assert.deepEqual(outcome, { kind: "delivered", status: 204 });
    assert.deepEqual(sent, ["https://hook.test/a"]);
  });
});

Deno.test("PushDelivery.drain() lets deliveries settle within the grace, then aborts the rest", async (t) => {
  await t.step("settled in time: aborted after, with no timer left", async () => {
    const order: string[] = [];
    const inflight = Promise.resolve().then(() => order.push("settled"));
    const d = resolvePushDelivery({ closeGraceMs: 60_000 }, "o");
    await d.drain(inflight, () => order.push("aborted"));
    assert.deepEqual(order, ["settled", "aborted"]);
  });

  await t.step("still in flight when the grace ends: aborted, then awaited", async () => {
    const order: string[] = [];
    const controller = new AbortController();
    const inflight = new Promise<void>((resolve) =>
      controller.signal.addEventListener("abort", () => {
        order.push("stopped");
        resolve();
      })
    );
    const d = resolvePushDelivery({ closeGraceMs: 1 }, "o");
    await d.drain(inflight, () => {
      order.push("aborted");
      controller.abort();
    });
    assert.deepEqual(order, ["aborted", "stopped"]);
  });
});
