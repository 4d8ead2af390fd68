import assert from "node:assert/strict";
import { createRootScope, defineEvent } from "@seam/host";
import {
  findRunControl,
  NestedRuns,
  onSubagentNestedRun,
  subagentEnd,
  type SubagentNestedRunInfo,
  type SubagentRunEndInfo,
  subagentStart,
} from "./mod.ts";

/** What `root` hears of nested runs, in order. */
function listen(root: ReturnType<typeof createRootScope>) {
  const heard: string[] = [];
  const states: SubagentNestedRunInfo[] = [];
  const ends: SubagentRunEndInfo[] = [];
  onSubagentNestedRun(root, (info) => {
    states.push(info);
    heard.push(`state ${info.runId} ${info.state}`);
  });
  root.on(subagentStart, (info) => void heard.push(`start ${info.runId} ${info.label}`));
  root.on(subagentEnd, (info) => {
    ends.push(info);
    heard.push(`end ${info.runId} ${info.stopReason}`);
  });
  return { heard, states, ends };
}

Deno.test("NestedRuns tells a nested run's state, its start, its changes only, and its end", async () => {
  const root = createRootScope();
  const { heard, states, ends } = listen(root);
  const nested = new NestedRuns({
    runId: "r",
    provider: "acp",
    scope: root,
    place: { provider: "acp", depth: 2 },
  });
  const child = nested.add("c", undefined, { title: "helper", state: "running" })!;
  const grand = nested.add("g", child, { state: "needs-action" }, "remote")!;
  assert.deepEqual([child.runId, grand.runId, grand.parentRunId], ["r.1", "r.2", "r.1"]);
  assert.deepEqual([child.depth, grand.depth], [3, 4]);
  assert.equal(nested.update(child, { state: "running" }), false, "no change, nothing told");
  assert.equal(nested.update(child, { usage: { inputTokens: 9, toolCalls: 2 } }), true);
  nested.update(grand, { state: "idle" });
  nested.end(child, "aborted");
  assert.equal(nested.update(child, { state: "idle" }), false, "nothing after its end");
  nested.endAll("completed");
  assert.deepEqual(heard, [
    "state r.1 running",
    "start r.1 helper",
    "state r.2 needs-action",
    "start r.2 remote",
    "state r.1 running",
    "state r.2 idle",
    "end r.1 aborted",
    "end r.2 completed",
  ]);
  assert.deepEqual(states[2], {
    runId: "r.1",
    parentRunId: "r",
    provider: "acp",
    depth: 3,
    title: "helper",
    state: "running",
    usage: { inputTokens: 9, outputTokens: 0, toolCalls: 2 },
    cancellable: false,
  });
  assert.ok(Object.isFrozen(states[2].usage));
  assert.deepEqual(ends[0].usage.total.inputTokens, 9);
  assert.equal(ends[0].usage.partial, true);
  await root.dispose();
});

Deno.test("NestedRuns.add() follows at most max nested runs, and none once the run ended", async () => {
  const root = createRootScope();
  const nested = new NestedRuns({ runId: "r", provider: "a2a", scope: root, max: 2 });
  assert.ok(nested.add("a", undefined, {}));
  assert.ok(nested.add("b", undefined, {}));
  assert.equal(nested.add("c", undefined, {}), undefined);
  assert.equal(nested.size, 2);
  const open = new NestedRuns({ runId: "s", provider: "a2a", scope: root });
  open.endAll("completed");
  assert.equal(open.add("a", undefined, {}), undefined);
  await root.dispose();
});

Deno.test("NestedRuns puts a new canceller in the old one's place", () => {
  const root = createRootScope();
  const nested = new NestedRuns({ runId: "r", provider: "acp", scope: root });
  const heard: string[] = [];
  const child = nested.add("c", undefined, { cancel: () => heard.push("old") })!;
  nested.update(child, { cancel: () => heard.push("new") });
  findRunControl(root, "r.1")?.("stop");
  assert.deepEqual(heard, ["new"]);
  nested.end(child, "completed");
  assert.equal(findRunControl(root, "r.1"), undefined);
});

