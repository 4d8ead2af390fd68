// A steering message that a run takes as its task ends, on a shared storage:
// stored once the end is, answered in time, never written over an end the
// store lacks (many gateways on one shared memory store, in one process).
import assert from "node:assert/strict";
import { message, type Wire } from "./_test_support.ts";
import type { SubagentResultInput } from "@seam/subagent";
import {
  describe,
  Frames,
  isAmend,
  isEnd,
  rpc,
  rpcRequest,
  startTask,
  withCluster,
  within,
} from "./cluster/_cluster_test_support.ts";
import { type Gateway, type MemoryTaskStore, type TaskAppend, TaskStorageError } from "./mod.ts";

/** Until task `id` is stored in `state`. */
async function untilState(store: MemoryTaskStore, id: string, state: string): Promise<void> {
  while (store.get(id)?.task.status.state !== state) {
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** End `run`, then wait until its end is stored: a run that takes its message as its task ends. */
async function endThenWait(
  run: { finish(result: SubagentResultInput): void },
  store: MemoryTaskStore,
  id: string,
): Promise<void> {
  run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
  await untilState(store, id, "TASK_STATE_COMPLETED");
}

Deno.test("a steering message the run takes as its task ends is stored, on every gateway", async (t) => {
  await withCluster(2, { steer: true }, async ([a, b], store) => {
    /**
     * The nth run takes its message only once it has ended and that end is
     * committed (the task's journal forgotten): the race that lost it.
     */
    const endsBeforeTaking = (n: number, id: string) => {
      const run = a.provider.runs[n];
      run.ready();
      run.onSend = async () => {
        await endThenWait(run, store, id);
        await new Promise((r) => setTimeout(r, 0));
      };
    };
    const historyOn = async (gateway: Gateway, id: string) =>
      (await rpc(gateway, "GetTask", { id })).result.history.map((m: Wire) => m.parts[0].text);

    await t.step("sent to the gateway that runs the task", async () => {
      const id = await startTask(a.gateway);
      endsBeforeTaking(0, id);
      const sent = await rpc(a.gateway, "SendMessage", {
        message: message("one more thing", { taskId: id }),
      });
      assert.equal(sent.result?.task?.status.state, "TASK_STATE_COMPLETED", JSON.stringify(sent));
      assert.deepEqual(a.provider.runs[0].sent, [[{ type: "text", text: "one more thing" }]]);
      assert.deepEqual(await historyOn(b.gateway, id), ["go", "one more thing"]);
      assert.deepEqual(await historyOn(a.gateway, id), ["go", "one more thing"]);
      const kept = store.get(id)!;
      assert.equal(
        kept.updatedAt,
        Date.parse(kept.task.status.timestamp!),
        "a late message is no change of state: the end's updatedAt",
      );
    });

    await t.step("forwarded from another gateway; streams still end at the end", async () => {
      const id = await startTask(a.gateway);
      endsBeforeTaking(1, id);
      const sent = await rpc(b.gateway, "SendMessage", {
        message: message("and this", { taskId: id }),
        configuration: { returnImmediately: true },
      });
      assert.deepEqual(
        sent.result?.task?.history.map((m: Wire) => m.parts[0].text),
        ["go", "and this"],
        JSON.stringify(sent),
      );
      assert.deepEqual(await historyOn(b.gateway, id), ["go", "and this"]);
      // A replay stops at the terminal status: nothing after it as if the task went on.
      const replay = await new Frames(
        await b.gateway.fetch(rpcRequest("SubscribeToTask", { id }, { "last-event-id": "0" })),
      ).rest();
      assert.equal(describe(replay.at(-1)!.data), "status:COMPLETED");
      const end = replay.at(-1)!.id;
      assert.equal(store.get(id)?.generation, end + 1, "the message is one more change");
      // Resumed after that status: the task as it now is, once, and the stream ends.
      const after = new Frames(
        await b.gateway.fetch(
          rpcRequest("SubscribeToTask", { id }, { "last-event-id": String(end) }),
        ),
      );
      const resumed = await within(2_000, "the resumed stream ended", after.rest()).catch(
        async (error) => {
          await after.cancel();
          throw error;
        },
      );
      assert.deepEqual(resumed.map((f) => [f.id, describe(f.data)]), [[end + 1, "task:COMPLETED"]]);
      assert.deepEqual(
        resumed[0].data.task.history.map((m: Wire) => m.parts[0].text),
        ["go", "and this"],
      );
    });
  });
});

Deno.test("a steering message the run takes as its task ends is not stored over an end the store lacks", async () => {
  // The journal's waiters are released although the end was not written (a
  // lost lease, Cluster.close's grace): here the end meets a conflict
  // nothing wrote, and the store still holds the task WORKING on this instance.
  let refused = false;
  const append = (change: TaskAppend, append: (change: TaskAppend) => number) => {
    if (!isEnd(change)) return Promise.resolve(append(change));
    refused = true;
    return Promise.reject(new TaskStorageError("CONFLICT", "another writer (made up)"));
  };
  await withCluster(1, { steer: true, append }, async ([a], store) => {
    const id = await startTask(a.gateway);
    const run = a.provider.runs[0];
    run.ready();
    await untilState(store, id, "TASK_STATE_WORKING");
    run.onSend = async () => {
      run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
      while (!refused) await new Promise((r) => setTimeout(r, 5));
    };
    const sent = await within(
      3_000,
      "the steering message answered",
      rpc(a.gateway, "SendMessage", { message: message("one more thing", { taskId: id }) }),
    );
    assert.deepEqual(run.sent, [[{ type: "text", text: "one more thing" }]]);
    assert.match(
      sent.error?.message ?? "",
      new RegExp(
        `^Task "${id}" ended while the message was on its way: its run took the message, but the task's stored history may lack it \\(its end is not stored yet`,
      ),
      JSON.stringify(sent),
    );
    assert.match(JSON.stringify(sent.error.data), /STORE_UNAVAILABLE/);
    const kept = store.get(id)!;
    assert.equal(kept.task.status.state, "TASK_STATE_WORKING", "nothing written over the end");
    assert.notEqual(kept.instance, undefined, "still this instance's: not an orphan");
    assert.deepEqual(kept.task.history?.map((m) => m.parts[0].text), ["go"]);
  });
});

Deno.test("a steering message the run takes as its task ends is answered in time while the store cannot take the end", async (t) => {
  let down = false;
  const append = (change: TaskAppend, append: (change: TaskAppend) => number) =>
    down && isEnd(change)
      ? Promise.reject(new TaskStorageError("UNAVAILABLE", "the store is down (made up)"))
      : Promise.resolve(append(change));
  await withCluster(2, { steer: true, append }, async ([a, b], store) => {
    const ids = [await startTask(a.gateway), await startTask(a.gateway)];
    for (const run of a.provider.runs) {
      run.ready();
      run.onSend = () => {
        run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
        return new Promise((r) => setTimeout(r, 20));
      };
    }
    down = true;
    const refusal = (id: string) =>
      new RegExp(
        `^Task "${id}" ended while the message was on its way: its run took the message, but the task's stored history may lack it \\(its end is not stored yet[^)]*\\)$`,
      );

    /** A steering message to task `taskId`, answered at once: its answer within 3 s. */
    const steer = (gateway: Gateway, taskId: string, text: string, what: string) =>
      within(
        3_000,
        `${what} answered`,
        rpc(gateway, "SendMessage", {
          message: message(text, { taskId }),
          configuration: { returnImmediately: true },
        }),
      );

    await t.step("sent to the gateway that runs the task", async () => {
      const sent = await steer(a.gateway, ids[0], "one more thing", "the steering message");
      assert.match(sent.error?.message ?? "", refusal(ids[0]), JSON.stringify(sent));
      assert.match(JSON.stringify(sent.error.data), /STORE_UNAVAILABLE/);
    });

    await t.step(
      "forwarded: the refusal, well before the forwarding instance gives up",
      async () => {
        const sent = await steer(b.gateway, ids[1], "and this", "the forwarded steering message");
        assert.match(sent.error?.message ?? "", refusal(ids[1]), JSON.stringify(sent));
      },
    );

    await t.step("once the store is back, the ends carry the messages", async () => {
      down = false;
      for (const [i, id] of ids.entries()) {
        await untilState(store, id, "TASK_STATE_COMPLETED");
        assert.deepEqual(
          store.get(id)!.task.history?.map((m) => m.parts[0].text),
          ["go", ["one more thing", "and this"][i]],
        );
      }
    });
  });
});

Deno.test("a steering message the run takes as its task ends, when the store cannot take it, is not to be sent again", async () => {
  const append = (change: TaskAppend, append: (change: TaskAppend) => number) =>
    isAmend(change)
      ? Promise.reject(new TaskStorageError("UNAVAILABLE", "the store is down (made up)"))
      : Promise.resolve(append(change));
  await withCluster(1, { steer: true, append }, async ([a], store) => {
    const id = await startTask(a.gateway);
    const run = a.provider.runs[0];
    run.ready();
    run.onSend = () => endThenWait(run, store, id);
    const sent = await rpc(a.gateway, "SendMessage", {
      message: message("one more thing", { taskId: id }),
    });
    assert.equal(
      sent.error?.message,
      `Task "${id}" ended while the message was on its way: its run took the message, but the task's stored history may lack it (the task store cannot be reached)`,
      JSON.stringify(sent),
    );
    assert.match(JSON.stringify(sent.error.data), /STORE_UNAVAILABLE/);
    // What resending would get: the run has the message already.
    const again = await rpc(a.gateway, "SendMessage", {
      message: message("one more thing", { taskId: id }),
    });
    assert.match(again.error?.message ?? "", /accepts no more messages/);
  });
});

Deno.test("gateway.close() waits for a steering message the run took as its task ended to be stored", async () => {
  let amending: () => void;
  const started = new Promise<void>((resolve) => amending = resolve);
  const append = async (change: TaskAppend, append: (change: TaskAppend) => number) => {
    if (isAmend(change)) {
      amending();
      await new Promise((r) => setTimeout(r, 500)); // a slow store
    }
    return append(change);
  };
  await withCluster(1, { steer: true, append }, async ([a], store) => {
    const id = await startTask(a.gateway);
    const run = a.provider.runs[0];
    run.ready();
    run.onSend = () => endThenWait(run, store, id);
    const sent = rpc(a.gateway, "SendMessage", {
      message: message("one more thing", { taskId: id }),
    });
    await started;
    await a.gateway.close();
    assert.deepEqual(
      store.get(id)!.task.history?.map((m) => m.parts[0].text),
      ["go", "one more thing"],
      "stored before close() answered",
    );
    assert.equal((await sent).result?.task?.status.state, "TASK_STATE_COMPLETED");
  });
});
