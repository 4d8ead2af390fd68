// A task started with the seam extension tells the streams that activated it
// its run's descendants (status updates whose seam metadata carries
// `descendants`), bounded in count, per update and in rate; other streams
// hear nothing new; a CancelTask naming a descendant in the seam extension
// cancels that descendant only, for the task's principal only.
import assert from "node:assert/strict";
import { mock } from "node:test";
import { createMemoryLogger, createRootScope } from "@seam/host";
import {
  createSubagentService,
  NestedRuns,
  registerRunControl,
  subagentEnd,
  subagentInputRequired,
  subagentProgress,
  type SubagentRunInfo,
  subagentStart,
} from "@seam/subagent";
import { createGateway as createLiteGateway } from "./lite.ts";
import {
  type Controlled,
  controlledProvider,
  type ControlledRun,
  frames,
  message,
  rpc,
  rpcRequest,
  tick,
  type Wire,
  withSetup,
} from "./_test_support.ts";
import { type Gateway, SEAM_EXTENSION_URI } from "./mod.ts";

const SEAM = { [SEAM_EXTENSION_URI]: { depth: 0 } };

/** A nested run of `run`'s provider, as a provider reports one (`subagent/start`). */
function nested(run: ControlledRun, runId: string, parentRunId = run.id): SubagentRunInfo {
  return {
    provider: "inner",
    runId,
    parentRunId,
    parentId: parentRunId,
    depth: 2,
    label: `title of ${runId}`,
    prompt: [],
    inheritsParentContext: false,
  };
}

function startOf(run: ControlledRun, runId: string, parentRunId?: string): void {
  run.request.parent.scope.emit(subagentStart, nested(run, runId, parentRunId));
}

function endOf(run: ControlledRun, runId: string, inputTokens: number): void {
  const figures = {
    inputTokens,
    outputTokens: 1,
    cachedInputTokens: 0,
    modelCalls: 1,
    toolCalls: 2,
    wallTimeMs: 3,
  };
  run.request.parent.scope.emit(subagentEnd, {
    ...nested(run, runId),
    usage: { self: figures, total: figures, partial: false },
    stopReason: "completed",
    durationMs: 3,
  });
}

/** A seam stream's request for a message to `ctl`: its response, and its run made ready. */
async function seamStream(
  gateway: Gateway,
  ctl: Controlled,
): Promise<{ response: Response; run: ControlledRun }> {
  const response = await gateway.fetch(
    rpcRequest("SendStreamingMessage", { message: message("go", { metadata: SEAM }) }),
  );
  const run = ctl.runs[0];
  run.ready();
  return { response, run };
}

/** The descendants updates among a stream's frames. */
function treeUpdates(all: Wire[]): Wire[] {
  return all.map((f) => f.result?.statusUpdate?.metadata?.[SEAM_EXTENSION_URI])
    .filter((seam) => seam?.descendants !== undefined);
}

