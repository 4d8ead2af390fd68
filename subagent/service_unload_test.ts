import assert from "node:assert/strict";
import {
  subagentEnd,
  subagentProviderRemoved,
  type SubagentRunEndInfo,
  type SubagentRunHandle,
} from "./mod.ts";
import { flush, manualProvider, setup } from "./_test_fixtures.ts";

/** A manual provider whose cancel ends the run `aborted`, as the contract says. */
function cancellable(name: string, log: string[] = []) {
  const provider = manualProvider(name, undefined, (run) => ({
    cancel(reason) {
      run.cancels.push(reason);
      log.push(`cancel ${run.handle.id}: ${reason}`);
      run.result.resolve({ output: [], stopReason: "aborted" });
    },
    dispose() {
      run.disposes++;
      log.push(`dispose ${run.handle.id}`);
      return Promise.resolve();
    },
  }));
  return provider;
}

Deno.test("registerProvider(): ending the registration ends the provider's live runs", async (t) => {
  await t.step("disposing the registering scope aborts and disposes every live run", async () => {
    const { root, service, parent } = setup();
    const plugin = root.child("plugin");
    const log: string[] = [];
    const provider = cancellable("hot", log);
    service.registerProvider(provider, { scope: plugin });
    const ends: SubagentRunEndInfo[] = [];
    parent.scope.on(subagentEnd, (info) => void ends.push(info));
    parent.scope.on(subagentProviderRemoved, () => void log.push("removed"));
    root.on(subagentProviderRemoved, () => void log.push("removed"));
    const a = service.start("hot", { prompt: "a", parent });
    const b = service.start("hot", { prompt: "b", parent });
    provider.runs[0].started.resolve();
    provider.runs[1].started.resolve();
    await plugin.dispose();
    assert.equal((await a.result).stopReason, "aborted");
    assert.equal((await b.result).stopReason, "aborted");
    assert.deepEqual(provider.runs.map((r) => r.cancels), [
      ["the subagent provider was unloaded"],
      ["the subagent provider was unloaded"],
    ]);
    assert.deepEqual(provider.runs.map((r) => r.disposes), [1, 1]);
    assert.equal(log[0], "removed", "no new run can start once the unload begins");
    await flush();
    assert.deepEqual(ends.map((e) => e.stopReason), ["aborted", "aborted"]);
    assert.deepEqual(service.list(), []);
    await a.dispose();
    assert.equal(provider.runs[0].disposes, 1, "the caller's dispose joins the same disposal");
    await b.dispose();
    await root.dispose();
  });
  await t.step("a run disposed before the unload is left alone", async () => {
    const { root, service, parent } = setup();
    const plugin = root.child("plugin");
    const provider = cancellable("hot");
    service.registerProvider(provider, { scope: plugin });
    const done = service.start("hot", { prompt: "a", parent });
    provider.runs[0].started.resolve();
    provider.runs[0].result.resolve({ output: "ok", stopReason: "completed" });
    await done.result;
    await done.dispose();
    const live = service.start("hot", { prompt: "b", parent });
    await plugin.dispose();
    assert.deepEqual(provider.runs.map((r) => r.cancels.length), [0, 1]);
    assert.deepEqual(provider.runs.map((r) => r.disposes), [1, 1]);
    await live.dispose();
    await root.dispose();
  });
  await t.step(
    "a run whose parent scope was disposed is not held by the registration",
    async () => {
      const { root, service, parent } = setup();
      const plugin = root.child("plugin");
      const provider = cancellable("hot");
      service.registerProvider(provider, { scope: plugin });
      service.start("hot", { prompt: "a", parent });
      await parent.scope.dispose();
      await plugin.dispose();
      assert.deepEqual(provider.runs[0].cancels, [], "only the parent's teardown reached it");
      assert.equal(provider.runs[0].disposes, 1);
      await root.dispose();
    },
  );
  await t.step("runs of another registration keep running", async () => {
    const { root, service, parent } = setup();
    const plugin = root.child("plugin");
    const hot = cancellable("hot");
    const other = cancellable("other");
    service.registerProvider(hot, { scope: plugin });
    service.registerProvider(other);
    const run = service.start("other", { prompt: "x", parent });
    await plugin.dispose();
    assert.deepEqual(other.runs[0].cancels, []);
    assert.equal(other.runs[0].disposes, 0);
    await run.dispose();
    await root.dispose();
  });
});

