import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, InactiveScopeError } from "./mod.ts";

Deno.test("Scope.beforeDispose() runs first, awaited, before children and disposers", async () => {
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  const order: string[] = [];
  root.beforeDispose(async () => {
    await Promise.resolve();
    order.push("hook 1");
  });
  const child = root.child("child");
  child.onDispose(() => void order.push("child disposer"));
  root.onDispose(() => void order.push("root disposer"));
  root.beforeDispose(() => {
    assert.equal(child.state, "active", "children are still in place");
    order.push("hook 2");
  });
  root.beforeDispose(() => {
    throw new Error("broken hook");
  });
  const early = root.beforeDispose(() => void order.push("early"));
  await early();
  await early();
  await root.dispose();
  assert.deepEqual(order, ["early", "hook 2", "hook 1", "root disposer", "child disposer"]);
  assert.equal(records.filter((r) => r.level === "error").length, 1);
  assert.throws(() => root.beforeDispose(() => {}), InactiveScopeError);
  assert.throws(() => createRootScope().beforeDispose(1 as never), TypeError);
});
