// Messages after a task's first, through `gateway.fetch(new Request(...))`,
// no socket: one on a live task steers its run, one in a finished task's
// context resumes the kept run, and getGatewayTask() follows both.
import assert from "node:assert/strict";
import { getGatewayTask, SEAM_EXTENSION_URI } from "./mod.ts";
import {
  type Controlled,
  controlledProvider,
  type ControlledRun,
  message,
  rpc,
  rpcRequest,
  type Setup,
  tick,
  untilEnded,
  withSetup,
} from "./_test_support.ts";

/** The texts of a task's history, in order. */
const historyTexts = (history: { parts: { text: string }[] }[]): string[] =>
  history.map((m) => m.parts[0].text);

/** Start a task saying "first" on `provider` (one that steers) and make its run ready. */
async function startSteerable(
  s: Setup,
  provider: Controlled,
): Promise<{ task: { id: string }; run: ControlledRun }> {
  const sent = await rpc(s.gateway, "SendMessage", {
    message: message("first"),
    configuration: { returnImmediately: true },
  });
  const run = provider.runs.at(-1)!;
  run.ready();
  return { task: sent.result.task, run };
}

Deno.test("a follow-up on a live task steers its run", async (t) => {
  await t.step("with sendMessage: the content reaches the running child", async () => {
    const provider = controlledProvider({ steer: true });
    await withSetup([provider], {}, async (s) => {
      const { task, run } = await startSteerable(s, provider);
      const steering = rpc(s.gateway, "SendMessage", {
        message: message("second", { taskId: task.id }),
        configuration: { returnImmediately: true },
      });
      const steered = await steering;
      assert.equal(steered.result.task.id, task.id);
      assert.deepEqual(run.sent, [[{ type: "text", text: "second" }]]);
      assert.equal(provider.runs.length, 1, "no new run");
      run.finish({ output: "both", stopReason: "completed" });
      const got = await untilEnded(s.gateway, task.id);
      assert.equal(got.result.status.state, "TASK_STATE_COMPLETED");
      assert.deepEqual(got.result.artifacts[0].parts, [{ text: "both" }]);
      assert.deepEqual(historyTexts(got.result.history), ["first", "second"]);
      const last = await rpc(s.gateway, "GetTask", { id: task.id, historyLength: 1 });
      assert.deepEqual(historyTexts(last.result.history), ["second"]);
    });
  });

  await t.step("a message taken while the run ends is in the stored history", async () => {
    const provider = controlledProvider({ steer: true });
    await withSetup([provider], {}, async (s) => {
      const { task, run } = await startSteerable(s, provider);
      // As over A2A: the child ends while the message's round trip is in flight.
      run.onSend = async () => {
        run.finish({ output: "done", stopReason: "completed" });
        await new Promise((resolve) => setTimeout(resolve, 5));
      };
      const steered = await rpc(s.gateway, "SendMessage", {
        message: message("second", { taskId: task.id }),
      });
      assert.deepEqual(historyTexts(steered.result.task.history), ["first", "second"]);
      const got = await untilEnded(s.gateway, task.id);
      assert.equal(got.result.status.state, "TASK_STATE_COMPLETED");
      assert.deepEqual(historyTexts(got.result.history), ["first", "second"]);
    });
  });

  await t.step(
    "refusals: no sendMessage, a finished task, a mismatched context, start fields",
    async () => {
      const provider = controlledProvider();
      await withSetup([provider], {}, async (s) => {
        const sent = await rpc(s.gateway, "SendMessage", {
          message: message("first"),
          configuration: { returnImmediately: true },
        });
        const task = sent.result.task;
        provider.runs[0].ready();
        const noSteer = await rpc(s.gateway, "SendMessage", {
          message: message("more", { taskId: task.id }),
        });
        assert.equal(noSteer.error.code, -32004);
        assert.match(noSteer.error.message, /cannot steer/);
        const mismatch = await rpc(s.gateway, "SendMessage", {
          message: message("more", { taskId: task.id, contextId: "other" }),
        });
        assert.equal(mismatch.error.code, -32602);
        const startFields = await rpc(s.gateway, "SendMessage", {
          message: message("more", {
            taskId: task.id,
            metadata: { [SEAM_EXTENSION_URI]: { persona: "p" } },
          }),
        });
        assert.equal(startFields.error.code, -32602);
        provider.runs[0].finish({ output: "x", stopReason: "completed" });
        await tick();
        const finished = await rpc(s.gateway, "SendMessage", {
          message: message("more", { taskId: task.id }),
        });
        assert.equal(finished.error.code, -32004);
        assert.match(finished.error.message, new RegExp(`contextId "${task.contextId}"`));
        const unknown = await rpc(s.gateway, "SendMessage", {
          message: message("more", { taskId: "nope" }),
        });
        assert.equal(unknown.error.code, -32001);
      });
    },
  );
});

