import assert from "node:assert/strict";
// @ts-types="@agentclientprotocol/sdk"
import * as acp from "../_acp_sdk.bundle.js";
import { SessionSlots } from "./_slots.ts";

Deno.test("SessionSlots holds at most max, refuses past it, and frees a slot once", () => {
  const slots = new SessionSlots(2);
  const first = slots.take();
  const second = slots.take();
  assert.equal(slots.held, 2);
  assert.throws(
    () => slots.take(),
    (error: unknown) => {
      assert.ok(error instanceof acp.RequestError);
      assert.equal(error.code, -32603);
      assert.deepEqual(error.data, { reason: "maxSessions", maxSessions: 2 });
      assert.match(error.message, /holds 2 sessions already.*close one with session\/close/);
      return true;
    },
  );
  first();
  first(); // a second release of the same slot frees nothing more
  assert.equal(slots.held, 1);
  slots.take();
  assert.equal(slots.held, 2);
  second();
  assert.equal(slots.held, 1);
});
