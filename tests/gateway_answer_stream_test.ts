// A follow-up streamed to a task on a shared storage (the memory store
// shared, PostgreSQL): an answer, to the instance that runs the task or to
// another, opens on the task as the answer left it (working), never on the
// request it answered, and ends where the task ends or asks again; a
// steering message opens on the running task, not on a replay of its log.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import {
  describe,
  faulty,
  Frames,
  rpc,
  rpcRequest,
  startTask,
  withCluster,
  within,
} from "../gateway/cluster/_cluster_test_support.ts";
import { controlledProvider, message, type Wire } from "../gateway/_test_support.ts";
import {
  createGateway,
  createMemoryTaskStore,
  type Gateway,
  type TaskStorage,
  TaskStorageError,
} from "../gateway/mod.ts";
import { dropSchema, freshSchema, openStore, SKIP } from "../gateway_postgres/_test_support.ts";
import { askingProvider } from "./asking_support.ts";

/** A provider whose runs ask "Which branch?", then "Sure?", going on after each answer only once released. */
function twoQuestions() {
  const gates: (() => void)[] = [];
  const gate = () => new Promise<void>((resolve) => gates.push(resolve));
  const provider = askingProvider("asks", async ({ ask, signal }) => {
    signal.addEventListener("abort", () => {
      for (const open of gates.splice(0)) open();
    });
    await Promise.resolve();
    const branch = await ask({ kind: "question", message: "Which branch?" });
    await gate();
    if (signal.aborted) return { output: "", stopReason: "aborted" };
    const sure = await ask({ kind: "question", message: "Sure?" });
    await gate();
    const said = (a: typeof branch) => a.outcome === "answered" ? a.text : a.outcome;
    return { output: `${said(branch)}, ${said(sure)}`, stopReason: "completed" };
  });
  const release = async () => {
    for (let waited = 0; gates.length === 0; waited++) {
      if (waited > 2_000) throw new Error("the run did not come to its gate");
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    gates.shift()!();
  };
  return { provider, release };
}

/** What a frame asks, when it puts the task INPUT_REQUIRED. */
const question = (e: Wire): string | undefined =>
  (e.task ?? e.statusUpdate)?.status.message?.parts[0].text;

/** Two stores over one shared storage (one for each instance), and how to drop it. */
type Shared = () => Promise<{ stores: [TaskStorage, TaskStorage]; drop: () => Promise<void> }>;

const storages: [string, Shared, boolean][] = [
  ["the memory store", () => {
    const store = createMemoryTaskStore({ shared: true, leaseTtlMs: 10_000 });
    return Promise.resolve({ stores: [store, store], drop: () => Promise.resolve() });
  }, false],
  ["PostgreSQL", async () => {
    const schema = freshSchema();
    const stores = [await openStore(schema), await openStore(schema)] as const;
    return {
      stores: [...stores],
      drop: async () => {
        for (const store of stores) await store.close();
        await dropSchema(schema);
      },
    };
  }, SKIP],
];

for (const [storage, shared, ignore] of storages) {
  for (const via of ["the instance that runs it", "another instance"]) {
    Deno.test({
      name:
        `an answer streamed on ${storage} to ${via}: the stream opens on the task working, and ends where it asks again or ends`,
      ignore,
      fn: () => answerStreamed(shared, via === "another instance"),
    });
  }
}

async function answerStreamed(shared: Shared, forwarded: boolean): Promise<void> {
  const { stores, drop } = await shared();
  const child = twoQuestions();
  const roots: Scope[] = [];
  const gateways: Gateway[] = [];
  for (const [n, providers] of [[child.provider], []].entries()) {
    const root = createRootScope({ logger: createMemoryLogger().logger });
    roots.push(root);
    const service = createSubagentService(root);
    for (const p of providers) service.registerProvider(p);
    gateways.push(createGateway({ scope: root, taskStore: stores[n] }));
  }
  const [owner, other] = gateways;
  const to = forwarded ? other : owner;
  const answer = async (taskId: string, text: string) => {
    const frames = new Frames(
      await to.fetch(rpcRequest("SendStreamingMessage", { message: message(text, { taskId }) })),
    );
    const first = await within(2_000, "the first frame", frames.next());
    return { first: first!, frames };
  };
  try {
    const asked = (await rpc(owner, "SendMessage", { message: message("go") })).result.task;
    assert.equal(asked.status.state, "TASK_STATE_INPUT_REQUIRED");
    const askedAt = (await stores[0].get(asked.id))!.generation!;

    const one = await answer(asked.id, "main");
    assert.equal(describe(one.first.data), "task:WORKING");
    assert.ok(one.first.id > askedAt, `${one.first.id} follows ${askedAt}`);
    await child.release();
    const rest = await within(2_000, "the stream's end", one.frames.rest());
    const all = [one.first, ...rest].map((f) => f.data);
    assert.deepEqual(all.slice(1).map(describe), ["status:INPUT_REQUIRED"]);
    assert.match(question(all.at(-1)!)!, /^Sure\?/, "it ends at the new question");

    const two = await answer(asked.id, "yes");
    assert.equal(describe(two.first.data), "task:WORKING");
    await child.release();
    const end = await within(2_000, "the stream's end", two.frames.rest());
    assert.deepEqual(end.map((f) => describe(f.data)), ["text:main, yes", "status:COMPLETED"]);
  } finally {
    for (const g of gateways) await g.close();
    for (const root of roots) await root.dispose();
    await drop();
  }
}

Deno.test("a steering message streamed on a shared storage: the stream opens on the running task, not on a replay of its log", async () => {
  await withCluster(1, { steer: true }, async ([a], store) => {
    const id = await startTask(a.gateway);
    const run = a.provider.runs[0];
    run.ready();
    while ((await store.get(id))?.task.status.state !== "TASK_STATE_WORKING") {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const frames = new Frames(
      await a.gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("more", { taskId: id }) }),
      ),
    );
    const first = await within(2_000, "the first frame", frames.next());
    assert.equal(describe(first!.data), "task:WORKING");
    assert.ok(first!.id > 1, "not the log's first entry");
    run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
    const rest = await within(2_000, "the stream's end", frames.rest());
    assert.deepEqual(rest.map((f) => describe(f.data)), ["text:done", "status:COMPLETED"]);
  });
});

