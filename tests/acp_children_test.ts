// An ACP agent's child sessions (ACP's unstable `subagent_update`) as nested
// runs: their own ids, states and usage (`acp/child`), their progress
// (`subagent/progress` with `parentRunId` and `depth`), usage rolled up once;
// and what a hostile agent sends of them bounded, logged, never breaking the
// run. The agent is the test agent, a real process speaking the wire format.
import assert from "node:assert/strict";
import { textOf } from "@seam/host";
import {
  findRunControl,
  subagentEnd,
  subagentProgress,
  type SubagentProgressInfo,
  type SubagentRunEndInfo,
  type SubagentRunInfo,
  subagentStart,
} from "@seam/subagent";
import { acpChild, type AcpChildInfo } from "@seam/subagent-acp";
import { until, withAcpAgent } from "./acp_support.ts";

Deno.test("createAcpProvider() reports an agent's child sessions as nested runs", async () => {
  await withAcpAgent([], {}, async ({ parent, start, watch }) => {
    const told: AcpChildInfo[] = [];
    const progress: SubagentProgressInfo[] = [];
    parent.scope.on(acpChild, (info) => told.push(info));
    parent.scope.on(subagentProgress, (info) => progress.push(info));
    const run = start("children 2");
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "children done");
    // The agent advertised nothing of the kind unless asked: it was asked.
    assert.ok(watch.agentLines().some((l) => l.includes('"subagents":{}')));

    const last = new Map(told.map((info) => [info.runId, info]));
    const root = told[0].rootRunId;
    assert.equal(root, run.id);
    const [one, grand, two] = [`${root}.1`, `${root}.2`, `${root}.3`].map((id) => last.get(id)!);
    assert.deepEqual(
      [one, grand, two].map((c) => [c.sessionId, c.parentRunId, c.depth]),
      [["child-1", root, 2], ["child-1-1", one.runId, 3], ["child-2", root, 2]],
    );
    assert.equal(last.size, 3);
    // States as the agent said them, then ended with the run.
    assert.deepEqual(
      told.filter((c) => c.runId === grand.runId && !c.ended).map((c) => c.state),
      ["needs-action", "needs-action", "idle"],
    );
    assert.ok([one, grand, two].every((c) => c.ended && c.state === "idle" && c.cancellable));
    assert.equal(one.title, "helper child-1");
    assert.deepEqual(one.usage, { contextTokens: 100, toolCalls: 1 });
    assert.deepEqual(grand.usage, { contextTokens: 7, toolCalls: 0 });
    assert.deepEqual(two.usage, { contextTokens: 200, toolCalls: 1 });
    // Their progress is the nested runs', placed under their parents.
    const said = progress.filter((p) => p.kind === "text" && p.runId !== root);
    assert.deepEqual(
      said.map((p) => [p.runId, p.parentRunId, p.depth, p.text]),
      [
        [one.runId, root, 2, "child 1 says hi"],
        [grand.runId, one.runId, 3, "grandchild"],
        [two.runId, root, 2, "child 2 says hi"],
      ],
    );
    assert.deepEqual(
      progress.filter((p) => p.runId === root && p.kind === "text").map((p) => p.text).join(""),
      "children done",
    );
    // Usage: the agent's own 50 tokens, and each child's latest figure added once.
    assert.equal(result.usage!.self.inputTokens, 50);
    assert.equal(result.usage!.self.toolCalls, 0);
    assert.equal(result.usage!.total.inputTokens, 50 + 100 + 7 + 200);
    assert.equal(result.usage!.total.toolCalls, 2);
    assert.equal(result.usage!.partial, true);
  });
});

Deno.test("createAcpProvider() bounds and logs an agent's bad child sessions", async () => {
  await withAcpAgent([], {}, async ({ parent, start, watch }) => {
    const told = new Map<string, AcpChildInfo>();
    parent.scope.on(acpChild, (info) => told.set(info.runId, info));
    const result = await start("children-hostile 300").result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "hostile done");
    // A flood: 256 children followed, the rest ignored with one warning.
    assert.equal(told.size, 256);
    const warnings = watch.messages("warn");
    assert.equal(warnings.filter((m) => m.includes("more than 256 child sessions")).length, 1);
    // Negative and absurd usage: ignored, logged once for the child.
    const child1 = [...told.values()].find((c) => c.sessionId === "child-1")!;
    assert.deepEqual(child1.usage, { contextTokens: 0, toolCalls: 0 });
    assert.equal(warnings.filter((m) => m.includes("no count of tokens")).length, 1);
    // A session never announced (`ghost`), a child announced by one (`orphan`): not followed.
    assert.ok(![...told.values()].some((c) => c.sessionId === "ghost" || c.sessionId === "orphan"));
    assert.equal(result.usage!.total.inputTokens, 0);
  });
});

