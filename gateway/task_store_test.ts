import assert from "node:assert/strict";
import {
  type A2ATaskState,
  createMemoryTaskStore,
  isTerminalState,
  type StoredTask,
} from "./mod.ts";

function record(
  id: string,
  state: A2ATaskState,
  updatedAt: number,
  extra: Partial<StoredTask> = {},
): StoredTask {
  return {
    task: { id, contextId: extra.task?.contextId ?? "ctx", status: { state } },
    owner: undefined,
    provider: "p",
    updatedAt,
    ...extra,
  };
}

Deno.test("isTerminalState() names the four terminal states", () => {
  assert.ok(isTerminalState("TASK_STATE_COMPLETED"));
  assert.ok(isTerminalState("TASK_STATE_FAILED"));
  assert.ok(isTerminalState("TASK_STATE_CANCELED"));
  assert.ok(isTerminalState("TASK_STATE_REJECTED"));
  assert.ok(!isTerminalState("TASK_STATE_WORKING"));
  assert.ok(!isTerminalState("TASK_STATE_SUBMITTED"));
});

Deno.test("createMemoryTaskStore() evicts terminal tasks by count, oldest first", () => {
  const store = createMemoryTaskStore({ maxTerminalTasks: 3 });
  store.put(record("live", "TASK_STATE_WORKING", 1));
  for (let i = 0; i < 10; i++) store.put(record(`t${i}`, "TASK_STATE_COMPLETED", i));
  assert.equal(store.size, 4);
  assert.ok(store.get("live"), "a live task is never evicted");
  assert.equal(store.get("t6"), undefined);
  assert.ok(store.get("t7") && store.get("t9"));
});

Deno.test("createMemoryTaskStore() evicts terminal tasks by age, never live ones", () => {
  let now = 0;
  const store = createMemoryTaskStore({ terminalTtlMs: 100, now: () => now });
  store.put(record("live", "TASK_STATE_SUBMITTED", 0));
  store.put(record("done", "TASK_STATE_FAILED", 0));
  now = 99;
  assert.ok(store.get("done"));
  now = 100;
  assert.equal(store.get("done"), undefined);
  now = 1_000_000;
  assert.ok(store.get("live"));
  assert.equal(store.size, 1);
});

Deno.test("createMemoryTaskStore() restarts a task's clock when it turns terminal", () => {
  let now = 0;
  const store = createMemoryTaskStore({ terminalTtlMs: 100, now: () => now });
  const task = record("t", "TASK_STATE_WORKING", 0);
  store.put(task);
  now = 500;
  store.put(record("t", "TASK_STATE_COMPLETED", 500));
  now = 550;
  assert.ok(store.get("t"));
  assert.equal(store.get("t")!.task.status.state, "TASK_STATE_COMPLETED");
});

Deno.test("createMemoryTaskStore() lists by owner and filters, newest first, with a cursor", () => {
  const store = createMemoryTaskStore();
  store.put(record("a", "TASK_STATE_COMPLETED", 10, { owner: "alice" }));
  store.put(record("b", "TASK_STATE_WORKING", 30, { owner: "alice" }));
  store.put(record("c", "TASK_STATE_COMPLETED", 20, { owner: "alice", provider: "q" }));
  store.put(record("d", "TASK_STATE_COMPLETED", 40, { owner: "bob" }));
  store.put(record("e", "TASK_STATE_COMPLETED", 20, { owner: "alice" }));
  const ids = (page: { tasks: readonly StoredTask[] }) => page.tasks.map((t) => t.task.id);

  const all = store.list({ owner: "alice", limit: 10 });
  assert.deepEqual(ids(all), ["b", "e", "c", "a"]);
  assert.equal(all.total, 4);
  const first = store.list({ owner: "alice", limit: 2 });
  assert.deepEqual(ids(first), ["b", "e"]);
  const next = store.list({ owner: "alice", limit: 2, after: { updatedAt: 20, id: "e" } });
  assert.deepEqual(ids(next), ["c", "a"]);
  assert.equal(next.total, 4);
  assert.deepEqual(ids(store.list({ owner: "alice", limit: 9, provider: "q" })), ["c"]);
  assert.deepEqual(
    ids(store.list({ owner: "alice", limit: 9, state: "TASK_STATE_WORKING" })),
    ["b"],
  );
  assert.deepEqual(ids(store.list({ owner: "alice", limit: 9, updatedAfter: 20 })), ["b"]);
  assert.deepEqual(ids(store.list({ owner: undefined, limit: 9 })), []);
});

