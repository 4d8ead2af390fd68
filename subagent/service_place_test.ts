import assert from "node:assert/strict";
import { delegationContextKey } from "./delegation.ts";
import { subagentEnd, subagentStart } from "./events.ts";
import type { SubagentRunEndInfo, SubagentRunInfo } from "./types.ts";
import { flush, manualProvider, setup } from "./_test_fixtures.ts";

Deno.test("start() works out where a run sits in the tree", async (t) => {
  await t.step("a run started by a live run's child sits below it, one deeper", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const starts: SubagentRunInfo[] = [];
    const ends: SubagentRunEndInfo[] = [];
    root.on(subagentStart, (info) => void starts.push(info));
    root.on(subagentEnd, (info) => void ends.push(info));

    const top = service.start("p", { prompt: "top", parent, label: "Audit" });
    provider.runs[0].started.resolve();
    // The child agent carries the run's id, as an in-process child does.
    const child = { id: top.id, scope: parent.scope.child("child") };
    const below = service.start("p", { prompt: "below", parent: child });
    provider.runs[1].started.resolve();
    const grandchild = { id: below.id, scope: child.scope.child("grandchild") };
    const deepest = service.start("p", { prompt: "deepest", parent: grandchild, label: "Leaf" });
    provider.runs[2].started.resolve();
    await flush();

    assert.deepEqual(provider.runs.map((r) => r.request.place), [
      { provider: "p", depth: 1, label: "Audit" },
      { provider: "p", depth: 2, parentRunId: "p-1" },
      { provider: "p", depth: 3, parentRunId: "p-2", label: "Leaf" },
    ]);
    assert.ok(Object.isFrozen(provider.runs[0].request.place));
    assert.deepEqual(
      starts.map(({ runId, parentRunId, depth, provider, label }) => ({
        runId,
        parentRunId,
        depth,
        provider,
        label,
      })),
      [
        { runId: "p-1", parentRunId: undefined, depth: 1, provider: "p", label: "Audit" },
        { runId: "p-2", parentRunId: "p-1", depth: 2, provider: "p", label: undefined },
        { runId: "p-3", parentRunId: "p-2", depth: 3, provider: "p", label: "Leaf" },
      ],
    );
    assert.equal("id" in starts[0], false, "runId is the one name for the run's id");

    provider.runs[2].result.resolve({ output: "done", stopReason: "completed" });
    await flush();
    assert.equal(ends.length, 1);
    assert.equal(ends[0].runId, "p-3");
    assert.equal(ends[0].parentRunId, "p-2");
    assert.equal(ends[0].depth, 3);
    assert.equal(ends[0].label, "Leaf");

    // Once a run is disposed, nothing sits below it any more.
    await below.dispose();
    const after = service.start("p", { prompt: "after", parent: grandchild });
    assert.deepEqual(provider.runs[3].request.place, { provider: "p", depth: 1 });
    for (const run of [top, deepest, after]) await run.dispose();
    await root.dispose();
  });

  await t.step(
    "a parent scope's delegation context gives the depth and the run above",
    async () => {
      const { root, service } = setup();
      const provider = manualProvider("p");
      service.registerProvider(provider);
      const scope = root.child("served");
      scope.provide(delegationContextKey, { depth: 4, runId: "remote-7" });
      const run = service.start("p", { prompt: "x", parent: { id: "gateway-agent", scope } });
      assert.deepEqual(provider.runs[0].request.place, {
        provider: "p",
        depth: 5,
        parentRunId: "remote-7",
      });
      await run.dispose();
      await root.dispose();
    },
  );

  await t.step("a malformed label is refused before any child exists", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    for (const label of ["", 7, "x".repeat(201)]) {
      assert.throws(
        () => service.start("p", { prompt: "x", parent, label: label as string }),
        (error: unknown) =>
          error instanceof TypeError && /request\.label must be a non-empty string/.test(
            error.message,
          ),
      );
    }
    assert.equal(provider.runs.length, 0);
    await root.dispose();
  });
});
