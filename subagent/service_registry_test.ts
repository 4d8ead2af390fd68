import assert from "node:assert/strict";
import { InactiveScopeError } from "@seam/host";
import {
  assertSubagentMaxDepth,
  type RegisteredSubagentProvider,
  SubagentError,
  subagentProviderAdded,
  subagentProviderRemoved,
  type SubagentProviderRemovedInfo,
} from "./mod.ts";
import { manualProvider, NO_CAPABILITIES, setup } from "./_test_fixtures.ts";

Deno.test("registerProvider() reads each fixed field exactly once", async () => {
  const { root, service } = setup();
  const reads: Record<string, number> = {};
  const counted = <T>(key: string, value: T) => ({
    get() {
      reads[key] = (reads[key] ?? 0) + 1;
      return value;
    },
    enumerable: true,
  });
  const capabilities = Object.defineProperties({}, {
    outputSchema: counted("outputSchema", false),
    depthLimit: counted("depthLimit", true),
    toolFilter: counted("toolFilter", false),
    persona: counted("persona", true),
  });
  const base = manualProvider("counted");
  const provider = Object.defineProperties({}, {
    name: counted("name", "counted"),
    capabilities: counted("capabilities", capabilities),
    inheritsParentContext: counted("inheritsParentContext", true),
    start: counted("start", base.start),
  });
  service.registerProvider(provider as never);
  assert.deepEqual(reads, {
    name: 1,
    capabilities: 1,
    outputSchema: 1,
    depthLimit: 1,
    toolFilter: 1,
    persona: 1,
    inheritsParentContext: 1,
    start: 1,
  });
  const snapshot = service.getProvider("counted")!;
  assert.deepEqual({ ...snapshot.capabilities }, {
    outputSchema: false,
    depthLimit: true,
    toolFilter: false,
    persona: true,
    budget: false, // absent from the declaration: false
  });
  assert.equal(snapshot.inheritsParentContext, true);
  await root.dispose();
});

Deno.test("registerProvider() rejects each malformed field before registering", async (t) => {
  const good = () => ({ ...manualProvider("good") }) as Record<string, unknown>;
  const cases: [string, (p: Record<string, unknown>) => void, RegExp][] = [
    ["a missing name", (p) => delete p.name, /provider\.name/],
    ["an empty name", (p) => p.name = "", /provider\.name/],
    ["a name with spaces", (p) => p.name = "my provider", /provider\.name/],
    ["a name too long", (p) => p.name = "x".repeat(65), /provider\.name/],
    ["capabilities not an object", (p) => p.capabilities = true, /provider\.capabilities/],
    ["capabilities as an array", (p) => p.capabilities = [], /provider\.capabilities/],
    [
      "an unknown capability flag",
      (p) => p.capabilities = { ...NO_CAPABILITIES, streaming: true },
      /unknown flag "streaming"/,
    ],
    [
      "a missing capability flag",
      (p) => p.capabilities = { outputSchema: true, depthLimit: true, toolFilter: true },
      /capabilities\.persona/,
    ],
    [
      "a non-boolean flag",
      (p) => p.capabilities = { ...NO_CAPABILITIES, depthLimit: 1 },
      /capabilities\.depthLimit/,
    ],
    ["a non-boolean inheritsParentContext", (p) => p.inheritsParentContext = "no", /inherits/],
    ["a start that is not a function", (p) => p.start = "go", /provider\.start/],
  ];
  for (const [label, mutate, pattern] of cases) {
    await t.step(label, async () => {
      const { root, service } = setup();
      const added: unknown[] = [];
      root.on(subagentProviderAdded, (p) => void added.push(p));
      const provider = good();
      mutate(provider);
      assert.throws(() => service.registerProvider(provider as never), (error: unknown) => {
        assert.ok(error instanceof TypeError, String(error));
        assert.match(error.message, pattern);
        return true;
      });
      assert.deepEqual(service.list(), []);
      assert.deepEqual(added, []);
      await root.dispose();
    });
  }
  await t.step("a non-object provider", async () => {
    const { root, service } = setup();
    assert.throws(() => service.registerProvider(null as never), /expected a provider object/);
    await root.dispose();
  });
});

Deno.test("registerProvider() stores a frozen snapshot later mutation cannot change", async () => {
  const { root, service, parent } = setup();
  const provider = manualProvider("snap") as unknown as Record<string, unknown>;
  const originalStart = provider.start;
  const dispose = service.registerProvider(provider as never);
  const snapshot = service.getProvider("snap")!;
  assert.ok(Object.isFrozen(snapshot));
  assert.ok(Object.isFrozen(snapshot.capabilities));
  provider.name = "renamed";
  (provider.capabilities as Record<string, boolean>) = { ...NO_CAPABILITIES };
  provider.start = () => {
    throw new Error("the mutated start must never run");
  };
  assert.equal(service.getProvider("snap"), snapshot);
  assert.equal(service.getProvider("renamed"), undefined);
  assert.equal(snapshot.capabilities.persona, true);
  const run = service.start("snap", { prompt: "hi", parent, persona: "p" });
  assert.equal((provider as unknown as ReturnType<typeof manualProvider>).runs.length, 1);
  assert.ok(originalStart);
  await run.dispose();
  // Unregistration uses the accepted name, not the mutated one.
  await dispose();
  assert.deepEqual(service.list(), []);
  await root.dispose();
});

