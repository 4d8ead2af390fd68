// A task's run from its start to its end, through
// `gateway.fetch(new Request(...))`, no socket: the depth it starts with, the
// task's states in order, its streamed text, its failure, its direct reply,
// and the run's disposal on every path.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService, subagentProgress, type SubagentProvider } from "@seam/subagent";
import { createGateway, createMemoryTaskStore, getGatewayTask, SEAM_EXTENSION_URI } from "./mod.ts";
import {
  ALL,
  controlledProvider,
  describeFrame,
  frames,
  message,
  rpc,
  rpcRequest,
  tick,
  withSetup,
} from "./_test_support.ts";

Deno.test("a run's lifecycle maps to the task's states, in order", async (t) => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    await t.step("SUBMITTED until started, WORKING after, the result at the end", async () => {
      const response = await s.gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("go") }),
      );
      const run = provider.runs.at(-1)!;
      const reading = frames(response);
      await tick();
      run.ready();
      await tick();
      run.finish({ output: [{ type: "text", text: "out" }], stopReason: "refusal" });
      assert.deepEqual((await reading).map(describeFrame), [
        "task:SUBMITTED",
        "status:WORKING",
        "artifact:set:last:out",
        "status:REJECTED",
      ]);
      assert.equal(run.dispose.mock.callCount(), 1);
    });

    await t.step("a result before readiness still goes WORKING first", async () => {
      const response = await s.gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("go") }),
      );
      const run = provider.runs.at(-1)!;
      run.finish({ output: "done", stopReason: "completed" });
      await tick();
      run.ready();
      assert.deepEqual((await frames(response)).map(describeFrame), [
        "task:SUBMITTED",
        "status:WORKING",
        "artifact:set:last:done",
        "status:COMPLETED",
      ]);
    });

    await t.step("readiness that fails ends the task by its result, never WORKING", async () => {
      const response = await s.gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("go") }),
      );
      const run = provider.runs.at(-1)!;
      run.fail(new Error("no child"));
      run.finish({ output: "could not start", stopReason: "error" });
      const seen = (await frames(response)).map(describeFrame);
      assert.deepEqual(seen, [
        "task:SUBMITTED",
        "artifact:set:last:could not start",
        "status:FAILED",
      ]);
      assert.equal(run.dispose.mock.callCount(), 1);
    });

    await t.step(
      "a rejected result (contract fault) ends FAILED with the error, disposed",
      async () => {
        const pending = rpc(s.gateway, "SendMessage", { message: message("go") });
        await tick();
        const run = provider.runs.at(-1)!;
        run.ready();
        run.reject(new TypeError("broken provider"));
        const { result } = await pending;
        assert.equal(result.task.status.state, "TASK_STATE_FAILED");
        const meta = result.task.metadata[SEAM_EXTENSION_URI];
        assert.equal(meta.stopReason, undefined);
        assert.match(meta.error, /broken provider/);
        assert.equal(run.dispose.mock.callCount(), 1);
      },
    );
  });
});

Deno.test("a run that ends at once still streams its task as submitted first", async () => {
  const provider = controlledProvider({ auto: true });
  await withSetup([provider], {}, async (s) => {
    const response = await s.gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("instant") }),
    );
    const all = await frames(response);
    assert.deepEqual(all.map(describeFrame), [
      "task:SUBMITTED",
      "status:WORKING",
      "artifact:set:last:instant",
      "status:COMPLETED",
    ]);
    const first = all[0].result.task;
    assert.equal(first.metadata[SEAM_EXTENSION_URI].stopReason, undefined);
    assert.equal(first.artifacts, undefined);
  });
});

