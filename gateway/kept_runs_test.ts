// Which finished runs the gateway keeps for a follow-up in their context, and
// for how long: a completed run until `keptRunIdleMs` pass without one, at
// most `maxResumableRuns` of each principal's; a cancelled, failed or refused
// run never (its run is disposed as its task ends).
import assert from "node:assert/strict";
import { createGateway, SEAM_EXTENSION_URI } from "./mod.ts";
import { createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import {
  type Controlled,
  controlledProvider,
  type ControlledRun,
  message,
  rpc,
  type Setup,
  untilEnded,
  withSetup,
} from "./_test_support.ts";

/** Wait until `condition` holds (polling; bounded so a broken rule fails rather than hangs). */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const disposed = (run: ControlledRun): boolean => run.dispose.mock.callCount() > 0;

/** Start a task on `provider` saying `text` (as `headers` authenticate); its run and task. */
async function started(
  s: Setup,
  provider: Controlled,
  text: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
): Promise<{ id: string; contextId: string; run: ControlledRun }> {
  const sent = await rpc(s.gateway, "SendMessage", {
    message: message(text, extra),
    configuration: { returnImmediately: true },
  }, headers);
  assert.ok(sent.result?.task, JSON.stringify(sent));
  const run = provider.runs.at(-1)!;
  run.ready();
  return { id: sent.result.task.id, contextId: sent.result.task.contextId, run };
}

/** Whether the task of `id` resumed a kept run (the seam extension's `resumedFrom`). */
async function resumedFrom(s: Setup, id: string, headers?: Record<string, string>) {
  const got = await rpc(s.gateway, "GetTask", { id }, headers);
  return got.result.metadata[SEAM_EXTENSION_URI].resumedFrom as string | undefined;
}

Deno.test("kept runs: only completed ones, each until keptRunIdleMs, per principal", async (t) => {
  await t.step("a cancelled run is disposed as its task ends, never kept", async () => {
    const provider = controlledProvider({ resume: true });
    await withSetup([provider], {}, async (s) => {
      const first = await started(s, provider, "first");
      const canceled = await rpc(s.gateway, "CancelTask", { id: first.id });
      assert.equal(canceled.result.status.state, "TASK_STATE_CANCELED");
      await eventually(() => disposed(first.run), "the cancelled run's disposal");
      const next = await started(s, provider, "again", { contextId: first.contextId });
      assert.equal(first.run.resumedWith.length, 0, "the cancelled run was resumed");
      assert.equal(await resumedFrom(s, next.id), undefined);
      next.run.finish({ output: "ok", stopReason: "completed" });
      await untilEnded(s.gateway, next.id);
    });
  });

  await t.step("a failed or refused run is disposed, never kept", async () => {
    for (const stopReason of ["error", "max-tokens", "refusal"] as const) {
      const provider = controlledProvider({ resume: true });
      await withSetup([provider], {}, async (s) => {
        const first = await started(s, provider, "first");
        first.run.finish({
          output: "",
          stopReason,
          ...(stopReason === "error" ? { error: { code: "X", message: "broke" } } : {}),
        });
        await untilEnded(s.gateway, first.id);
        await eventually(() => disposed(first.run), `the disposal of a run ended ${stopReason}`);
        const next = await started(s, provider, "again", { contextId: first.contextId });
        assert.equal(first.run.resumedWith.length, 0, `a run ended ${stopReason} was resumed`);
        next.run.finish({ output: "ok", stopReason: "completed" });
        await untilEnded(s.gateway, next.id);
      });
    }
  });

  await t.step("a completed run is kept for a follow-up", async () => {
    const provider = controlledProvider({ resume: true });
    await withSetup([provider], {}, async (s) => {
      const first = await started(s, provider, "first");
      first.run.finish({ output: "one", stopReason: "completed" });
      await untilEnded(s.gateway, first.id);
      assert.ok(!disposed(first.run), "the completed run was disposed (default idle: 10 min)");
      const next = await started(s, provider, "second", { contextId: first.contextId });
      assert.deepEqual(first.run.resumedWith, [[{ type: "text", text: "second" }]]);
      assert.equal(await resumedFrom(s, next.id), first.id);
      next.run.finish({ output: "two", stopReason: "completed" });
      await untilEnded(s.gateway, next.id);
    });
  });

  await t.step("a kept run is disposed after keptRunIdleMs without a follow-up", async () => {
    const provider = controlledProvider({ resume: true });
    await withSetup([provider], { keptRunIdleMs: 30 }, async (s) => {
      const first = await started(s, provider, "first");
      first.run.finish({ output: "one", stopReason: "completed" });
      await untilEnded(s.gateway, first.id);
      await eventually(() => disposed(first.run), "the idle kept run's disposal");
      const next = await started(s, provider, "later", { contextId: first.contextId });
      assert.equal(first.run.resumedWith.length, 0, "an expired run was resumed");
      assert.equal(await resumedFrom(s, next.id), undefined);
      next.run.finish({ output: "ok", stopReason: "completed" });
      await untilEnded(s.gateway, next.id);
    });
  });

  await t.step("the cap counts per principal: another's runs push out none of mine", async () => {
    const provider = controlledProvider({ resume: true });
    const alice = { authorization: "Bearer token-a" };
    const bob = { authorization: "Bearer token-b" };
    const auth = { tokens: { alice: "token-a", bob: "token-b" } };
    await withSetup([provider], { auth, maxResumableRuns: 1 }, async (s) => {
      const mine = await started(s, provider, "alice's", {}, alice);
      mine.run.finish({ output: "a", stopReason: "completed" });
      await untilEnded(s.gateway, mine.id).catch(() => {});
      for (let i = 0; i < 3; i++) {
        const theirs = await started(s, provider, `bob's ${i}`, {}, bob);
        theirs.run.finish({ output: "b", stopReason: "completed" });
      }
      const bobs = provider.runs.slice(1, 4);
      await eventually(
        () => disposed(bobs[0]) && disposed(bobs[1]),
        "bob's oldest runs pushed out",
      );
      assert.ok(!disposed(bobs[2]), "bob's newest run was not kept");
      assert.ok(!disposed(mine.run), "bob's runs pushed out alice's");
      const next = await started(s, provider, "again", { contextId: mine.contextId }, alice);
      assert.equal(await resumedFrom(s, next.id, alice), mine.id);
      next.run.finish({ output: "ok", stopReason: "completed" });
    });
  });
});

Deno.test("createGateway() refuses a keptRunIdleMs that is not a positive integer", async () => {
  const root = createRootScope();
  createSubagentService(root);
  try {
    for (const bad of [0, -1, 1.5, "600000"]) {
      assert.throws(
        () => createGateway({ scope: root, keptRunIdleMs: bad as number }),
        (error: Error) =>
          error instanceof RangeError &&
          error.message.startsWith(
            "Cannot create gateway: keptRunIdleMs must be an integer of at least 1, got",
          ),
        String(bad),
      );
    }
  } finally {
    await root.dispose();
  }
});
