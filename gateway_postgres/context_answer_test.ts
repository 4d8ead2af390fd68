// An answer that names only its context (a contextId, no taskId, as Google
// ADK's client answers an INPUT_REQUIRED task) on PostgreSQL: two gateways
// in this process, each on its own store over one schema, as two instances
// behind a load balancer. The task waits on one; the answer reaches the other.
import assert from "node:assert/strict";
import { message, rpc as call } from "../gateway/_test_support.ts";
import type { PostgresTaskStore } from "./mod.ts";
import {
  eventually,
  type Instance,
  SKIP,
  startTask,
  type Wire,
  withGateways,
} from "./_test_support.ts";

const QUESTION = { kind: "question", message: "Which branch?" } as const;
const ALICE = { authorization: "Bearer alice-token" };
const BOB = { authorization: "Bearer bob-token" };
const AUTH = { tokens: { alice: "alice-token", bob: "bob-token" } };

/** Wait until task `id` is stored INPUT_REQUIRED; its stored record. */
function storedWaiting(store: PostgresTaskStore, id: string) {
  return eventually("the task INPUT_REQUIRED", async () => {
    const got = await store.get(id);
    return got?.task.status.state === "TASK_STATE_INPUT_REQUIRED" ? got : undefined;
  });
}

/**
 * Start a task on `instance` in `contextId` (ready, not yet asking); its id,
 * its run, and `ask()`: its run asks a question, and the task is stored waiting.
 */
async function startIn(instance: Instance, contextId: string, headers = {}) {
  const sent = await call(instance.gateway, "SendMessage", {
    message: message("go", { contextId }),
    configuration: { returnImmediately: true },
  }, headers);
  const id: string = sent.result?.task?.id;
  assert.ok(id, JSON.stringify(sent));
  const run = instance.provider.runs.at(-1)!;
  run.ready();
  const ask = async () => {
    const answered = run.ask(QUESTION);
    await storedWaiting(instance.store, id);
    return { answered };
  };
  return { id, run, ask };
}

/** {@linkcode startIn}, the task then waiting; its id, its run and the answer to come. */
async function waitingTask(instance: Instance, contextId: string, headers = {}) {
  const { id, run, ask } = await startIn(instance, contextId, headers);
  return { id, run, ...await ask() };
}

Deno.test({
  name: "a context-only answer sent to another instance completes the task waiting there",
  ignore: SKIP,
  fn: () =>
    withGateways(2, { provider: { inputs: true } }, async ([a, b]) => {
      const { id, run } = await startTask(a);
      let answer: unknown;
      void run.ask(QUESTION).then((got) => answer = got);
      const { task } = await storedWaiting(a.store, id);
      const sent = call(b.gateway, "SendMessage", {
        message: message("main", { contextId: task.contextId }),
      });
      await eventually(
        "the answer taken, or a run started on B",
        () => Promise.resolve((answer !== undefined || b.provider.runs.length > 0) || undefined),
      );
      assert.equal(b.provider.runs.length, 0, "B started a fresh run");
      assert.deepEqual(answer, { outcome: "answered", text: "main" });
      run.finish({ output: [{ type: "text", text: "on main" }], stopReason: "completed" });
      const done = await sent;
      assert.equal(done.result?.task?.id, id, JSON.stringify(done));
      assert.equal(done.result.task.status.state, "TASK_STATE_COMPLETED");
      assert.deepEqual(done.result.task.history.map((m: Wire) => m.parts[0].text), ["go", "main"]);
      const listed = await call(b.gateway, "ListTasks", { contextId: task.contextId });
      assert.deepEqual(listed.result.tasks.map((t: Wire) => t.id), [id], "one task in the context");
    }),
});