Deno.test("a message in a finished task's context resumes its run", async (t) => {
  await t.step(
    "the kept run resumes; the chain is disposed when the context is dropped",
    async () => {
      const provider = controlledProvider({ auto: true, resume: true });
      await withSetup([provider], { maxResumableRuns: 1 }, async (s) => {
        const first = await rpc(s.gateway, "SendMessage", { message: message("one") });
        const contextId = first.result.task.contextId;
        assert.equal(provider.runs[0].dispose.mock.callCount(), 0, "kept for a follow-up");
        const second = await rpc(s.gateway, "SendMessage", {
          message: message("two", { contextId }),
        });
        assert.equal(second.result.task.contextId, contextId);
        assert.notEqual(second.result.task.id, first.result.task.id);
        assert.equal(
          second.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom,
          first.result.task.id,
        );
        assert.deepEqual(provider.runs[0].resumedWith, [[{ type: "text", text: "two" }]]);
        assert.deepEqual(second.result.task.artifacts[0].parts, [{ text: "two" }]);
        // Another context takes the only slot: the first chain is disposed, newest run first.
        await rpc(s.gateway, "SendMessage", { message: message("three") });
        await tick();
        assert.equal(provider.runs[0].dispose.mock.callCount(), 1);
        assert.equal(provider.runs[1].dispose.mock.callCount(), 1);
        assert.equal(provider.runs[2].dispose.mock.callCount(), 0);
      });
      assert.equal(provider.runs[2].dispose.mock.callCount(), 1, "close() disposes the kept runs");
    },
  );

  await t.step(
    "with maxResumableRuns 0 every run is disposed at once; a context starts afresh",
    async () => {
      const provider = controlledProvider({ auto: true, resume: true });
      await withSetup([provider], { maxResumableRuns: 0 }, async (s) => {
        const first = await rpc(s.gateway, "SendMessage", { message: message("one") });
        await tick();
        assert.equal(provider.runs[0].dispose.mock.callCount(), 1);
        const contextId = first.result.task.contextId;
        const second = await rpc(s.gateway, "SendMessage", {
          message: message("two", { contextId }),
        });
        assert.equal(second.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
        assert.deepEqual(provider.runs[0].resumedWith, []);
      });
    },
  );

  await t.step("a depth cap holds across a continuation, kept run or fresh", async () => {
    const provider = controlledProvider({ auto: true, resume: true });
    await withSetup([provider], { maxResumableRuns: 1 }, async (s) => {
      const ext = (fields: Record<string, unknown>) => ({
        metadata: { [SEAM_EXTENSION_URI]: fields },
      });
      const first = await rpc(s.gateway, "SendMessage", {
        message: message("one", ext({ depth: 1, maxDepth: 3 })),
      });
      const contextId = first.result.task.contextId;
      // The same cap (or a looser one) is accepted: the kept run's cap holds it.
      const same = await rpc(s.gateway, "SendMessage", {
        message: message("two", { contextId, ...ext({ depth: 1, maxDepth: 3 }) }),
      });
      assert.equal(same.error, undefined, JSON.stringify(same.error));
      assert.equal(same.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom, first.result.task.id);
      const looser = await rpc(s.gateway, "SendMessage", {
        message: message("three", { contextId, ...ext({ depth: 1, maxDepth: 5 }) }),
      });
      assert.equal(
        looser.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom,
        same.result.task.id,
      );
      // A tighter cap could not hold on the resumed run: refused, the run still kept.
      const tighter = await rpc(s.gateway, "SendMessage", {
        message: message("four", { contextId, ...ext({ depth: 1, maxDepth: 2 }) }),
      });
      assert.equal(tighter.error.code, -32602);
      assert.match(tighter.error.message, /started with maxDepth 3.*never tighter/);
      const stillKept = await rpc(s.gateway, "SendMessage", {
        message: message("five", { contextId, ...ext({ depth: 1, maxDepth: 3 }) }),
      });
      assert.equal(
        stillKept.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom,
        looser.result.task.id,
      );
      // Other start-time fields are still refused on a continuation.
      const persona = await rpc(s.gateway, "SendMessage", {
        message: message("six", { contextId, ...ext({ maxDepth: 3, persona: "p" }) }),
      });
      assert.equal(persona.error.code, -32602);
      assert.match(persona.error.message, /outputSchema, toolFilter, persona/);
      // Another context takes the only slot; the first context's follow-up starts
      // afresh under the cap it carries.
      await rpc(s.gateway, "SendMessage", { message: message("elsewhere") });
      const runs = provider.runs.length;
      const fresh = await rpc(s.gateway, "SendMessage", {
        message: message("seven", { contextId, ...ext({ depth: 1, maxDepth: 3 }) }),
      });
      assert.equal(fresh.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
      assert.equal(provider.runs.length, runs + 1);
      const run = provider.runs[runs];
      assert.equal(run.request.maxDepth, 3);
      assert.deepEqual({ ...run.delegation }, { depth: 1, maxDepth: 3 });
    });
  });

  await t.step("a continuation on a run that started uncapped cannot add a cap", async () => {
    const provider = controlledProvider({ auto: true, resume: true });
    await withSetup([provider], {}, async (s) => {
      const first = await rpc(s.gateway, "SendMessage", { message: message("one") });
      const contextId = first.result.task.contextId;
      const capped = await rpc(s.gateway, "SendMessage", {
        message: message("two", {
          contextId,
          metadata: { [SEAM_EXTENSION_URI]: { maxDepth: 4 } },
        }),
      });
      assert.equal(capped.error.code, -32602);
      assert.match(capped.error.message, /started with no depth cap/);
      assert.deepEqual(provider.runs[0].resumedWith, []);
    });
  });

  await t.step("another principal's context is never resumed", async () => {
    const provider = controlledProvider({ auto: true, resume: true });
    await withSetup([provider], { auth: { tokens: { a: "token-a", b: "token-b" } } }, async (s) => {
      const first = await rpc(s.gateway, "SendMessage", { message: message("one") }, {
        authorization: "Bearer token-a",
      });
      const contextId = first.result.task.contextId;
      const other = await rpc(
        s.gateway,
        "SendMessage",
        { message: message("two", { contextId }) },
        {
          authorization: "Bearer token-b",
        },
      );
      assert.equal(other.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
      assert.deepEqual(provider.runs[0].resumedWith, []);
    });
  });
});

Deno.test("getGatewayTask() shows providers the accepted message as it moves on", async () => {
  const provider = controlledProvider({ steer: true, resume: true });
  await withSetup([provider], {}, async (s) => {
    const first = await rpc(s.gateway, "SendMessage", {
      message: message("start", { messageId: "m-start", metadata: { k: "v" } }),
      configuration: { returnImmediately: true },
    });
    const taskId = first.result.task.id;
    const task = getGatewayTask(provider.runs[0].request.parent.scope)!;
    assert.equal(task.taskId, taskId);
    assert.equal(task.message.messageId, "m-start");
    assert.deepEqual(task.message.metadata, { k: "v" });
    assert.equal(task.principal, undefined);
    provider.runs[0].ready();
    await rpc(s.gateway, "SendMessage", {
      message: message("more", { messageId: "m-steer", taskId }),
      configuration: { returnImmediately: true },
    });
    assert.equal(task.message.messageId, "m-steer");
    assert.equal(task.taskId, taskId);
    provider.runs[0].finish({ output: "done", stopReason: "completed" });
    await untilEnded(s.gateway, taskId);
    const resumed = await rpc(s.gateway, "SendMessage", {
      message: message("again", { messageId: "m-resume", contextId: first.result.task.contextId }),
      configuration: { returnImmediately: true },
    });
    assert.equal(task.message.messageId, "m-resume");
    assert.equal(task.taskId, resumed.result.task.id);
    provider.runs[1].ready();
    provider.runs[1].finish({ output: "", stopReason: "completed" });
  });
});

Deno.test("SendStreamingMessage leaves no subscriber on a task whose run refuses the message", async () => {
  const provider = controlledProvider({ steer: true });
  await withSetup([provider], { limits: { maxSubscribersPerTask: 1 } }, async (s) => {
    const { task, run } = await startSteerable(s, provider);
    run.onSend = () => Promise.reject(new Error("busy"));
    const refused = await rpc(s.gateway, "SendStreamingMessage", {
      message: message("second", { taskId: task.id }),
    });
    assert.match(refused.error.message, /did not take the message \(busy\)/);
    // The refused stream's subscriber was let go: the task's one slot is free.
    const response = await s.gateway.fetch(rpcRequest("SubscribeToTask", { id: task.id }));
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    await response.body!.cancel();
    run.finish({ output: "", stopReason: "completed" });
    await untilEnded(s.gateway, task.id);
  });
});