Deno.test("createMemoryTaskStore() rejects nonsensical bounds", () => {
  assert.throws(() => createMemoryTaskStore({ maxTerminalTasks: -1 }), RangeError);
  assert.throws(() => createMemoryTaskStore({ terminalTtlMs: Number.NaN }), RangeError);
});

Deno.test("createMemoryTaskStore() keeps a live task by reference and a terminal one as a copy", () => {
  const store = createMemoryTaskStore();
  const live = record("live", "TASK_STATE_WORKING", 1);
  store.put(live);
  assert.equal(store.get("live"), live, "the gateway updates a live task in place");
  const done = record("done", "TASK_STATE_COMPLETED", 2, {
    owner: "alice",
    task: {
      id: "done",
      contextId: "c9",
      status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-11-30T00:00:00.000Z" },
      artifacts: [{ artifactId: "output", name: "output", parts: [{ text: "hi" }] }],
    },
  });
  store.put(done);
  (done.task.artifacts![0].parts[0] as { text: string }).text = "changed after the end";
  const got = store.get("done")!;
  assert.notEqual(got, done);
  assert.deepEqual(got.task.artifacts, [
    { artifactId: "output", name: "output", parts: [{ text: "hi" }] },
  ]);
  assert.deepEqual([got.owner, got.provider, got.updatedAt], ["alice", "p", 2]);
  const page = store.list({
    owner: "alice",
    contextId: "c9",
    state: "TASK_STATE_COMPLETED",
    limit: 5,
  });
  assert.deepEqual(page.tasks.map((t) => t.task.id), ["done"]);
  assert.equal(page.total, 1);
});

Deno.test("createMemoryTaskStore() bounds its terminal tasks by total size", () => {
  const store = createMemoryTaskStore({ maxTerminalBytes: 10_000 });
  const big = (id: string, at: number) =>
    record(id, "TASK_STATE_COMPLETED", at, {
      task: {
        id,
        contextId: "ctx",
        status: { state: "TASK_STATE_COMPLETED" },
        artifacts: [{ artifactId: "output", parts: [{ text: "x".repeat(3_000) }] }],
      },
    });
  for (let i = 0; i < 10; i++) store.put(big(`t${i}`, i));
  assert.ok(store.terminalBytes <= 10_000, `${store.terminalBytes} bytes kept`);
  assert.equal(store.size, 3);
  assert.ok(store.get("t9") && store.get("t7"));
  assert.equal(store.get("t6"), undefined, "the oldest went first");
});

Deno.test("createMemoryTaskStore() keeps at most maxTerminalTasksPerOwner per owner", () => {
  const store = createMemoryTaskStore({ maxTerminalTasksPerOwner: 2 });
  store.put(record("bob-1", "TASK_STATE_COMPLETED", 0, { owner: "bob" }));
  for (let i = 0; i < 5; i++) {
    store.put(record(`alice-${i}`, "TASK_STATE_COMPLETED", i + 1, { owner: "alice" }));
  }
  assert.ok(store.get("bob-1"), "another owner's task is never pushed out");
  assert.equal(store.list({ owner: "alice", limit: 10 }).total, 2);
  assert.ok(store.get("alice-4") && store.get("alice-3"));
  assert.equal(store.get("alice-2"), undefined);
});

Deno.test("createMemoryTaskStore() keeps nothing stale when a terminal task cannot be packed", () => {
  const store = createMemoryTaskStore();
  const live = record("t", "TASK_STATE_WORKING", 0);
  store.put(live);
  const broken = record("t", "TASK_STATE_COMPLETED", 1, {
    task: {
      id: "t",
      contextId: "ctx",
      status: { state: "TASK_STATE_COMPLETED" },
      metadata: { n: 1n as never },
    },
  });
  assert.throws(() => store.put(broken), /BigInt/);
  assert.equal(store.get("t"), undefined, "the live entry is not left behind, terminal by now");
  assert.equal(store.list({ owner: undefined, limit: 10 }).total, 0);
  store.put(record("t", "TASK_STATE_COMPLETED", 2));
  assert.equal(store.get("t")?.task.status.state, "TASK_STATE_COMPLETED");
});

Deno.test("createMemoryTaskStore() refuses an unknown option, naming the known ones", () => {
  assert.throws(
    () => createMemoryTaskStore({ maxTerminalTask: 5 } as never),
    (error: Error) =>
      error instanceof TypeError &&
      /^Cannot create the memory task store: unknown option maxTerminalTask \(known: maxTerminalTasks, terminalTtlMs, .*leaseTtlMs\)$/
        .test(error.message),
  );
});