Deno.test("createAcpProvider() starts and ends an agent's child sessions as nested runs", async (t) => {
  await t.step(
    "each child, at any depth, has a subagent/start and, with the run, a subagent/end",
    () =>
      withAcpAgent([], {}, async ({ parent, start }) => {
        const events: [string, SubagentRunInfo | SubagentRunEndInfo][] = [];
        parent.scope.on(subagentStart, (info) => events.push(["start", info]));
        parent.scope.on(subagentEnd, (info) => events.push(["end", info]));
        const run = start("children 2");
        assert.equal((await run.result).stopReason, "completed");
        const root = run.id;
        const nested = events.filter(([, info]) => info.runId !== root);
        assert.deepEqual(
          nested.map(([kind, info]) => [kind, info.runId, info.parentRunId, info.depth]),
          [
            ["start", `${root}.1`, root, 2],
            ["start", `${root}.2`, `${root}.1`, 3],
            ["start", `${root}.3`, root, 2],
            ["end", `${root}.1`, root, 2],
            ["end", `${root}.2`, `${root}.1`, 3],
            ["end", `${root}.3`, root, 2],
          ],
        );
        const ends = nested.filter(([kind]) => kind === "end").map(([, info]) =>
          info as SubagentRunEndInfo
        );
        // Idle when the turn ended: completed, with the usage the agent told of each.
        assert.ok(ends.every((end) => end.stopReason === "completed" && end.provider === "acp"));
        assert.deepEqual(ends.map((end) => end.usage.self.inputTokens), [100, 7, 200]);
        assert.deepEqual(ends.map((end) => end.usage.total.toolCalls), [1, 0, 1]);
        assert.ok(ends.every((end) => end.usage.partial && end.durationMs >= 0));
        assert.equal(ends[0].label, "helper child-1");
        // The service's own end of the run itself comes after its children's.
        assert.equal(events.at(-1)?.[1].runId, root);
      }),
  );

  await t.step(
    "a child still at work when the run is cancelled ends aborted",
    () =>
      withAcpAgent([], {}, async ({ parent, start }) => {
        const ends: SubagentRunEndInfo[] = [];
        const started: string[] = [];
        parent.scope.on(subagentStart, (info) => started.push(info.runId));
        parent.scope.on(subagentEnd, (info) => ends.push(info));
        const run = start("children-hang");
        await until(() => started.includes(`${run.id}.1`), "the child's subagent/start");
        assert.equal(ends.length, 0, "no end while the child runs");
        run.cancel("enough");
        assert.equal((await run.result).stopReason, "aborted");
        const child = ends.find((end) => end.runId === `${run.id}.1`);
        assert.equal(child?.stopReason, "aborted");
        assert.equal(child?.parentRunId, run.id);
      }),
  );
});

Deno.test("createAcpProvider() follows OpenCode's task tool calls as nested runs", () =>
  withAcpAgent([], {}, async ({ parent, start }) => {
    const told: AcpChildInfo[] = [];
    const progress: SubagentProgressInfo[] = [];
    const ends: SubagentRunEndInfo[] = [];
    const starts: SubagentRunInfo[] = [];
    parent.scope.on(acpChild, (info) => told.push(info));
    parent.scope.on(subagentProgress, (info) => progress.push(info));
    parent.scope.on(subagentStart, (info) => starts.push(info));
    parent.scope.on(subagentEnd, (info) => ends.push(info));
    const run = start("opencode-tasks");
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "tasks done");
    const root = run.id;
    const nested = starts.filter((s) => s.runId !== root);
    assert.deepEqual(
      nested.map((s) => [s.runId, s.parentRunId, s.depth, s.label]),
      [
        [`${root}.1`, root, 2, "Explore part 1 (@explore subagent)"],
        [`${root}.2`, root, 2, "Explore part 2 (@explore subagent)"],
      ],
    );
    assert.deepEqual(
      [...new Set(told.map((c) => c.sessionId))],
      ["opencode-task:call_1", "opencode-task:call_2"],
    );
    // The child's answer (between OpenCode's <task_result> tags) is its own message.
    assert.deepEqual(
      progress.filter((p) => p.runId !== root && p.kind === "text").map((p) => [p.runId, p.text]),
      [
        [`${root}.1`, "part 1 has 3 files"],
        [`${root}.2`, "Unknown agent type: explore is not a valid agent type"],
      ],
    );
    // The parent's own tool calls stay its own.
    assert.equal(progress.filter((p) => p.runId === root && p.kind === "tool-call").length, 2);
    assert.deepEqual(
      ends.filter((e) => e.runId !== root).map((e) => [e.runId, e.stopReason]),
      [[`${root}.1`, "completed"], [`${root}.2`, "error"]],
    );
  }));