Deno.test("NestedRuns registers a nested run's canceller while it may be cancelled", async () => {
  const root = createRootScope();
  const { states } = listen(root);
  const nested = new NestedRuns({ runId: "r", provider: "acp", scope: root });
  const cancelled: string[] = [];
  const child = nested.add("c", undefined, { cancel: (why) => cancelled.push(why) })!;
  assert.equal(child.cancellable, true);
  findRunControl(root, "r.1")?.("stop");
  assert.deepEqual(cancelled, ["stop"]);
  nested.update(child, { cancel: null });
  assert.equal(findRunControl(root, "r.1"), undefined);
  nested.update(child, { cancel: () => {} });
  assert.ok(findRunControl(root, "r.1"));
  assert.deepEqual(states.map((s) => s.cancellable), [true, false, true]);
  nested.end(child, "completed");
  assert.equal(findRunControl(root, "r.1"), undefined, "none after its end");
  await root.dispose();
});

Deno.test("NestedRuns.endAll() ends each nested run by its last state", async () => {
  const ended = async (stopReason: "completed" | "budget-exhausted") => {
    const root = createRootScope();
    const { ends } = listen(root);
    const nested = new NestedRuns({ runId: "r", provider: "acp", scope: root });
    for (const state of [undefined, "idle", "failed", "running", "needs-action"]) {
      nested.add(String(state), undefined, { state });
    }
    nested.endAll(stopReason);
    await root.dispose();
    return ends.map((e) => e.stopReason);
  };
  assert.deepEqual(await ended("completed"), [
    "completed",
    "completed",
    "error",
    "aborted",
    "aborted",
  ]);
  assert.deepEqual(await ended("budget-exhausted"), [
    "completed",
    "completed",
    "error",
    "budget-exhausted",
    "budget-exhausted",
  ]);
});

Deno.test("onSubagentNestedRun() hears the deprecated acp/child of an older provider, once each", async () => {
  const root = createRootScope();
  const { states } = listen(root);
  const legacy = defineEvent<Record<string, unknown>>("acp/child");
  const olderHeard: unknown[] = [];
  root.on(legacy, (info) => void olderHeard.push(info));
  // A provider that still tells only acp/child.
  root.emit(legacy, {
    runId: "x.1",
    parentRunId: "x",
    provider: "older",
    depth: 2,
    sessionId: "s",
    state: "idle",
    cancellable: false,
    usage: { contextTokens: 5, toolCalls: 1 },
    ended: false,
  });
  root.emit(legacy, { runId: "x.1", parentRunId: "x", ended: true });
  // NestedRuns tells both: heard once here, and still as acp/child by its older listeners.
  const nested = new NestedRuns({ runId: "r", provider: "acp", scope: root });
  nested.add("their-session", undefined, { state: "running" });
  assert.deepEqual(states.map((s) => [s.runId, s.state, s.usage.inputTokens]), [
    ["x.1", "idle", 5],
    ["r.1", "running", 0],
  ]);
  assert.equal(olderHeard.length, 3);
  assert.deepEqual(
    olderHeard[2],
    {
      runId: "r.1",
      parentRunId: "r",
      provider: "acp",
      depth: 2,
      state: "running",
      usage: { contextTokens: 0, toolCalls: 0 },
      cancellable: false,
      rootRunId: "r",
      sessionId: "their-session",
      ended: false,
    },
  );
  await root.dispose();
});

Deno.test("new NestedRuns() refuses an unknown option, naming the known ones", async () => {
  const root = createRootScope();
  assert.throws(
    () => new NestedRuns({ runId: "r", provider: "a2a", scope: root, maxRuns: 2 } as never),
    new TypeError(
      "Cannot follow nested runs: unknown option maxRuns (known: runId, provider, scope, place, max)",
    ),
  );
  await root.dispose();
});