Deno.test("a follow-up's stream ends with the task when another writer ends it before the run's events are committed", async () => {
  const store = createMemoryTaskStore({ shared: true, leaseTtlMs: 10_000 });
  // Once held, the instance's appends wait: what its run emits stays uncommitted.
  let hold = false;
  const held: (() => void)[] = [];
  const storage = faulty(
    store,
    (change, append) =>
      hold
        ? new Promise((_, reject) =>
          held.push(() => reject(new TaskStorageError("CONFLICT", "another writer ended it")))
        )
        : Promise.resolve(append(change)),
  );
  const provider = controlledProvider({ steer: true });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root).registerProvider(provider);
  let emit!: (runId: string, text: string) => void;
  const gateway = createGateway({
    scope: root,
    taskStore: storage,
    progress: (_parent, emitter) => void (emit = emitter),
  });
  try {
    const id = await startTask(gateway);
    const run = provider.runs[0];
    run.ready();
    while ((await store.get(id))?.task.status.state !== "TASK_STATE_WORKING") {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    hold = true;
    // Two changes past the stored generation: one being written, one queued behind it.
    emit(run.id, "thinking");
    while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    emit(run.id, "still thinking");
    const frames = new Frames(
      await gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("more", { taskId: id }) }),
      ),
    );
    // The instance's lease lapsed meanwhile, say: another ends the task, as the reaper does.
    const stored = (await store.get(id))!;
    const task = { ...stored.task, status: { state: "TASK_STATE_FAILED" as const } };
    store.append({
      record: { ...stored, task },
      expected: stored.generation!,
      events: [{ statusUpdate: { taskId: id, contextId: task.contextId, status: task.status } }],
      instance: undefined,
    });
    const first = await within(2_000, "the first frame", frames.next());
    assert.equal(describe(first!.data), "task:FAILED");
    assert.deepEqual(await within(2_000, "the stream's end", frames.rest()), []);
  } finally {
    for (const reject of held.splice(0)) reject();
    hold = false;
    for (const run of provider.runs) run.finish({ output: "", stopReason: "completed" });
    await gateway.close();
    await root.dispose();
  }
});