Deno.test("a seam stream hears its task's descendants: each one's parent, title, state, usage", async () => {
  const ctl = controlledProvider();
  await withSetup([ctl], {}, async ({ gateway }) => {
    const { response, run } = await seamStream(gateway, ctl);
    startOf(run, "child");
    startOf(run, "grandchild", "child");
    run.request.parent.scope.emit(subagentInputRequired, {
      id: "q1",
      runId: "grandchild",
      path: [run.id, "child", "grandchild"],
      kind: "question",
      message: "which one?",
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    endOf(run, "grandchild", 7);
    run.finish({ output: "done", stopReason: "completed" });
    const all = await frames(response);
    const updates = treeUpdates(all);
    assert.ok(updates.length >= 2, JSON.stringify(updates));
    const last = new Map<string, Wire>();
    for (const update of updates) for (const d of update.descendants) last.set(d.runId, d);
    // The task's own run is none of them; the child is under it (no parentRunId).
    assert.deepEqual([...last.keys()].sort(), ["child", "grandchild"]);
    assert.deepEqual(last.get("child"), {
      runId: "child",
      provider: "inner",
      title: "title of child",
      state: "running",
    });
    assert.deepEqual(last.get("grandchild"), {
      runId: "grandchild",
      parentRunId: "child",
      provider: "inner",
      title: "title of grandchild",
      state: "ended",
      stopReason: "completed",
      usage: { inputTokens: 7, outputTokens: 1, toolCalls: 2 },
    });
    // Its question made it "needs-action" before it ended.
    assert.ok(
      updates.some((u) =>
        u.descendants.some((d: Wire) => d.runId === "grandchild" && d.state === "needs-action")
      ),
    );
    // The tree is told before the task's end, and repeats the task's state without a message.
    const end = all.findIndex((f) =>
      f.result?.statusUpdate?.status?.state === "TASK_STATE_COMPLETED"
    );
    const lastTree = all.findLastIndex((f) =>
      f.result?.statusUpdate?.metadata?.[SEAM_EXTENSION_URI]?.descendants
    );
    assert.ok(lastTree < end);
    assert.equal(all[lastTree].result.statusUpdate.status.state, "TASK_STATE_WORKING");
    assert.equal(all[lastTree].result.statusUpdate.status.message, undefined);
  });
});

Deno.test("descendants are bounded per task and per update; the rest dropped with one warning", async () => {
  const ctl = controlledProvider();
  await withSetup([ctl], {}, async ({ gateway, warnings }) => {
    const { response, run } = await seamStream(gateway, ctl);
    for (let i = 0; i < 300; i++) startOf(run, `n${i}`);
    // Below one never told: not told either; a dropped one's progress counts it once.
    startOf(run, "under-n299", "n299");
    for (let i = 0; i < 3; i++) {
      run.request.parent.scope.emit(subagentProgress, {
        runId: "n299",
        parentRunId: run.id,
        kind: "text",
        text: "more",
      });
    }
    run.finish({ output: "done", stopReason: "completed" });
    const updates = treeUpdates(await frames(response));
    const told = new Set(updates.flatMap((u) => u.descendants.map((d: Wire) => d.runId)));
    assert.equal(told.size, 256);
    assert.ok(updates.every((u) => u.descendants.length <= 64));
    assert.equal(updates.at(-1)!.dropped, 45);
    assert.equal(warnings().filter((w) => w.includes("more than 256 descendants")).length, 1);
  });
});

Deno.test("a stream without the seam extension hears nothing of the descendants", async () => {
  const ctl = controlledProvider();
  await withSetup([ctl], {}, async ({ gateway }) => {
    const plain = await gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("go") }),
    );
    ctl.runs[0].ready();
    startOf(ctl.runs[0], "child");
    await new Promise((resolve) => setTimeout(resolve, 20));
    ctl.runs[0].finish({ output: "done", stopReason: "completed" });
    const all = await frames(plain);
    assert.deepEqual(treeUpdates(all), []);
    // Its frames are the task's own: the task, WORKING, the output, COMPLETED.
    assert.equal(all.length, 4);
  });
});

Deno.test("SubscribeToTask hears the whole tree when it activates the seam extension", async () => {
  const ctl = controlledProvider();
  await withSetup([ctl], {}, async ({ gateway }) => {
    const sent = await rpc(gateway, "SendMessage", {
      message: message("go", { metadata: SEAM }),
      configuration: { returnImmediately: true },
    });
    const id = sent.result.task.id;
    const run = ctl.runs[0];
    run.ready();
    startOf(run, "child");
    await tick();
    const seam = await gateway.fetch(
      rpcRequest("SubscribeToTask", { id }, { "a2a-extensions": SEAM_EXTENSION_URI }),
    );
    const plain = await gateway.fetch(rpcRequest("SubscribeToTask", { id }));
    startOf(run, "second");
    await new Promise((resolve) => setTimeout(resolve, 150));
    run.finish({ output: "done", stopReason: "completed" });
    const told = treeUpdates(await frames(seam)).flatMap((u) =>
      u.descendants.map((d: Wire) => d.runId)
    );
    // The child told before it subscribed, too: the first update it hears is the whole tree.
    assert.deepEqual([...new Set(told)].sort(), ["child", "second"]);
    assert.deepEqual(treeUpdates(await frames(plain)), []);
  });
});