Deno.test("every run is disposed when its task ends, on every path", async (t) => {
  await t.step("start refused: no run exists, nothing is left behind", async () => {
    const provider = controlledProvider({ capabilities: { persona: false } });
    await withSetup([provider], {}, async (s) => {
      const answer = await rpc(s.gateway, "SendMessage", {
        message: message("go", { metadata: { [SEAM_EXTENSION_URI]: { persona: "p" } } }),
      });
      assert.equal(answer.error.code, -32004);
      assert.equal(answer.error.data[0].metadata.seamCode, "UNSUPPORTED_CAPABILITY");
      assert.equal(provider.runs.length, 0);
      assert.equal(s.gateway.liveTasks, 0);
    });
  });

  await t.step(
    "cancel that the child never confirms: torn down after cancelTimeoutMs",
    async () => {
      const provider = controlledProvider({ cancelEnds: false });
      await withSetup([provider], { cancelTimeoutMs: 20 }, async (s) => {
        const sent = await rpc(s.gateway, "SendMessage", {
          message: message("go"),
          configuration: { returnImmediately: true },
        });
        const run = provider.runs[0];
        run.ready();
        const canceled = await rpc(s.gateway, "CancelTask", { id: sent.result.task.id });
        assert.equal(canceled.result.status.state, "TASK_STATE_CANCELED");
        assert.match(canceled.result.status.message.parts[0].text, /did not confirm/);
        assert.equal(run.cancel.mock.callCount(), 1);
        await tick();
        assert.equal(run.dispose.mock.callCount(), 1);
        // Its late result changes nothing.
        run.finish({ output: "late", stopReason: "completed" });
        await tick();
        const got = await rpc(s.gateway, "GetTask", { id: sent.result.task.id });
        assert.equal(got.result.status.state, "TASK_STATE_CANCELED");
      });
    },
  );

  await t.step("close(): live tasks end CANCELED, streams close, runs are disposed", async () => {
    const provider = controlledProvider({ cancelEnds: false });
    const { logger } = createMemoryLogger();
    const root = createRootScope({ logger });
    createSubagentService(root).registerProvider(provider);
    const gateway = createGateway({ scope: root });
    const stream = await gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("go") }),
    );
    const reading = frames(stream);
    const blocking = rpc(gateway, "SendMessage", { message: message("go too") });
    await tick();
    provider.runs.forEach((run) => run.ready());
    await gateway.close();
    assert.deepEqual((await reading).map(describeFrame).at(-1), "status:CANCELED");
    assert.equal((await blocking).result.task.status.state, "TASK_STATE_CANCELED");
    assert.ok(provider.runs.every((run) => run.dispose.mock.callCount() === 1));
    assert.ok(provider.runs.every((run) => run.cancel.mock.callCount() === 1));
    const after = await gateway.fetch(rpcRequest("GetTask", { id: "x" }));
    assert.equal(after.status, 503);
    await after.body?.cancel();
    await root.dispose();
  });

  await t.step("disposing the owning scope closes the gateway", async () => {
    const provider = controlledProvider({ cancelEnds: false });
    const root = createRootScope({ logger: createMemoryLogger().logger });
    createSubagentService(root).registerProvider(provider);
    const gateway = createGateway({ scope: root });
    const blocking = rpc(gateway, "SendMessage", { message: message("go") });
    await tick();
    await root.dispose();
    assert.equal((await blocking).result.task.status.state, "TASK_STATE_CANCELED");
    assert.equal(provider.runs[0].dispose.mock.callCount(), 1);
    await gateway.close();
  });
});

Deno.test("streamed text becomes artifact updates; a grandchild's is left out", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    const response = await s.gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("go") }),
    );
    const reading = frames(response);
    const run = provider.runs[0];
    const scope = run.request.parent.scope;
    run.ready();
    await tick();
    scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "Hel" });
    scope.emit(subagentProgress, { runId: "grandchild", kind: "text", text: "zzz" });
    scope.emit(subagentProgress, { runId: run.id, kind: "tool-call", name: "t" });
    scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "lo" });
    run.finish({ output: "Hello", stopReason: "completed" });
    assert.deepEqual((await reading).map(describeFrame), [
      "task:SUBMITTED",
      "status:WORKING",
      "artifact:set:Hel",
      "artifact:append:lo",
      "artifact:set:last:Hello",
      "status:COMPLETED",
    ]);
  });
});

