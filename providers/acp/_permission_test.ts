import assert from "node:assert/strict";
import { createMemoryLogger } from "@seam/host";
import {
  answerOutcome,
  askOptions,
  KnownToolCalls,
  permissionAsk,
  toolCallInfo,
} from "./_permission.ts";

Deno.test("toolCallInfo() keeps title, kind, rawInput and content, and names the call by its id", () => {
  assert.deepEqual(
    toolCallInfo({
      toolCallId: "c1",
      title: "Edit a.txt",
      kind: "edit",
      status: "pending",
      rawInput: { path: "a.txt" },
      locations: [{ path: "a.txt" }],
      content: [
        { type: "content", content: { type: "text", text: "why" } },
        { type: "diff", path: "a.txt", oldText: "one\ntwo", newText: "one\n2" },
        { type: "diff", path: "new.txt", newText: "fresh" },
        { type: "terminal", terminalId: "t-1" },
        { type: "content", content: { type: "audio", data: "AA==" } },
        { type: "mystery" },
        "not an entry",
      ],
    }),
    {
      name: "c1",
      title: "Edit a.txt",
      kind: "edit",
      rawInput: { path: "a.txt" },
      content: [
        { type: "text", text: "why" },
        { type: "text", text: "--- a.txt\n+++ a.txt\n-one\n-two\n+one\n+2" },
        { type: "text", text: "--- /dev/null\n+++ new.txt\n+fresh" },
        { type: "text", text: "(terminal t-1)" },
      ],
    },
  );
  assert.deepEqual(toolCallInfo("no object"), { name: "" });
  assert.deepEqual(toolCallInfo({ toolCallId: 7, title: 8, content: "x" }), { name: "" });
});

Deno.test("toolCallInfo() leaves out a rawInput too deep to copy", () => {
  let deep: unknown = "bottom";
  for (let i = 0; i < 200_000; i++) deep = { deeper: deep };
  assert.deepEqual(toolCallInfo({ toolCallId: "c", rawInput: deep }), { name: "c" });
});

Deno.test("toolCallInfo() carries at most 64 content entries", () => {
  const content = Array.from(
    { length: 100 },
    (_, i) => ({ type: "content", content: { type: "text", text: `${i}` } }),
  );
  assert.equal(toolCallInfo({ toolCallId: "c", content }).content?.length, 64);
});

Deno.test("askOptions() keeps the agent's ids and ACP kinds, and leaves out what nobody could pick", () => {
  const { logger, records } = createMemoryLogger();
  assert.deepEqual(
    askOptions([
      { optionId: "a", name: "Allow", kind: "allow_once" },
      { optionId: "a", name: "Again", kind: "reject_once" },
      { optionId: "", name: "Empty", kind: "allow_once" },
      { optionId: "s", name: "Sudo", kind: "sudo" },
      { optionId: "r", name: "", kind: "reject_always" },
    ], logger),
    [
      { id: "a", label: "Allow", kind: "allow_once" },
      { id: "r", label: "r", kind: "reject_always" },
    ],
  );
  assert.equal(records.filter((r) => r.level === "warn").length, 3);
});

Deno.test("answerOutcome() maps a choice to it and a refusal to the agent's reject option", () => {
  const all = [
    { id: "y", label: "Y", kind: "allow_once" },
    { id: "never", label: "N", kind: "reject_always" },
    { id: "no", label: "N", kind: "reject_once" },
  ] as const;
  const refused = { outcome: "refused", reason: "no" } as const;
  assert.deepEqual(answerOutcome({ outcome: "selected", optionId: "never" }, all), {
    outcome: "selected",
    optionId: "never",
  });
  assert.deepEqual(answerOutcome(refused, all), { outcome: "selected", optionId: "no" });
  assert.deepEqual(answerOutcome(refused, all.slice(0, 2)), {
    outcome: "selected",
    optionId: "never",
  });
  assert.deepEqual(answerOutcome(refused, all.slice(0, 1)), { outcome: "cancelled" });
});

Deno.test("permissionAsk() says who asks for what", () => {
  const ask = permissionAsk("claude", { name: "c", title: "x".repeat(300), kind: "execute" }, [
    { id: "y", label: "Y", kind: "allow_once" },
  ]);
  assert.equal(
    ask.message,
    `The ACP agent "claude" asks permission for "${"x".repeat(200)}…" (execute)`,
  );
  assert.equal(
    permissionAsk("a", { name: "c9" }, ask.options!).message,
    'The ACP agent "a" asks permission for tool call "c9"',
  );
});

Deno.test("KnownToolCalls completes a request from the calls in flight, and forgets finished ones", () => {
  const known = new KnownToolCalls();
  known.remember({
    toolCallId: "a",
    title: "A",
    kind: "read",
    rawInput: { p: 1 },
    status: "pending",
  });
  known.remember({ toolCallId: "a", title: "A2", content: null });
  assert.deepEqual(known.complete({ toolCallId: "a", kind: "edit" }), {
    toolCallId: "a",
    title: "A2",
    kind: "edit",
    rawInput: { p: 1 },
  });
  known.remember({ toolCallId: "a", status: "completed" });
  assert.deepEqual(known.complete({ toolCallId: "a" }), { toolCallId: "a" });
  for (let i = 0; i < 40; i++) known.remember({ toolCallId: `c${i}`, title: `${i}` });
  assert.deepEqual(
    known.complete({ toolCallId: "c0" }),
    { toolCallId: "c0" },
    "the oldest is forgotten",
  );
  assert.deepEqual(known.complete({ toolCallId: "c39" }), { toolCallId: "c39", title: "39" });
  assert.equal(known.complete("no object"), "no object");
});