Deno.test({
  name: "a context-only answer with a task waiting on each instance is refused naming both",
  ignore: SKIP,
  fn: () =>
    withGateways(2, { provider: { inputs: true } }, async ([a, b]) => {
      const contextId = crypto.randomUUID();
      // Both started before either waits: a context-only message would answer the first.
      const there = await startIn(a, contextId);
      const here = await startIn(b, contextId);
      await there.ask();
      await here.ask();
      const refused = await call(b.gateway, "SendMessage", {
        message: message("main", { contextId }),
        configuration: { returnImmediately: true },
      });
      assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
      for (const { id } of [there, here]) {
        assert.ok(refused.error.message.includes(id), refused.error.message);
        const got = await call(b.gateway, "GetTask", { id });
        assert.equal(got.result.status.state, "TASK_STATE_INPUT_REQUIRED", "it still waits");
      }
      assert.equal(b.provider.runs.length, 1, "no new run");
    }),
});

Deno.test({
  name: "a context-only answer finds only its principal's waiting task on another instance",
  ignore: SKIP,
  fn: () =>
    withGateways(2, { provider: { inputs: true }, gateway: () => ({ auth: AUTH }) }, async (
      [a, b],
    ) => {
      const contextId = crypto.randomUUID();
      const alice = await waitingTask(a, contextId, ALICE);
      // Bob's message in that context is no answer to Alice's task: a task of his own.
      const bobs = await call(b.gateway, "SendMessage", {
        message: message("hello", { contextId }),
        configuration: { returnImmediately: true },
      }, BOB);
      assert.ok(bobs.result?.task?.id, JSON.stringify(bobs));
      assert.notEqual(bobs.result.task.id, alice.id);
      assert.equal(b.provider.runs.length, 1, "Bob's run started on B");
      const still = await call(a.gateway, "GetTask", { id: alice.id }, ALICE);
      assert.equal(still.result.status.state, "TASK_STATE_INPUT_REQUIRED");
      // Alice's, through the same instance, is hers.
      const hers = await call(b.gateway, "SendMessage", {
        message: message("main", { contextId }),
        configuration: { returnImmediately: true },
      }, ALICE);
      assert.equal(hers.result?.task?.id, alice.id, JSON.stringify(hers));
      assert.deepEqual(await alice.answered, { outcome: "answered", text: "main" });
    }),
});

Deno.test({
  name: "a context-only answer whose task was answered before it got there is refused by its owner",
  ignore: SKIP,
  fn: () => {
    let race: (() => Promise<void>) | undefined;
    return withGateways(2, {
      provider: { inputs: true, steer: true },
      gateway: ({ n, store }) =>
        n === 1 ? { taskStore: racing(store, () => race?.() ?? Promise.resolve()) } : {},
    }, async ([a, b]) => {
      const contextId = crypto.randomUUID();
      const { id, run, answered } = await waitingTask(a, contextId);
      // Between B's read of the waiting tasks and its command to A, the task is answered on A.
      race = async () => {
        race = undefined;
        await call(a.gateway, "SendMessage", {
          message: message("first", { taskId: id }),
          configuration: { returnImmediately: true },
        });
        await eventually(
          "the task WORKING",
          async () =>
            (await a.store.get(id))?.task.status.state === "TASK_STATE_WORKING" || undefined,
        );
      };
      const late = await call(b.gateway, "SendMessage", {
        message: message("second", { contextId }),
        configuration: { returnImmediately: true },
      });
      assert.equal(late.error?.code, -32004, JSON.stringify(late));
      assert.ok(late.error.message.includes(id), late.error.message);
      assert.deepEqual(await answered, { outcome: "answered", text: "first" });
      assert.deepEqual(run.sent, [], "the late answer did not steer the run");
      assert.equal(b.provider.runs.length, 0, "no fresh run");
    });
  },
});

/** `store`, whose reads of waiting tasks go through `between` once they answered. */
function racing(store: PostgresTaskStore, between: () => Promise<void>): PostgresTaskStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === "waiting") {
        return async (...args: Parameters<PostgresTaskStore["waiting"]>) => {
          const found = await target.waiting(...args);
          await between();
          return found;
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