Deno.test("registerProvider(): ending the registration disposes the provider", async (t) => {
  await t.step("after its runs, once, whichever way the registration ends", async () => {
    for (const how of ["scope", "disposer", "root"] as const) {
      const { root, service, parent } = setup();
      const plugin = root.child("plugin");
      const log: string[] = [];
      const provider = cancellable("pooled", log);
      let disposes = 0;
      const disposer = service.registerProvider({
        ...provider,
        start: (request) => provider.start(request),
        dispose() {
          disposes++;
          log.push("provider disposed");
          return new Promise<void>((resolve) => setTimeout(resolve, 1));
        },
      }, { scope: how === "root" ? undefined : plugin });
      service.start("pooled", { prompt: "x", parent });
      if (how === "scope") await plugin.dispose();
      else if (how === "disposer") await disposer();
      else await root.dispose();
      assert.equal(disposes, 1, how);
      assert.equal(log.at(-1), "provider disposed", `${how}: ${log.join(", ")}`);
      assert.ok(log.includes("dispose pooled-1"), how);
      await disposer();
      await plugin.dispose();
      await root.dispose();
      assert.equal(disposes, 1, `${how}: never twice`);
    }
  });
  await t.step("the provider's dispose runs with the provider as this", async () => {
    const { root, service } = setup();
    let self: unknown;
    const provider = {
      ...manualProvider("self"),
      dispose() {
        self = this;
      },
    };
    service.registerProvider(provider);
    await root.dispose();
    assert.equal(self, provider);
  });
  await t.step("a failing provider dispose is logged; the teardown goes on", async () => {
    const { root, service, records } = setup();
    service.registerProvider({
      ...manualProvider("broken"),
      dispose: () => Promise.reject(new Error("socket already gone")),
    });
    let after = false;
    root.onDispose(() => void (after = true));
    await root.dispose();
    assert.ok(after);
    const logged = records.find((r) => r.level === "error");
    assert.match(logged?.message ?? "", /Disposing provider "broken" failed/);
  });
  await t.step("the snapshot does not expose dispose; a bad one is refused", () => {
    const { service } = setup();
    service.registerProvider({ ...manualProvider("has"), dispose() {} });
    assert.ok(!("dispose" in service.getProvider("has")!));
    assert.throws(
      () => service.registerProvider({ ...manualProvider("bad"), dispose: "yes" } as never),
      /provider\.dispose of "bad" must be a function or absent, got "yes"/,
    );
    assert.deepEqual(service.list(), ["has"]);
  });
});

Deno.test("start() observes a hostile handle's promises when it rolls back", async (t) => {
  const cases: [string, Record<string, unknown>][] = [
    ["cancel", { cancel: null }],
    ["sendMessage", { sendMessage: 1 }],
    ["resume", { resume: "no" }],
  ];
  for (const [field, overrides] of cases) {
    await t.step(`a malformed ${field}`, async () => {
      const { root, service, parent } = setup();
      const unhandled = trackUnhandledRejections();
      try {
        const base = manualProvider("hostile");
        service.registerProvider({
          ...base,
          start(request) {
            const handle = base.start(request);
            return {
              ...handle,
              started: Promise.reject(new Error("started, never observed")),
              result: Promise.reject(new Error("result, never observed")),
              ...overrides,
            } as unknown as SubagentRunHandle;
          },
        });
        assert.throws(
          () => service.start("hostile", { prompt: "x", parent }),
          new RegExp(`run\\.${field} must be a function`),
        );
        await flush();
        await flush();
        assert.deepEqual(unhandled.reasons, []);
        assert.equal(base.runs[0].disposes, 1, "rolled back");
      } finally {
        unhandled.stop();
      }
      await root.dispose();
    });
  }
});

/** Collect unhandled rejections (and keep them from failing the run) until `stop()`. */
function trackUnhandledRejections(): { reasons: unknown[]; stop(): void } {
  const reasons: unknown[] = [];
  const target = globalThis as unknown as {
    addEventListener?: (type: string, fn: (event: PromiseRejectionEvent) => void) => void;
    removeEventListener?: (type: string, fn: (event: PromiseRejectionEvent) => void) => void;
    process?: {
      on(type: string, fn: (reason: unknown) => void): void;
      off(type: string, fn: (reason: unknown) => void): void;
    };
  };
  if (typeof target.addEventListener === "function") {
    const onEvent = (event: PromiseRejectionEvent) => {
      event.preventDefault();
      reasons.push(event.reason);
    };
    target.addEventListener("unhandledrejection", onEvent);
    return { reasons, stop: () => target.removeEventListener!("unhandledrejection", onEvent) };
  }
  const onReason = (reason: unknown) => void reasons.push(reason);
  target.process!.on("unhandledRejection", onReason);
  return { reasons, stop: () => target.process!.off("unhandledRejection", onReason) };
}