Deno.test("a factory's parent outside the gateway's scope still streams its run's text", async () => {
  const provider = controlledProvider();
  const elsewhere = createRootScope({ logger: createMemoryLogger().logger });
  await withSetup([provider], { parent: () => ({ id: "far", scope: elsewhere }) }, async (s) => {
    const response = await s.gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("go") }),
    );
    const reading = frames(response);
    const run = provider.runs[0];
    run.ready();
    await tick();
    assert.equal(run.request.parent.scope, elsewhere);
    elsewhere.emit(subagentProgress, { runId: run.id, kind: "text", text: "far away" });
    run.finish({ output: "done", stopReason: "completed" });
    assert.ok((await reading).map(describeFrame).includes("artifact:set:far away"));
    assert.equal(
      elsewhere.hasListeners(subagentProgress),
      false,
      "its listener went with the task",
    );
  });
  await elsewhere.dispose();
});

Deno.test("GetTask of a live task shows the text streamed so far", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", {
      message: message("go"),
      configuration: { returnImmediately: true },
    });
    const run = provider.runs[0];
    run.ready();
    run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "par" });
    run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "tial" });
    const got = await rpc(s.gateway, "GetTask", { id: sent.result.task.id });
    assert.equal(got.result.status.state, "TASK_STATE_WORKING");
    assert.deepEqual(got.result.artifacts[0].parts, [{ text: "partial" }]);
    run.finish({ output: "", stopReason: "aborted" });
  });
});

Deno.test("the caller's depth reaches the providers as a DelegationContext", async (t) => {
  await t.step("default parent: the task scope provides depth and maxDepth", async () => {
    const provider = controlledProvider({ auto: true });
    await withSetup([provider], {}, async (s) => {
      await rpc(s.gateway, "SendMessage", {
        message: message("go", { metadata: { [SEAM_EXTENSION_URI]: { depth: 3, maxDepth: 7 } } }),
      });
      const request = provider.runs[0].request;
      assert.deepEqual({ ...provider.runs[0].delegation }, { depth: 3, maxDepth: 7 });
      assert.equal(request.maxDepth, 7);
      assert.equal(request.parent.id, "a2a-gateway");
    });
  });

  await t.step("a parent factory gets the task's context and its agent is the parent", async () => {
    const provider = controlledProvider({ auto: true });
    const seen: Record<string, unknown>[] = [];
    await withSetup([provider], {
      auth: { tokens: { alice: "token-alice" } },
      parent: (context) => {
        seen.push({ ...context, scope: context.scope.active });
        return { id: `parent-of-${context.taskId}`, scope: context.scope.child("agent") };
      },
    }, async (s) => {
      const answer = await rpc(s.gateway, "SendMessage", {
        message: message("go", { metadata: { [SEAM_EXTENSION_URI]: { depth: 2 } } }),
      }, { authorization: "Bearer token-alice" });
      const task = answer.result.task;
      assert.deepEqual(seen, [{
        taskId: task.id,
        contextId: task.contextId,
        provider: "ctl",
        principal: "alice",
        depth: 2,
        scope: true,
        message: task.history[0],
      }]);
      assert.equal(provider.runs[0].request.parent.id, `parent-of-${task.id}`);
      assert.equal(provider.runs[0].delegation?.depth, 2);
    });
  });
});

Deno.test("ctx.waitUntil keeps a task that outlives its response alive", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    const handed: Promise<unknown>[] = [];
    const response = await s.gateway.fetch(
      rpcRequest("SendMessage", {
        message: message("go"),
        configuration: { returnImmediately: true },
      }),
      undefined,
      { waitUntil: (p: Promise<unknown>) => handed.push(p), passThroughOnException() {} },
    );
    await response.body?.cancel();
    assert.equal(handed.length, 1);
    let settled = false;
    handed[0].then(() => settled = true);
    await tick();
    assert.equal(settled, false);
    provider.runs[0].ready();
    provider.runs[0].finish({ output: "done", stopReason: "completed" });
    await handed[0];
  });
});

