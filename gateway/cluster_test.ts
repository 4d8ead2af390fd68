// Many gateways on one shared storage, in one process: the shared memory
// store stands in for PostgreSQL (gateway_postgres/ runs the same paths on a
// real server, across processes).
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { controlledProvider, message, type Wire } from "./_test_support.ts";
import {
  createGateway,
  createMemoryTaskStore,
  type Gateway,
  type MemoryTaskStore,
  type TaskAppend,
  type TaskStorage,
  TaskStorageError,
} from "./mod.ts";

interface Instance {
  readonly gateway: Gateway;
  readonly provider: ReturnType<typeof controlledProvider>;
  /** Stream `text` from the run of the nth task this instance started. */
  emit(n: number, text: string): void;
}

async function withCluster(
  count: number,
  options: {
    leaseTtlMs?: number;
    steer?: boolean;
    /** What the gateways' appends do instead (faults), given the store's own. */
    append?: (change: TaskAppend, append: (change: TaskAppend) => number) => Promise<number>;
  },
  fn: (instances: Instance[], store: MemoryTaskStore) => Promise<void>,
): Promise<void> {
  const store = createMemoryTaskStore({ shared: true, leaseTtlMs: options.leaseTtlMs ?? 10_000 });
  const append = options.append;
  const taskStore: TaskStorage = append ? faulty(store, append) : store;
  const roots: Scope[] = [];
  const instances: Instance[] = [];
  for (let i = 0; i < count; i++) {
    const { logger } = createMemoryLogger();
    const root = createRootScope({ logger });
    roots.push(root);
    const provider = controlledProvider({ steer: options.steer, cancelEnds: true });
    createSubagentService(root).registerProvider(provider);
    const emitters: ((runId: string, text: string) => void)[] = [];
    const gateway = createGateway({
      scope: root,
      taskStore,
      progress: (_parent, emit) => void emitters.push(emit),
    });
    instances.push({
      gateway,
      provider,
      emit: (n, text) => emitters[n](provider.runs[n].id, text),
    });
  }
  try {
    await fn(instances, store);
  } finally {
    for (const i of instances) await i.gateway.close();
    for (const root of roots) await root.dispose();
  }
}

/**
 * `store`, whose appends go through `append`, each record a copy as a store
 * out of this process keeps it (the memory store keeps a live task by
 * reference: it would show an end that was never written).
 */
function faulty(
  store: MemoryTaskStore,
  append: (change: TaskAppend, append: (change: TaskAppend) => number) => Promise<number>,
): TaskStorage {
  return {
    shared: true,
    leaseTtlMs: store.leaseTtlMs,
    get: (id) => store.get(id),
    put: (record) => store.put(record),
    list: (query) => store.list(query),
    append: (change) =>
      append({ ...change, record: structuredClone(change.record) }, (c) => store.append(c)),
    read: (id, after, limit) => store.read(id, after, limit),
    subscribe: (id, listener) => store.subscribe(id, listener),
    heartbeat: (instance) => store.heartbeat(instance),
    orphans: (limit) => store.orphans(limit),
    send: (instance, command, timeoutMs) => store.send(instance, command, timeoutMs),
    serve: (instance, handler) => store.serve(instance, handler),
  };
}

/** Whether `change` is a task's end as its journal writes it (its terminal status update). */
const isEnd = (change: TaskAppend) =>
  change.events.some((e) => (e.statusUpdate as Wire)?.status.state === "TASK_STATE_COMPLETED");

/** Whether `change` is a late steering message's append (`Cluster.amend`): the task, ended. */
const isAmend = (change: TaskAppend) =>
  (change.events[0]?.task as Wire)?.status.state === "TASK_STATE_COMPLETED" &&
  change.expected > 0;

