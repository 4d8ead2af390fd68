// Many gateways on one shared storage, in one process: the shared memory
// store stands in for PostgreSQL (gateway_postgres/ runs the same paths on a
// real server, across processes).
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { controlledProvider, message, type Wire } from "./_test_support.ts";
import {
  describe,
  faulty,
  Frames,
  isEnd,
  rpc,
  rpcRequest,
  startTask,
  withCluster,
} from "./cluster/_cluster_test_support.ts";
import {
  createGateway,
  createMemoryTaskStore,
  type JsonObject,
  type MemoryTaskStore,
  SEAM_EXTENSION_URI,
  type TaskAppend,
  type TaskStorage,
  TaskStorageError,
} from "./mod.ts";

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

/**
 * What a crashed instance leaves in `store`: task "orphan", WORKING under
 * the lease of instance "crashed", which nobody renews after this beat;
 * `events` follow its creation in the same append.
 */
function leaveOrphan(store: MemoryTaskStore, events: JsonObject[] = []): void {
  store.heartbeat("crashed");
  const task = {
    id: "orphan",
    contextId: "c",
    status: { state: "TASK_STATE_WORKING" as const },
    metadata: { [SEAM_EXTENSION_URI]: { provider: "ctl" } },
  };
  store.append({
    record: { task, owner: undefined, provider: "ctl", updatedAt: Date.now() },
    expected: 0,
    events: [{ task }, ...events],
    instance: "crashed",
  });
}

