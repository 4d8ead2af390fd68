import assert from "node:assert/strict";
import { rememberJson, stringifyResult } from "./_task_json.ts";
import { createMemoryTaskStore, type StoredTask } from "./task_store.ts";
import type { A2ATask } from "./types.ts";

function terminal(id: string): StoredTask {
  return {
    task: {
      id,
      contextId: "c",
      status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-12-01T00:00:00.000Z" },
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
});

Deno.test("the memory store's terminal tasks answer as last stored, serialized once", () => {
  const store = createMemoryTaskStore();
  const record = terminal("a");
  store.put(record);
  const text = JSON.stringify(record.task);
  // The record put and the copy read back both answer the stored text.
  assert.equal(stringifyResult({ task: record.task }), `{"task":${text}}`);
  const read = store.get("a")!.task as A2ATask;
  assert.notEqual(read, record.task);
  assert.equal(stringifyResult(read), text);
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