function rpcRequest(method: string, params: unknown, headers: Record<string, string> = {}) {
  return new Request("http://gw.test/", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

async function rpc(gateway: Gateway, method: string, params: unknown): Promise<Wire> {
  return await (await gateway.fetch(rpcRequest(method, params))).json();
}

/** An SSE body read frame by frame: `{id, data}`. */
class Frames {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  constructor(response: Response) {
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    this.#reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }
  async next(): Promise<{ id: number; data: Wire } | undefined> {
    while (!this.#buffer.includes("\n\n")) {
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += value;
    }
    const at = this.#buffer.indexOf("\n\n");
    const frame = this.#buffer.slice(0, at);
    this.#buffer = this.#buffer.slice(at + 2);
    const id = /^id: (\d+)$/m.exec(frame)?.[1];
    const data = /^data: (.*)$/m.exec(frame)![1];
    return { id: Number(id), data: JSON.parse(data).result ?? JSON.parse(data) };
  }
  async rest(): Promise<{ id: number; data: Wire }[]> {
    const out = [];
    for (let f = await this.next(); f; f = await this.next()) out.push(f);
    return out;
  }
  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

/** `promise`, or a failure saying `what` did not happen within `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const describe = (e: Wire): string =>
  e.task
    ? `task:${e.task.status.state.slice(11)}`
    : e.statusUpdate
    ? `status:${e.statusUpdate.status.state.slice(11)}`
    : `text:${e.artifactUpdate.artifact.parts[0].text}`;

async function startTask(gateway: Gateway): Promise<string> {
  const sent = await rpc(gateway, "SendMessage", {
    message: message("go"),
    configuration: { returnImmediately: true },
  });
  assert.ok(sent.result?.task?.id, JSON.stringify(sent));
  return sent.result.task.id;
}

Deno.test("gateways on one shared storage answer GetTask and ListTasks for each other's tasks", async () => {
  await withCluster(2, {}, async ([a, b]) => {
    const id = await startTask(a.gateway);
    a.provider.runs[0].ready();
    const got = await rpc(b.gateway, "GetTask", { id });
    assert.equal(got.result.id, id);
    const listed = await rpc(b.gateway, "ListTasks", {});
    assert.deepEqual(listed.result.tasks.map((t: Wire) => t.id), [id]);
    a.provider.runs[0].finish({
      output: [{ type: "text", text: "done" }],
      stopReason: "completed",
    });
    await a.gateway.fetch(rpcRequest("GetTask", { id })); // let the end commit
    for (let i = 0; i < 50; i++) {
      const t = await rpc(b.gateway, "GetTask", { id });
      if (t.result.status.state === "TASK_STATE_COMPLETED") {
        assert.deepEqual(t.result.artifacts[0].parts, [{ text: "done" }]);
        return;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.fail("the other gateway never saw the task complete");
  });
});

Deno.test("SubscribeToTask on another gateway replays the log, tails it, and ids are generations", async () => {
  await withCluster(2, {}, async ([a, b]) => {
    const id = await startTask(a.gateway);
    a.provider.runs[0].ready();
    a.emit(0, "one ");
    const stream = new Frames(await b.gateway.fetch(rpcRequest("SubscribeToTask", { id })));
    const first = [await stream.next(), await stream.next(), await stream.next()];
    assert.deepEqual(first.map((f) => f!.id), [1, 2, 3]);
    assert.deepEqual(first.map((f) => describe(f!.data)), [
      "task:SUBMITTED",
      "status:WORKING",
      "text:one ",
    ]);
    a.emit(0, "two ");
    a.emit(0, "three");
    a.provider.runs[0].finish({
      output: [{ type: "text", text: "one two three" }],
      stopReason: "completed",
    });
    const rest = await stream.rest();
    assert.deepEqual(
      rest.map((f) => describe(f.data)),
      ["text:two three", "text:one two three", "status:COMPLETED"],
      "deltas that waited together are one event; the final artifact, then the end",
    );
    const all = [...first, ...rest].map((f) => f!);
    assert.deepEqual(
      all.map((f) => f.id),
      all.map((_, i) => i + 1),
      "ids are consecutive generations",
    );
    assert.equal(all.at(-1)!.data.statusUpdate.status.state, "TASK_STATE_COMPLETED");
    const text = all.filter((f) => f.data.artifactUpdate && !f.data.artifactUpdate.lastChunk)
      .map((f) => f.data.artifactUpdate.artifact.parts[0].text).join("");
    assert.equal(text, "one two three", "every delta once, in order (coalesced or not)");
  });
});

Deno.test("Last-Event-ID resumes a stream on any gateway with no gap and no duplicate", async () => {
  await withCluster(2, {}, async ([a, b]) => {
    const id = await startTask(a.gateway);
    a.provider.runs[0].ready();
    a.emit(0, "a");
    const first = new Frames(await b.gateway.fetch(rpcRequest("SubscribeToTask", { id })));
    const seen = [await first.next(), await first.next(), await first.next()].map((f) => f!);
    await first.cancel(); // the client disconnects
    a.emit(0, "b");
    a.emit(0, "c");
    const resumed = new Frames(
      await a.gateway.fetch(
        rpcRequest("SubscribeToTask", { id }, { "last-event-id": String(seen.at(-1)!.id) }),
      ),
    );
    a.provider.runs[0].finish({ output: [{ type: "text", text: "abc" }], stopReason: "completed" });
    const rest = await resumed.rest();
    const ids = [...seen, ...rest].map((f) => f.id);
    assert.deepEqual(ids, ids.map((_, i) => i + 1));
    // Resuming after the end answers an empty stream; after no event, everything.
    const last = rest.at(-1)!.id;
    const after = new Frames(
      await b.gateway.fetch(
        rpcRequest("SubscribeToTask", { id }, { "last-event-id": String(last) }),
      ),
    );
    assert.deepEqual(await after.rest(), []);
    const replay = new Frames(
      await b.gateway.fetch(rpcRequest("SubscribeToTask", { id }, { "last-event-id": "0" })),
    );
    assert.deepEqual((await replay.rest()).map((f) => f.id), ids);
    const bad = await rpc(b.gateway, "SubscribeToTask", { id });
    assert.equal(
      bad.error.code,
      -32004,
      "a finished task without a cursor: nothing to subscribe to",
    );
    const garbage = await (await b.gateway.fetch(
      rpcRequest("SubscribeToTask", { id }, { "last-event-id": "-1" }),
    )).json();
    assert.equal(garbage.error.code, -32602);
    assert.match(garbage.error.message, /Last-Event-ID/);
  });
});

Deno.test("CancelTask and steering sent to another gateway reach the one that runs the task", async () => {
  await withCluster(2, { steer: true }, async ([a, b]) => {
    const id = await startTask(a.gateway);
    a.provider.runs[0].ready();
    const steered = await rpc(b.gateway, "SendMessage", {
      message: message("also this", { taskId: id }),
      configuration: { returnImmediately: true },
    });
    assert.equal(steered.result.task.id, id, JSON.stringify(steered));
    assert.deepEqual(a.provider.runs[0].sent, [[{ type: "text", text: "also this" }]]);
    assert.equal(b.provider.runs.length, 0, "no run started on the other gateway");
    const canceled = await rpc(b.gateway, "CancelTask", { id });
    assert.equal(canceled.result.status.state, "TASK_STATE_CANCELED", JSON.stringify(canceled));
    assert.equal(a.provider.runs[0].cancel.mock.callCount(), 1);
    const again = await rpc(b.gateway, "CancelTask", { id });
    assert.equal(again.error.code, -32002, "a finished task is not cancelable");
  });
});

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
        run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
        while (store.get(id)?.task.status.state !== "TASK_STATE_COMPLETED") {
          await new Promise((r) => setTimeout(r, 5));
        }
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
    while (store.get(id)?.task.status.state !== "TASK_STATE_WORKING") {
      await new Promise((r) => setTimeout(r, 5));
    }
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

    await t.step("sent to the gateway that runs the task", async () => {
      const sent = await within(
        3_000,
        "the steering message answered",
        rpc(a.gateway, "SendMessage", {
          message: message("one more thing", { taskId: ids[0] }),
          configuration: { returnImmediately: true },
        }),
      );
      assert.match(sent.error?.message ?? "", refusal(ids[0]), JSON.stringify(sent));
      assert.match(JSON.stringify(sent.error.data), /STORE_UNAVAILABLE/);
    });

    await t.step(
      "forwarded: the refusal, well before the forwarding instance gives up",
      async () => {
        const sent = await within(
          3_000,
          "the forwarded steering message answered",
          rpc(b.gateway, "SendMessage", {
            message: message("and this", { taskId: ids[1] }),
            configuration: { returnImmediately: true },
          }),
        );
        assert.match(sent.error?.message ?? "", refusal(ids[1]), JSON.stringify(sent));
      },
    );

    await t.step("once the store is back, the ends carry the messages", async () => {
      down = false;
      for (const [i, id] of ids.entries()) {
        while (store.get(id)?.task.status.state !== "TASK_STATE_COMPLETED") {
          await new Promise((r) => setTimeout(r, 5));
        }
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
    run.onSend = async () => {
      run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
      while (store.get(id)?.task.status.state !== "TASK_STATE_COMPLETED") {
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const sent = await rpc(a.gateway, "SendMessage", {
      message: message("one more thing", { taskId: id }),
    });
    assert.equal(
      sent.error?.message,
      `Task "${id}" ended while the message was on its way: its run took the message, but the task's stored history may lack it (the task store cannot be reached: the store is down (made up))`,
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
    run.onSend = async () => {
      run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
      while (store.get(id)?.task.status.state !== "TASK_STATE_COMPLETED") {
        await new Promise((r) => setTimeout(r, 5));
      }
    };
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

Deno.test("a live task whose instance stopped renewing its lease ends FAILED on another", async () => {
  await withCluster(1, { leaseTtlMs: 200 }, async ([b], store) => {
    // What a crashed instance leaves: a WORKING task under a lease nobody renews.
    store.heartbeat("crashed");
    const task = {
      id: "orphan",
      contextId: "c",
      status: { state: "TASK_STATE_WORKING" as const },
      metadata: { "https://jsr.io/@seam/gateway/extensions/subagent/v1": { provider: "ctl" } },
    };
    store.append({
      record: { task, owner: undefined, provider: "ctl", updatedAt: Date.now() },
      expected: 0,
      events: [{ task }, { artifactUpdate: { artifact: { parts: [{ text: "kept" }] } } }],
      instance: "crashed",
    });
    let got: Wire | undefined;
    for (let i = 0; i < 100; i++) {
      got = await rpc(b.gateway, "GetTask", { id: "orphan" });
      if (got.result.status.state !== "TASK_STATE_WORKING") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(got!.result.status.state, "TASK_STATE_FAILED");
    assert.match(
      got!.result.status.message.parts[0].text,
      /lost with its gateway instance "crashed"/,
    );
    assert.equal(store.get("orphan")?.generation, 3, "the end is one more change");
    assert.equal(store.read("orphan", 0, 10).length, 3, "what was committed before is kept");
  });
});

Deno.test("an instance whose task another ended (its lease lapsed) stops the run and keeps the other's end", async () => {
  await withCluster(1, {}, async ([a], store) => {
    const id = await startTask(a.gateway);
    a.provider.runs[0].ready();
    await new Promise((r) => setTimeout(r, 10)); // WORKING committed
    const at = store.get(id)!;
    // Another instance ends it, as the reaper does for a lapsed lease.
    store.append({
      record: { ...at, task: { ...at.task, status: { state: "TASK_STATE_FAILED" } } },
      expected: at.generation!,
      events: [{ statusUpdate: { taskId: id, status: { state: "TASK_STATE_FAILED" } } }],
      instance: undefined,
    });
    a.emit(0, "late text"); // the owner's next write conflicts
    for (let i = 0; i < 100 && a.provider.runs[0].dispose.mock.callCount() === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(a.provider.runs[0].dispose.mock.callCount(), 1, "the run is stopped");
    assert.equal(store.get(id)?.task.status.state, "TASK_STATE_FAILED");
    assert.equal(
      store.get(id)?.generation,
      at.generation! + 1,
      "nothing written after the other's end",
    );
  });
});

Deno.test("a task's log holds each change as it was, even when the run ends before the first write", async () => {
  // A child that ends at once: its task's creation, WORKING and end are written in one batch.
  const store = createMemoryTaskStore({ shared: true });
  const { logger } = createMemoryLogger();
  const root = createRootScope({ logger });
  createSubagentService(root).registerProvider(controlledProvider({ auto: true }));
  const gateway = createGateway({ scope: root, taskStore: store });
  try {
    const sent = await rpc(gateway, "SendMessage", { message: message("at once") });
    assert.equal(sent.result.task.status.state, "TASK_STATE_COMPLETED");
    const log = store.read(sent.result.task.id, 0, 10).map((entry) => entry.event as Wire);
    assert.deepEqual(log.map(describe), [
      "task:SUBMITTED",
      "status:WORKING",
      "text:at once",
      "status:COMPLETED",
    ]);
    const [created, working] = log;
    assert.equal(created.task.artifacts, undefined, "the task as created: no artifact yet");
    const seam = (e: Wire) => Object.values(e as Record<string, Wire>)[0];
    assert.equal(
      JSON.stringify(seam(created.task.metadata)).includes("stopReason"),
      false,
      "the created task's metadata as it was then",
    );
    assert.equal(
      JSON.stringify(working.statusUpdate.metadata ?? {}).includes("stopReason"),
      false,
      "WORKING's metadata as it was then",
    );
  } finally {
    await gateway.close();
    await root.dispose();
  }
});