Deno.test("a live task whose instance stopped renewing its lease ends FAILED on another", async () => {
  await withCluster(1, { leaseTtlMs: 200 }, async ([b], store) => {
    // What a crashed instance leaves: a WORKING task under a lease nobody renews.
    leaveOrphan(store, [{ artifactUpdate: { artifact: { parts: [{ text: "kept" }] } } }]);
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

Deno.test("Last-Event-ID on the owner, its task ended and the end not stored yet: the rest of the log, the end once stored", async () => {
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  const append = async (change: TaskAppend, append: (change: TaskAppend) => number) => {
    if (isEnd(change)) await held;
    return append(change);
  };
  await withCluster(2, { append }, async ([a]) => {
    const id = await startTask(a.gateway);
    a.provider.runs[0].ready();
    a.emit(0, "a");
    const first = new Frames(await a.gateway.fetch(rpcRequest("SubscribeToTask", { id })));
    const seen = [await first.next(), await first.next(), await first.next()].map((f) => f!);
    await first.cancel();
    a.provider.runs[0].finish({ output: [{ type: "text", text: "a" }], stopReason: "completed" });
    const got = await rpc(a.gateway, "GetTask", { id });
    assert.equal(got.result.status.state, "TASK_STATE_COMPLETED", "the run ended here");
    const resumed = new Frames(
      await a.gateway.fetch(
        rpcRequest("SubscribeToTask", { id }, { "last-event-id": String(seen.at(-1)!.id) }),
      ),
    );
    release();
    const rest = await resumed.rest();
    const ids = [...seen, ...rest].map((f) => f.id);
    assert.deepEqual(ids, ids.map((_, i) => i + 1), "no gap, no duplicate");
    assert.equal(rest.at(-1)?.data.statusUpdate?.status.state, "TASK_STATE_COMPLETED");
  });
});

Deno.test("more of an instance's own lapsed tasks than a reaper pass takes do not hide another's orphan: it ends FAILED", async () => {
  const TTL = 300;
  const store = createMemoryTaskStore({ shared: true, leaseTtlMs: TTL });
  let renew = true;
  const taskStore: TaskStorage = {
    ...faulty(store, (change, append) => Promise.resolve(append(change))),
    // Its heartbeats answered, their renewals lost: its lease lapses as its runs go on.
    heartbeat: (instance) => renew ? store.heartbeat(instance) : undefined,
  };
  const { logger } = createMemoryLogger();
  const root = createRootScope({ logger });
  const provider = controlledProvider();
  createSubagentService(root).registerProvider(provider);
  const gateway = createGateway({ scope: root, taskStore });
  try {
    const own: string[] = [];
    for (let i = 0; i < 120; i++) { // more than a pass's 100
      own.push(await startTask(gateway));
      provider.runs[i].ready();
    }
    // What a crashed instance leaves, written after (and changed after) all of them.
    leaveOrphan(store);
    renew = false;
    const until = Date.now() + 2_000 + TTL;
    while (Date.now() < until && store.get("orphan")?.task.status.state === "TASK_STATE_WORKING") {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(
      (await store.orphans(200)).length > 100,
      "the instance's own tasks look orphaned too",
    );
    assert.equal(store.get("orphan")?.task.status.state, "TASK_STATE_FAILED");
    assert.deepEqual(
      own.filter((id) => store.get(id)?.task.status.state !== "TASK_STATE_WORKING"),
      [],
      "the instance's own tasks run on",
    );
  } finally {
    await gateway.close();
    await root.dispose();
  }
});

Deno.test("checking many tasks whose creation failed does not hold up the lease: the tasks running here are no orphans meanwhile", async () => {
  const TTL = 600;
  const store = createMemoryTaskStore({ shared: true, leaseTtlMs: TTL });
  const failing = new Set<string>();
  let failCreations = false;
  const storage = faulty(store, (change, append) => {
    if (!failCreations || change.expected !== 0) return Promise.resolve(append(change));
    // Committed, its answer lost: as a connection cut off after the write.
    failing.add(change.record.task.id);
    append(change);
    return Promise.reject(new TaskStorageError("UNAVAILABLE", "the answer was lost (made up)"));
  });
  // Reading such a task is slow (a remote store): 40 ms a read.
  const slowGet = storage.get;
  const taskStore: TaskStorage = {
    ...storage,
    get: async (id) => {
      if (failing.has(id)) await new Promise((r) => setTimeout(r, 40));
      return slowGet(id);
    },
  };
  const { logger } = createMemoryLogger();
  const root = createRootScope({ logger });
  const provider = controlledProvider();
  createSubagentService(root).registerProvider(provider);
  const gateway = createGateway({ scope: root, taskStore });
  try {
    const running = await startTask(gateway);
    provider.runs[0].ready();
    failCreations = true;
    // At once: once one failed, the next are refused until a heartbeat answers.
    await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const sent = await gateway.fetch(rpcRequest("SendMessage", { message: message(`${i}`) }));
      assert.equal(sent.status, 503);
      await sent.body?.cancel();
    }));
    assert.equal(failing.size, 20);
    failCreations = false;
    // 20 reads of 40 ms: 0.8 s, more than a lease, were one heartbeat's pass.
    const until = Date.now() + 5_000;
    let ended = 0;
    while (Date.now() < until && ended < failing.size) {
      const orphans = (await store.orphans(100)).map((o) => o.task.id);
      assert.ok(!orphans.includes(running), "the running task's lease is renewed meanwhile");
      ended = [...failing].filter((id) => store.get(id)?.task.status.state === "TASK_STATE_FAILED")
        .length;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(ended, 20, "every task stored though its creation failed ends FAILED");
    assert.equal(store.get(running)?.task.status.state, "TASK_STATE_WORKING");
  } finally {
    await gateway.close();
    await root.dispose();
  }
});

Deno.test("a command to another instance that the task store cannot carry answers 503 in the gateway's words, the store's message only logged", async () => {
  const store = createMemoryTaskStore({ shared: true });
  const storeMessage =
    "Cannot send a command: PostgreSQL is unreachable (connect ECONNREFUSED 10.1.2.3:5432)";
  let failSends = false;
  const taskStore: TaskStorage = {
    ...faulty(store, (change, append) => Promise.resolve(append(change))),
    send: (instance, command, timeoutMs) =>
      failSends
        ? Promise.reject(new TaskStorageError("UNAVAILABLE", storeMessage))
        : store.send(instance, command, timeoutMs),
  };
  const logs = [createMemoryLogger(), createMemoryLogger()];
  const roots = logs.map(({ logger }) => createRootScope({ logger }));
  const providers = roots.map((root) => {
    const provider = controlledProvider();
    createSubagentService(root).registerProvider(provider);
    return provider;
  });
  const [a, b] = roots.map((scope) => createGateway({ scope, taskStore }));
  try {
    const id = await startTask(a);
    providers[0].runs[0].ready();
    failSends = true;
    const response = await b.fetch(rpcRequest("CancelTask", { id }));
    const canceled = await response.json();
    assert.equal(response.status, 503, JSON.stringify(canceled));
    assert.match(canceled.error.message, /^Service unavailable: /);
    assert.ok(!canceled.error.message.includes("10.1.2.3"), canceled.error.message);
    assert.ok(!canceled.error.message.includes("ECONNREFUSED"), canceled.error.message);
    assert.ok(
      logs[1].records.some((r) =>
        r.data.some((d) => d instanceof Error && d.message.includes("10.1.2.3"))
      ),
      "the log keeps what the store said",
    );
    failSends = false;
  } finally {
    await a.close();
    await b.close();
    for (const root of roots) await root.dispose();
  }
});

Deno.test("a steering message sent on to another instance, the task store failing as it waits for the task to settle: 503, not 500", async () => {
  const store = createMemoryTaskStore({ shared: true });
  let failGets = false;
  const storage = faulty(store, (change, append) => Promise.resolve(append(change)));
  const taskStore: TaskStorage = {
    ...storage,
    get: (id) =>
      failGets
        ? Promise.reject(new TaskStorageError("UNAVAILABLE", "the store is down (made up)"))
        : storage.get(id),
    send: async (instance, command, timeoutMs) => {
      const reply = await store.send(instance, command, timeoutMs);
      failGets = true; // the message reached the run; then the store goes away
      return reply;
    },
  };
  const roots = [0, 1].map(() => createRootScope({ logger: createMemoryLogger().logger }));
  const providers = roots.map((root) => {
    const provider = controlledProvider({ steer: true });
    createSubagentService(root).registerProvider(provider);
    return provider;
  });
  const [a, b] = roots.map((scope) => createGateway({ scope, taskStore }));
  try {
    const id = await startTask(a);
    providers[0].runs[0].ready();
    const response = await b.fetch(
      rpcRequest("SendMessage", { message: message("also this", { taskId: id }) }),
    );
    const sent = await response.json();
    assert.equal(response.status, 503, JSON.stringify(sent));
    assert.match(JSON.stringify(sent.error.data), /STORE_UNAVAILABLE/);
    assert.deepEqual(providers[0].runs[0].sent, [[{ type: "text", text: "also this" }]]);
    failGets = false;
  } finally {
    await a.close();
    await b.close();
    for (const root of roots) await root.dispose();
  }
});

Deno.test("a journal whose writes failed unanswered, one of them committed: it goes on after the longest the log has, each change once", async () => {
  let phase = 0;
  let emit = (_text: string) => {};
  const append = async (change: TaskAppend, append: (change: TaskAppend) => number) => {
    if (phase === 1) {
      phase = 2;
      emit("c"); // comes while the write is out: retried with it
      throw new TaskStorageError("UNAVAILABLE", "no answer (made up), nothing written");
    }
    if (phase === 2) {
      phase = 3;
      emit("d");
      append(change); // committed, its answer lost
      throw new TaskStorageError("UNAVAILABLE", "no answer (made up), written");
    }
    return await Promise.resolve(append(change));
  };
  await withCluster(1, { append }, async ([a], store) => {
    const id = await startTask(a.gateway);
    const run = a.provider.runs[0];
    run.ready();
    emit = (text) => a.emit(0, text);
    emit("a");
    const deltas = async () =>
      (await store.read(id, 0, 100)).map((e) => e.event.artifactUpdate as Wire | undefined)
        .filter((u) => u && !u.lastChunk).map((u) => u!.artifact.parts[0].text);
    for (let i = 0; i < 200 && !(await deltas()).includes("a"); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    phase = 1;
    emit("b");
    for (let i = 0; i < 400 && (await deltas()).length < 4; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(phase, 3, "both faults happened");
    assert.deepEqual(await deltas(), ["a", "b", "c", "d"], "each text once, in order");
    const log = await store.read(id, 0, 100);
    assert.deepEqual(log.map((e) => e.generation), log.map((_, i) => i + 1));
    run.finish({ output: [{ type: "text", text: "abcd" }], stopReason: "completed" });
  });
});
