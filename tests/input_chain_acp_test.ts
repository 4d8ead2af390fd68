// The three-hop chain with a real ACP agent at the bottom: root host → A2A
// provider → gateway B (loopback HTTP) → the ACP provider (`permission:
// "ask"`) → the ACP test agent, a child process that asks
// `session/request_permission` before it runs a command. B's task goes
// INPUT_REQUIRED, the root's handler sees the request with its whole path,
// the answer flows back down to the agent's own option, the agent runs the
// command (or not) and the result reaches the root. Then the rejected, the
// refused (no handler anywhere) and the cancelled-while-pending variants.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputHandler,
  type SubagentInputRequest,
  subagentInputResolved,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { createAcpProvider } from "@seam/subagent-acp";
import { type SpawnGateway, startSpawnGateway, until } from "./a2a_support.ts";
import { testAgentConfig } from "./acp_support.ts";

interface AcpChain {
  readonly b: SpawnGateway;
  /** Start a run on the root side, through A2A, on B's ACP provider. */
  readonly start: (
    prompt: string,
  ) => ReturnType<ReturnType<typeof createSubagentService>["start"]>;
  readonly parentScope: ReturnType<typeof createRootScope>;
  /** Install the root's handler (until the chain ends). */
  readonly handle: (handler: SubagentInputHandler) => void;
  /** B's one task's state, over the socket. */
  readonly taskState: () => Promise<string>;
}

async function withAcpChain(body: (chain: AcpChain) => Promise<void>): Promise<void> {
  const b = startSpawnGateway("loopback", {
    setup: (_host, subagents) =>
      subagents.registerProvider(
        createAcpProvider(testAgentConfig([], { name: "acp", permission: "ask" })),
      ),
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  try {
    const subagents = createSubagentService(root);
    const a2a = await createA2AProvider({ url: b.url, provider: "acp", timeoutMs: 20_000 });
    subagents.registerProvider(a2a);
    const parent = { id: "root-agent", scope: root.child("root-agent") };
    const call = async (method: string, params: unknown) =>
      (await (await fetch(b.url, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      })).json()).result;
    await body({
      b,
      start: (prompt) => subagents.start("a2a", { prompt, parent }),
      parentScope: parent.scope,
      handle: (handler) => void handleSubagentInput(root, handler),
      taskState: async () => {
        const { tasks } = await call("ListTasks", {});
        assert.equal(tasks.length, 1);
        return tasks[0].status.state;
      },
    });
    await a2a.dispose();
  } finally {
    await root.dispose();
    await b.close();
  }
}

Deno.test("an ACP agent's permission request crosses gateway B and A2A to the root; allowed, it runs the command", async (t) => {
  await withAcpChain(async ({ start, handle, taskState }) => {
    const seen: SubagentInputRequest[] = [];
    let stateWhileAsked: string | undefined;
    handle(async (request) => {
      seen.push(request);
      stateWhileAsked = await taskState();
      return { outcome: "selected", optionId: "yes" };
    });
    const run = start("run echo hello from the agent");
    try {
      const result = await run.result;
      await t.step("the root's handler saw the agent's request, with its whole path", () => {
        assert.equal(seen.length, 1);
        const [request] = seen;
        assert.equal(request.kind, "permission");
        assert.equal(request.toolCall?.title, 'Run "echo hello from the agent"');
        assert.equal(request.toolCall?.kind, "execute");
        assert.deepEqual(request.toolCall?.rawInput, { command: "echo hello from the agent" });
        assert.deepEqual(request.options?.map((o) => `${o.id}:${o.kind}`), [
          "yes:allow_once",
          "always:allow_always",
          "no:reject_once",
          "never:reject_always",
        ]);
        // root-agent's A2A run → B's ACP run (the run that asks, over the agent process).
        assert.equal(request.path.length, 2);
        assert.equal(request.path[0], run.id);
        assert.equal(request.path[1], request.runId);
        assert.notEqual(request.runId, run.id);
        assert.equal(stateWhileAsked, "TASK_STATE_INPUT_REQUIRED");
      });
      await t.step(
        "the answer flowed back: the agent ran the command, the result is here",
        async () => {
          assert.equal(result.stopReason, "completed", JSON.stringify(result.error));
          assert.equal(
            textOf(result.output),
            'ran "echo hello from the agent": hello from the agent',
          );
          assert.equal(await taskState(), "TASK_STATE_COMPLETED");
        },
      );
    } finally {
      await run.dispose();
    }
  });
});

Deno.test("the root rejects: the ACP agent gets its reject option and does not run the command", async () => {
  await withAcpChain(async ({ start, handle }) => {
    handle(() => ({ outcome: "selected", optionId: "no" }));
    const run = start("run echo never");
    try {
      const result = await run.result;
      assert.equal(result.stopReason, "completed");
      assert.equal(textOf(result.output), 'did not run "echo never" (selected no)');
    } finally {
      await run.dispose();
    }
  });
});

Deno.test("no handler anywhere: the refusal reaches the ACP agent as its reject option", async () => {
  await withAcpChain(async ({ start }) => {
    const run = start("run echo never");
    try {
      const result = await run.result;
      assert.equal(result.stopReason, "completed");
      assert.equal(textOf(result.output), 'did not run "echo never" (selected no)');
    } finally {
      await run.dispose();
    }
  });
});

Deno.test("cancelled while the ACP agent's request is pending: aborted, refused, B's task CANCELED", async () => {
  await withAcpChain(async ({ b, start, handle, parentScope, taskState }) => {
    let pending: AbortSignal | undefined;
    handle((_request, { signal }) => {
      pending = signal;
      return new Promise<undefined>((resolve) =>
        signal.addEventListener("abort", () => resolve(undefined))
      );
    });
    const resolved: string[] = [];
    const off = parentScope.on(subagentInputResolved, (info) => {
      resolved.push(info.answer.outcome === "refused" ? info.answer.reason : info.answer.outcome);
    });
    const run = start("run echo never");
    try {
      await until(() => pending !== undefined, 20_000);
      assert.equal(await taskState(), "TASK_STATE_INPUT_REQUIRED");
      run.cancel("the person went away");
      assert.equal((await run.result).stopReason, "aborted");
      assert.equal(pending!.aborted, true);
      assert.deepEqual(resolved, ["cancelled: the person went away"]);
      await run.dispose();
      assert.equal(await taskState(), "TASK_STATE_CANCELED");
      assert.equal(await b.liveChildren(), 0);
    } finally {
      await run.dispose();
      await off();
    }
  });
});
