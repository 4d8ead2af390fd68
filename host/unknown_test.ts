import assert from "node:assert/strict";
import { isRecord, messageOf } from "./mod.ts";

Deno.test("isRecord() accepts objects only, not arrays or null", () => {
  assert.ok(isRecord({}));
  assert.ok(isRecord(Object.create(null)));
  for (const value of [null, undefined, [], "x", 1, true, () => {}]) {
    assert.ok(!isRecord(value), String(value));
  }
});

Deno.test("messageOf() says what was thrown", () => {
  assert.equal(messageOf(new TypeError("bad")), "bad");
  assert.equal(messageOf(new RangeError("")), "RangeError", "an empty message gives the name");
  const cause = new Error("ECONNREFUSED");
  assert.equal(messageOf(new Error("fetch failed", { cause })), "fetch failed (ECONNREFUSED)");
  assert.equal(
    messageOf(new Error("fetch failed: ECONNREFUSED", { cause })),
    "fetch failed: ECONNREFUSED",
    "a cause the message already quotes is not repeated",
  );
  assert.equal(messageOf(new Error("x", { cause: "not an error" })), "x");
  assert.equal(messageOf(42), "42");
});