Deno.test("CancelTask naming a descendant cancels it alone, for the task's principal only", async () => {
  const ctl = controlledProvider();
  await withSetup(
    [ctl],
    { auth: { tokens: { alice: "a-token", bob: "b-token" } } },
    async ({ gateway }) => {
      const as = (who: string) => ({ authorization: `Bearer ${who[0]}-token` });
      const sent = await rpc(gateway, "SendMessage", {
        message: message("go", { metadata: SEAM }),
        configuration: { returnImmediately: true },
      }, as("alice"));
      const id = sent.result.task.id;
      const run = ctl.runs[0];
      run.ready();
      const cancel = mock.fn();
      const unregister = registerRunControl(run.request.parent.scope, "child", cancel);
      startOf(run, "child");
      startOf(run, "told-but-not-cancellable");
      const cancelling = (runId: unknown, who = "alice") =>
        rpc(gateway, "CancelTask", { id, metadata: { [SEAM_EXTENSION_URI]: { runId } } }, as(who));

      // Another principal does not find the task.
      assert.equal((await cancelling("child", "bob")).error.code, -32001);
      assert.equal(cancel.mock.callCount(), 0);
      const answered = await cancelling("child");
      assert.equal(answered.result.status.state, "TASK_STATE_WORKING");
      assert.equal(cancel.mock.callCount(), 1);
      assert.equal(run.cancel.mock.callCount(), 0, "the task's own run goes on");
      for (const runId of ["nobody", "told-but-not-cancellable", run.id, 7, ""]) {
        const refused = await cancelling(runId);
        assert.equal(refused.error?.code, -32602, `${runId}: ${JSON.stringify(refused)}`);
      }
      const unknownField = await rpc(gateway, "CancelTask", {
        id,
        metadata: { [SEAM_EXTENSION_URI]: { runId: "child", all: true } },
      }, as("alice"));
      assert.equal(unknownField.error.code, -32602);
      assert.match(unknownField.error.message, /unknown field "all"/);
      unregister();
      run.finish({ output: "done", stopReason: "completed" });
      await tick();
      // A task that ended: not cancelable, its descendants with it.
      for (
        let i = 0;
        i < 50 && (await rpc(gateway, "GetTask", { id }, as("alice"))).result
            .status.state === "TASK_STATE_WORKING";
        i++
      ) await tick();
      assert.equal((await cancelling("child")).error.code, -32002);
    },
  );
});

Deno.test("@seam/gateway/lite refuses a CancelTask that names a descendant", async () => {
  const { logger } = createMemoryLogger();
  const root = createRootScope({ logger });
  const ctl = controlledProvider();
  createSubagentService(root).registerProvider(ctl);
  const gateway = createLiteGateway({ scope: root });
  try {
    const sent = await rpc(gateway, "SendMessage", {
      message: message("go", { metadata: SEAM }),
      configuration: { returnImmediately: true },
    });
    ctl.runs[0].ready();
    const refused = await rpc(gateway, "CancelTask", {
      id: sent.result.task.id,
      metadata: { [SEAM_EXTENSION_URI]: { runId: "child" } },
    });
    assert.equal(refused.error.code, -32602);
    assert.equal(ctl.runs[0].cancel.mock.callCount(), 0, "the task was not cancelled instead");
    ctl.runs[0].finish({ output: "done", stopReason: "completed" });
  } finally {
    await gateway.close();
    await root.dispose();
  }
});

Deno.test("a seam stream hears a nested run cancellable as its provider says, no longer once it says not", async () => {
  const ctl = controlledProvider();
  await withSetup([ctl], {}, async ({ gateway }) => {
    const { response, run } = await seamStream(gateway, ctl);
    const reported = new NestedRuns({
      runId: run.id,
      provider: "inner",
      scope: run.request.parent.scope,
    });
    const child = reported.add("theirs", undefined, { state: "running", cancel: () => {} })!;
    await new Promise((resolve) => setTimeout(resolve, 150));
    reported.update(child, { state: "idle", cancel: null });
    await new Promise((resolve) => setTimeout(resolve, 150));
    reported.endAll("completed");
    run.finish({ output: "done", stopReason: "completed" });
    const told = treeUpdates(await frames(response)).flatMap((u) => u.descendants)
      .filter((d: Wire) => d.runId === child.runId);
    assert.deepEqual(
      told.map((d: Wire) => [d.state, d.cancellable, d.provider]),
      [["running", true, "inner"], ["idle", undefined, "inner"], ["ended", undefined, "inner"]],
    );
  });
});
