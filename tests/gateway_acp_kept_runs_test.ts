// No ACP agent process outlives a cancel at any hop: behind the gateway, an
// agent process ends when an A2A client cancels its task, when a seam parent
// (through the A2A provider) cancels and disposes its run, and, for a
// completed task, once `keptRunIdleMs` pass without a follow-up — all while
// the gateway stays open (before issue 37 such runs were kept until 64 newer
// ones pushed them out, or the gateway closed).
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, testAgentConfig } from "./acp_support.ts";
import { type Served, withGateway } from "./gateway_support.ts";

/** A JSON-RPC answer, as parsed. */
// deno-lint-ignore no-explicit-any
type Wire = Record<string, any>;

/** One JSON-RPC call to the gateway over HTTP. */
async function call(
  served: Served,
  method: string,
  params: unknown,
): Promise<Wire> {
  const response = await fetch(`${served.url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return await response.json();
}

const send = (text: string, contextId?: string) => ({
  tenant: "acp",
  message: {
    messageId: crypto.randomUUID(),
    role: "ROLE_USER",
    parts: [{ text }],
    ...(contextId ? { contextId } : {}),
  },
  configuration: { returnImmediately: true },
});

/** Poll `what` until it holds, at most 20 s (the agents start and stop under load). */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The task's state once it is neither submitted nor working. */
async function settled(served: Served, id: string): Promise<string> {
  let state = "";
  await until(async () => {
    state = (await call(served, "GetTask", { id, tenant: "acp" })).result.status.state;
    return !/SUBMITTED|WORKING/.test(state);
  }, `task ${id} to settle`);
  return state;
}

/** `fn` with a gateway in front of the test agent (tenant "acp"), processes checked after. */
async function withAcpGateway(
  keptRunIdleMs: number | undefined,
  fn: (served: Served, watch: AgentWatch, gone: () => Promise<boolean>) => Promise<void>,
): Promise<void> {
  const watch = new AgentWatch();
  await withGateway({ keptRunIdleMs }, async (served) => {
    const off = served.subagents.registerProvider(
      createAcpProvider(testAgentConfig([], { logger: watch.logger })),
    );
    try {
      await fn(served, watch, async () => (await watch.live()).length === 0);
    } finally {
      await off();
    }
  });
  assert.ok(watch.pids.size > 0, "no agent process was seen");
  assert.deepEqual(await watch.live(), [], "processes were left behind");
}

Deno.test("no ACP agent process behind the gateway outlives a cancel at any hop", async (t) => {
  // The default keptRunIdleMs (10 minutes): whatever ends here ends because it is not kept.
  await withAcpGateway(undefined, async (served, watch, gone) => {
    await t.step("an A2A client's CancelTask ends the agent process", async () => {
      const sent = await call(served, "SendMessage", send("hang"));
      const id = sent.result.task.id;
      await until(async () => watch.pids.size > 0 && !(await gone()), "the agent to start");
      const canceled = await call(served, "CancelTask", { id, tenant: "acp" });
      assert.equal(canceled.result.status.state, "TASK_STATE_CANCELED");
      await until(gone, "the cancelled task's agent process to end");
    });

    await t.step("a seam parent that cancels and disposes its A2A run ends it", async () => {
      const before = watch.pids.size;
      const root = createRootScope({ logger: createMemoryLogger().logger });
      try {
        const subagents = createSubagentService(root);
        subagents.registerProvider(await createA2AProvider({ url: `${served.url}/acp` }));
        const run = subagents.start("a2a", {
          prompt: "hang",
          parent: { id: "main", scope: root.child("main") },
        });
        await run.started;
        await until(
          async () => watch.pids.size > before && !(await gone()),
          "the remote agent to start",
        );
        run.cancel("the parent changed its mind");
        const result = await run.result;
        assert.equal(result.stopReason, "aborted");
        await run.dispose();
      } finally {
        await root.dispose();
      }
      await until(gone, "the agent process of the parent's cancelled run to end");
    });

    await t.step("a failed task's process ends at once, never kept", async () => {
      const sent = await call(served, "SendMessage", send("fail on purpose"));
      assert.equal(await settled(served, sent.result.task.id), "TASK_STATE_FAILED");
      await until(gone, "the failed task's agent process to end");
    });

    await t.step("a completed task's process is kept for a follow-up", async () => {
      const sent = await call(served, "SendMessage", send("complete kept"));
      assert.equal(await settled(served, sent.result.task.id), "TASK_STATE_COMPLETED");
      assert.ok(!(await gone()), "the completed run's process ended (it is kept 10 minutes)");
      const again = await call(served, "SendMessage", send("count", sent.result.task.contextId));
      assert.equal(await settled(served, again.result.task.id), "TASK_STATE_COMPLETED");
      const got = await call(served, "GetTask", { id: again.result.task.id, tenant: "acp" });
      assert.equal(got.result.artifacts[0].parts[0].text, "prompts: 2", "the same session");
    });
  });
});

Deno.test("a completed task's ACP process ends once keptRunIdleMs pass", async () => {
  await withAcpGateway(300, async (served, _watch, gone) => {
    const sent = await call(served, "SendMessage", send("complete kept a moment"));
    assert.equal(await settled(served, sent.result.task.id), "TASK_STATE_COMPLETED");
    await until(gone, "the kept run's agent process to end after its idle time");
    const again = await call(served, "SendMessage", send("count", sent.result.task.contextId));
    assert.equal(await settled(served, again.result.task.id), "TASK_STATE_COMPLETED");
    const got = await call(served, "GetTask", { id: again.result.task.id, tenant: "acp" });
    assert.equal(got.result.artifacts[0].parts[0].text, "prompts: 1", "a fresh session");
  });
});
