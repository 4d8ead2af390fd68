import assert from "node:assert/strict";
import { rememberJson, stringifyResult } from "./_task_json.ts";
import { createLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { controlledProvider } from "../_test_support.ts";
import { createGateway } from "../gateway.ts";
import { createMemoryTaskStore } from "./memory_task_store.ts";
import type { StoredTask, TaskStore } from "../task_store.ts";
import type { A2ATask } from "../types.ts";

function terminal(id: string): StoredTask {
  return {
    task: {
      id,
      contextId: "c",
      status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-12-01T00:00:00.000Z" },
      history: [{ messageId: "m0", role: "ROLE_USER", parts: [{ text: "asked" }] }],
      artifacts: [{ artifactId: "output", name: "output", parts: [{ text: "done" }] }],
    },
    owner: undefined,
    provider: "p",
    updatedAt: 1,
  };
}

Deno.test("stringifyResult() answers JSON.stringify's text, reusing what was remembered", async (t) => {
  await t.step("a value nobody remembered is serialized", () => {
    const value = { task: { id: "x" }, other: [1, "two"] };
    assert.equal(stringifyResult(value), JSON.stringify(value));
    assert.equal(stringifyResult("text"), '"text"');
    assert.equal(stringifyResult(null), "null");
  });
  await t.step("{ task } with a remembered task splices its text", () => {
    const task = { id: "t" };
    rememberJson(task, '{"id":"remembered"}');
    assert.equal(stringifyResult({ task }), '{"task":{"id":"remembered"}}');
    assert.equal(stringifyResult(task), '{"id":"remembered"}');
  });
  await t.step("a result with more than the task is serialized whole", () => {
    const task = { id: "t" };
    rememberJson(task, '{"id":"remembered"}');
    assert.equal(stringifyResult({ task, more: 1 }), '{"task":{"id":"t"},"more":1}');
  });
  await t.step("the text last remembered for a value is the one answered", () => {
    const task = { id: "t" };
    rememberJson(task, '{"id":"first"}');
    rememberJson({ id: "other" }, '{"id":"other"}');
    rememberJson(task, '{"id":"second"}');
    assert.equal(stringifyResult(task), '{"id":"second"}');
  });
  await t.step("a text remembered long ago (many others since) is serialized again", () => {
    const task = { id: "old" };
    rememberJson(task, '{"id":"remembered"}');
    for (let i = 0; i < 1_000; i++) rememberJson({ id: i }, `{"id":${i}}`);
    assert.equal(stringifyResult(task), '{"id":"old"}');
  });
});

Deno.test("the memory store's terminal records answer as last stored, what it hands out as it is", () => {
  const store = createMemoryTaskStore();
  const record = terminal("a");
  store.put(record);
  const text = JSON.stringify(record.task);
  // The record put and the copy read back both answer the stored text.
  assert.equal(stringifyResult({ task: record.task }), `{"task":${text}}`);
  // A copy it hands out is never answered from its text: whoever got it may change it.
  const read = store.get("a")!.task as A2ATask;
  assert.notEqual(read, record.task);
  delete read.history;
  read.metadata = { redacted: true };
  assert.equal(stringifyResult(read), JSON.stringify(read));
  assert.doesNotMatch(stringifyResult({ task: read }), /history/);
  // A change is stored again: the new text is what answers.
  (record.task.history ??= []).push({
    messageId: "m",
    role: "ROLE_USER",
    parts: [{ text: "late" }],
  });
  store.put(record);
  assert.equal(stringifyResult({ task: record.task }), `{"task":${JSON.stringify(record.task)}}`);
  assert.match(stringifyResult({ task: record.task }), /late/);
});

Deno.test("GetTask answers what a store's get() returned, even one that changes the memory store's copy", async () => {
  const inner = createMemoryTaskStore();
  // A store that hides each task's history from readers.
  const redacting: TaskStore = {
    put: (record) => inner.put(record),
    list: (query) => inner.list(query),
    get(id) {
      const record = inner.get(id) as StoredTask | undefined;
      if (record) delete (record.task as A2ATask).history;
      return record;
    },
  };
  const root = createRootScope({ logger: createLogger({ level: "silent" }) });
  createSubagentService(root).registerProvider(controlledProvider({ auto: true }));
  const gateway = createGateway({ scope: root, taskStore: redacting });
  try {
    const rpc = async (method: string, params: unknown) =>
      await (await gateway.fetch(
        new Request("http://127.0.0.1/", {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        }),
      )).json();
    const sent = await rpc("SendMessage", {
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "secret question" }] },
    });
    assert.equal(sent.result.task.history.length, 1, "the sender sees its own message");
    const got = await rpc("GetTask", { id: sent.result.task.id });
    assert.equal(got.result.status.state, "TASK_STATE_COMPLETED");
    assert.equal(got.result.history, undefined);
    const rest = await (await gateway.fetch(
      new Request(`http://127.0.0.1/tasks/${sent.result.task.id}`, {
        headers: { "a2a-version": "1.0" },
      }),
    )).json();
    assert.equal(rest.history, undefined);
  } finally {
    await gateway.close();
    await root.dispose();
  }
});
