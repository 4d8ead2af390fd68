import assert from "node:assert/strict";
import {
  createHost,
  createMemoryLogger,
  createScriptedModel,
  InactiveScopeError,
  type ModelAdapter,
} from "./mod.ts";

const adapter = (name: string): ModelAdapter => createScriptedModel({ name });

Deno.test("ModelRegistry.resolve() walks the scope ancestry, exact ids before the wildcard", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  const root = adapter("root");
  const any = adapter("any");
  const near = adapter("near");
  host.models.register(host.scope, "fast", root);
  const child = host.scope.child("child");
  host.models.register(child, "*", any);
  const grandchild = child.child("grandchild");
  host.models.register(grandchild, "smart", near);
  assert.equal(host.models.resolve(grandchild, "smart"), near);
  assert.equal(
    host.models.resolve(grandchild, "fast"),
    root,
    "an ancestor's exact id beats a nearer wildcard",
  );
  assert.equal(host.models.resolve(grandchild, "other"), any);
  assert.deepEqual(host.models.list(grandchild), ["smart", "*", "fast"]);
  assert.throws(
    () => host.models.resolve(host.scope, "smart"),
    (error: unknown) =>
      error instanceof RangeError &&
      error.message ===
        'Cannot resolve model "smart": no adapter is registered for it in scope "root" or its ancestors (registered: "fast")',
  );
  await child.dispose();
  assert.throws(() => host.models.resolve(grandchild, "other"), /registered: "fast"/);
  await host.scope.dispose();
  assert.throws(() => host.models.resolve(host.scope, "fast"), /registered: none/);
});

Deno.test("ModelRegistry.register() rejects malformed adapters and duplicates", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  const bad: [unknown, unknown, RegExp][] = [
    ["", adapter("x"), /model id must be a non-empty string/],
    ["m", null, /must have a string name and a stream\(\) method/],
    ["m", { name: "x" }, /stream\(\) method/],
    ["m", { stream() {} }, /string name/],
  ];
  for (const [id, candidate, pattern] of bad) {
    assert.throws(() => host.models.register(host.scope, id as never, candidate as never), pattern);
  }
  const dispose = host.models.register(host.scope, "m", adapter("one"));
  assert.throws(() => host.models.register(host.scope, "m", adapter("two")), /already registered/);
  await dispose();
  host.models.register(host.scope, "m", adapter("two"));
  assert.equal(host.models.resolve(host.scope, "m").name, "two");
  await host.scope.dispose();
  assert.throws(() => host.models.register(host.scope, "n", adapter("x")), InactiveScopeError);
});
