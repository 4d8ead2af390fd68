import assert from "node:assert/strict";
import { createRootScope } from "@seam/host";
import {
  createSubagentService,
  delegationContextKey,
  SubagentDepthError,
  type SubagentRequest,
} from "@seam/subagent";
import { type FrameworkDriver, startFrameworkRun } from "./mod.ts";

const OPTIONS = { framework: "Test", idPrefix: "test" };

function setUp(drive: FrameworkDriver) {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider({
    name: "kit",
    capabilities: { outputSchema: false, depthLimit: true, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start: (request: SubagentRequest) => startFrameworkRun(request, drive, OPTIONS),
  });
  const start = (extra: { maxDepth?: number } = {}) =>
    subagents.start("kit", { prompt: "go", parent: { id: "main", scope: root }, ...extra });
  return { root, start };
}

Deno.test("startFrameworkRun() ends a run that ignores its abort signal aborted at once, keeping its text", async () => {
  let heard = false;
  const { root, start } = setUp((run) => {
    run.text("half an ans");
    run.signal.addEventListener("abort", () => heard = true);
    return new Promise(() => {}); // never settles, whatever happens
  });
  const run = start();
  await run.started;
  run.cancel("enough");
  const result = await run.result;
  assert.equal(result.stopReason, "aborted");
  assert.deepEqual(result.output, [{ type: "text", text: "half an ans" }]);
  assert.equal(heard, true);
  await run.dispose();
  await root.dispose();
});

Deno.test("startFrameworkRun() ends a driver that throws error CHILD_FAILED, naming the framework", async () => {
  const { root, start } = setUp(() => Promise.reject(new Error("boom")));
  const result = await start().result;
  assert.equal(result.stopReason, "error");
  assert.deepEqual(result.error, { code: "CHILD_FAILED", message: "The Test run failed: boom" });
  await root.dispose();
});

Deno.test("startFrameworkRun() gives the driver a child scope with the run's depth, cap and id", async () => {
  let seen: unknown;
  const { root, start } = setUp((run) => {
    seen = run.child.scope.inject(delegationContextKey);
    assert.equal(run.child.id, run.id);
    return Promise.resolve({ output: "ok", stopReason: "completed" });
  });
  const run = start({ maxDepth: 2 });
  await run.result;
  assert.deepEqual(seen, { depth: 1, maxDepth: 2, runId: run.id });
  await run.dispose();
  await root.dispose();
});

Deno.test("startFrameworkRun() refuses a start deeper than the cap before the driver runs", () => {
  let ran = false;
  const root = createRootScope();
  const scope = root.child("deep");
  scope.provide(delegationContextKey, { depth: 2, maxDepth: 2 });
  assert.throws(
    () =>
      startFrameworkRun(
        { prompt: [{ type: "text", text: "go" }], parent: { id: "p", scope } },
        () => {
          ran = true;
          return Promise.resolve({ output: "", stopReason: "completed" });
        },
        OPTIONS,
      ),
    (e: unknown) => e instanceof SubagentDepthError && e.depth === 3 && e.maxDepth === 2,
  );
  assert.equal(ran, false);
  return root.dispose();
});

Deno.test("startFrameworkRun() refuses what is asked after the run ended", async () => {
  let late: Promise<unknown> | undefined;
  const { root, start } = setUp((run) => {
    setTimeout(() => late = run.ask({ kind: "question", message: "still there?" }), 0);
    return Promise.resolve({ output: "done", stopReason: "completed" });
  });
  await start().result;
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(await late, { outcome: "refused", reason: "the run has ended" });
  await root.dispose();
});