for (const mode of ["a process per run", "reuseProcess", "pool"] as const) {
  Deno.test(`createAcpProvider() ignores what an agent sends after it answered the prompt (${mode})`, () =>
    withAcpAgent(
      [],
      mode === "reuseProcess"
        ? { reuseProcess: true }
        : mode === "pool"
        ? { pool: { size: 1 } }
        : {},
      async ({ parent, start, watch }) => {
        let ended = false;
        const late: string[] = [];
        const run = start("children-late");
        // What is heard of this run's tree once the run ended.
        const heard = (what: string) => (info: { runId: string }) =>
          void (ended && info.runId.startsWith(run.id) && late.push(`${what} ${info.runId}`));
        parent.scope.on(acpChild, heard("acp/child"));
        parent.scope.on(subagentStart, heard("subagent/start"));
        parent.scope.on(subagentProgress, heard("subagent/progress"));
        parent.scope.on(subagentEnd, (info) => void (info.runId === run.id && (ended = true)));
        const result = await run.result;
        assert.equal(result.stopReason, "completed");
        assert.equal(textOf(result.output), "late done");
        await until(() => watch.agentLines().includes("sent late updates"), "the late updates");
        // A next run (the same process under reuseProcess) reads past the late lines first.
        const next = start("complete next");
        assert.equal((await next.result).stopReason, "completed");
        await run.dispose();
        assert.deepEqual(late, [], "heard after the run ended");
        // The late usage (999) counted nowhere.
        assert.equal(result.usage!.total.inputTokens, 0);
        // Logged once, never as a failure.
        const logged = watch.messages("debug").filter((m) => m.includes("after it answered"));
        assert.equal(logged.length, 1, logged.join("\n"));
        assert.deepEqual(watch.messages("warn"), []);
      },
    ));
}

Deno.test("createAcpProvider() keeps a child session with the session that announced it first", () =>
  // `children-hang` waits for a cancel of its child, not of its turn: no waiting for that.
  withAcpAgent([], { reuseProcess: true, cancelGraceMs: 100 }, async ({ parent, start, watch }) => {
    const announced: string[] = [];
    parent.scope.on(subagentStart, (info) => void announced.push(info.runId));
    // Two sessions of one process; the agent names `child-1` under both.
    const first = start("children-hang");
    await until(() => announced.includes(`${first.id}.1`), "the first session's child");
    const second = await start("children 1").result;
    assert.equal(second.stopReason, "completed");
    assert.equal(textOf(second.output), "children done");
    first.cancel("enough");
    assert.equal((await first.result).stopReason, "aborted");
    const claimed = watch.messages("warn").filter((m) => m.includes("another session"));
    assert.equal(claimed.length, 1, watch.messages("warn").join("\n"));
  }));

Deno.test("createAcpProvider() makes a cancellable child session cancellable by id until its run ends", () =>
  withAcpAgent([], {}, async ({ parent, start }) => {
    const started: string[] = [];
    parent.scope.on(subagentStart, (info) => void started.push(info.runId));
    const run = start("children-hang");
    const child = `${run.id}.1`;
    await until(() => started.includes(child), "the child's subagent/start");
    // Found from its tree (the parent's scope, or above it), never from beside it.
    assert.equal(findRunControl(parent.scope.parent!.child("beside"), child), undefined);
    const cancel = findRunControl(parent.scope, child);
    assert.ok(cancel, "a live cancellable child session is registered");
    // The agent ends its turn once told to cancel that child (`session/cancel` naming it).
    cancel("the client cancelled it");
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "after the child's cancel");
    // The run ended: its child's canceller went with it (before the run is disposed).
    assert.equal(findRunControl(parent.scope, child), undefined, "a canceller outlived its run");
  }));