Deno.test("eviction keeps live tasks", async () => {
  const provider = controlledProvider();
  const store = createMemoryTaskStore({ maxTerminalTasks: 2 });
  await withSetup([provider], { taskStore: store }, async (s) => {
    const live = await rpc(s.gateway, "SendMessage", {
      message: message("long"),
      configuration: { returnImmediately: true },
    });
    provider.runs[0].ready();
    const done: string[] = [];
    for (let i = 0; i < 5; i++) {
      const pending = rpc(s.gateway, "SendMessage", { message: message(`n${i}`) });
      await tick();
      provider.runs.at(-1)!.ready();
      provider.runs.at(-1)!.finish({ output: `r${i}`, stopReason: "completed" });
      done.push((await pending).result.task.id);
    }
    assert.equal(store.size, 3, "two terminal tasks and the live one");
    const old = await rpc(s.gateway, "GetTask", { id: done[0] });
    assert.equal(old.error.code, -32001);
    const recent = await rpc(s.gateway, "GetTask", { id: done[4] });
    assert.equal(recent.result.status.state, "TASK_STATE_COMPLETED");
    const listed = await rpc(s.gateway, "ListTasks", { status: "TASK_STATE_WORKING" });
    assert.deepEqual(listed.result.tasks.map((t: { id: string }) => t.id), [live.result.task.id]);
    provider.runs[0].finish({ output: "finally", stopReason: "completed" });
  });
});

Deno.test("a run's result.error reaches the task: its status message and seam metadata", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    const sending = rpc(s.gateway, "SendMessage", { message: message("go") });
    await tick();
    provider.runs[0].ready();
    provider.runs[0].finish({
      output: "partial words",
      stopReason: "error",
      error: { code: "TIMEOUT", message: "the model did not answer in 30 s" },
    });
    const task = (await sending).result.task;
    assert.equal(task.status.state, "TASK_STATE_FAILED");
    assert.match(task.status.message.parts[0].text, /the model did not answer in 30 s \(TIMEOUT\)/);
    assert.deepEqual(task.metadata[SEAM_EXTENSION_URI].failure, {
      code: "TIMEOUT",
      message: "the model did not answer in 30 s",
    });
    assert.deepEqual(
      task.artifacts[0].parts,
      [{ text: "partial words" }],
      "output stays the child's",
    );
  });
});

Deno.test("replyWithMessage(): the task answers with a direct Message, never stored", async (t) => {
  const replying: SubagentProvider = {
    name: "replies",
    capabilities: ALL,
    inheritsParentContext: false,
    start(request) {
      getGatewayTask(request.parent.scope)!.replyWithMessage();
      return {
        id: crypto.randomUUID(),
        started: Promise.resolve(),
        result: Promise.resolve({ output: "Direct answer", stopReason: "completed" as const }),
        cancel() {},
        dispose: () => Promise.resolve(),
      };
    },
  };
  await withSetup([replying], {}, async (s) => {
    await t.step("SendMessage answers {message}", async () => {
      const answer = await rpc(s.gateway, "SendMessage", { message: message("hi") });
      assert.equal(answer.result.task, undefined);
      assert.equal(answer.result.message.role, "ROLE_AGENT");
      assert.deepEqual(answer.result.message.parts, [{ text: "Direct answer" }]);
    });
    await t.step("a stream carries the message alone", async () => {
      const got = await frames(
        await s.gateway.fetch(rpcRequest("SendStreamingMessage", { message: message("hi") })),
      );
      assert.equal(got.length, 1);
      assert.deepEqual(got[0].result.message.parts, [{ text: "Direct answer" }]);
    });
    await t.step("no task is stored or listed", async () => {
      const listed = await rpc(s.gateway, "ListTasks", {});
      assert.deepEqual(listed.result.tasks, []);
    });
  });
});