Deno.test("registerProvider() keeps start bound to the original provider", async () => {
  const { root, service, parent } = setup();
  const base = manualProvider("bound");
  let receiver: unknown;
  const provider = {
    ...base,
    start(this: unknown, request: Parameters<typeof base.start>[0]) {
      receiver = this;
      return base.start(request);
    },
  };
  service.registerProvider(provider);
  const run = service.start("bound", { prompt: "hi", parent });
  assert.equal(receiver, provider);
  await run.dispose();
  await root.dispose();
});

Deno.test("registerProvider() throws DUPLICATE_PROVIDER and keeps the first", async () => {
  const { root, service } = setup();
  service.registerProvider(manualProvider("twin"));
  const first = service.getProvider("twin");
  assert.throws(
    () => service.registerProvider(manualProvider("twin")),
    (error: unknown) =>
      error instanceof SubagentError && error.code === "DUPLICATE_PROVIDER" &&
      error.message.includes('"twin"'),
  );
  assert.equal(service.getProvider("twin"), first);
  await root.dispose();
});

Deno.test("registerProvider() is scope-owned and announces membership", async (t) => {
  await t.step("the disposer unregisters once and emits provider-removed", async () => {
    const { root, service } = setup();
    const added: RegisteredSubagentProvider[] = [];
    const removed: SubagentProviderRemovedInfo[] = [];
    root.on(subagentProviderAdded, (p) => void added.push(p));
    root.on(subagentProviderRemoved, (p) => void removed.push(p));
    const dispose = service.registerProvider(manualProvider("a"));
    assert.equal(added.length, 1);
    assert.equal(added[0], service.getProvider("a"));
    await dispose();
    await dispose();
    assert.deepEqual(removed, [{ name: "a" }]);
    assert.ok(Object.isFrozen(removed[0]));
    assert.deepEqual(service.list(), []);
    // The name is free again.
    service.registerProvider(manualProvider("a"));
    assert.deepEqual(service.list(), ["a"]);
    await root.dispose();
  });
  await t.step("disposing the owning scope unregisters", async () => {
    const { root, service } = setup();
    const plugin = root.child("plugin");
    service.registerProvider(manualProvider("plugged"), { scope: plugin });
    service.registerProvider(manualProvider("stays"));
    await plugin.dispose();
    assert.deepEqual(service.list(), ["stays"]);
    await root.dispose();
    assert.deepEqual(service.list(), []);
  });
  await t.step("an inactive owner scope is refused and nothing is registered", async () => {
    const { root, service, records } = setup();
    const plugin = root.child("plugin");
    await plugin.dispose();
    assert.throws(
      () => service.registerProvider(manualProvider("late"), { scope: plugin }),
      InactiveScopeError,
    );
    assert.deepEqual(service.list(), []);
    assert.deepEqual(records, []);
    await root.dispose();
  });
  await t.step("a throwing listener does not stop later listeners", async () => {
    const { root, service, records } = setup();
    const seen: string[] = [];
    root.on(subagentProviderRemoved, () => {
      throw new Error("first listener broke");
    });
    root.on(subagentProviderRemoved, (p) => void seen.push(p.name));
    const dispose = service.registerProvider(manualProvider("x"));
    await dispose();
    assert.deepEqual(seen, ["x"]);
    assert.match(records[0].message, /subagent\/provider-removed/);
    await root.dispose();
  });
});

Deno.test("list() and getProvider() reflect the registry in insertion order", async () => {
  const { root, service } = setup();
  for (const name of ["c", "a", "b"]) service.registerProvider(manualProvider(name));
  assert.deepEqual(service.list(), ["c", "a", "b"]);
  assert.equal(service.getProvider("zzz"), undefined);
  assert.equal(service.getProvider("a")?.name, "a");
  await root.dispose();
});

Deno.test("assertSubagentMaxDepth() accepts absence and non-negative safe integers only", () => {
  for (const ok of [undefined, 0, 1, 7, Number.MAX_SAFE_INTEGER]) {
    assertSubagentMaxDepth(ok);
  }
  for (const bad of [1.5, NaN, Infinity, -Infinity, -1, -0, 2 ** 53]) {
    assert.throws(() => assertSubagentMaxDepth(bad), RangeError, String(bad));
  }
  for (const bad of ["1", null, true, {}, 1n]) {
    assert.throws(() => assertSubagentMaxDepth(bad), TypeError, String(bad));
  }
  assert.throws(() => assertSubagentMaxDepth(-1, "config.maxDepth"), /config\.maxDepth/);
  const { service } = setup();
  assert.throws(() => service.assertSubagentMaxDepth(-0), RangeError);
});
