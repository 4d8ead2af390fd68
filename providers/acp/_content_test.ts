import assert from "node:assert/strict";
import { fromAcpBlock, fromAcpUpdate, toAcpPrompt } from "./_content.ts";

const ALL = { image: true, embeddedContext: true };

Deno.test("toAcpPrompt() converts each block kind", () => {
  assert.deepEqual(
    toAcpPrompt([
      { type: "text", text: "t" },
      { type: "image", mediaType: "image/png", data: "AA==" },
      { type: "resource", uri: "file:///a", text: "A" },
      { type: "resource", uri: "file:///b", mediaType: "text/plain" },
    ], ALL),
    [
      { type: "text", text: "t" },
      { type: "image", mimeType: "image/png", data: "AA==" },
      { type: "resource", resource: { uri: "file:///a", text: "A" } },
      { type: "resource_link", uri: "file:///b", name: "file:///b", mimeType: "text/plain" },
    ],
  );
});

Deno.test("toAcpPrompt() refuses what the agent does not accept", () => {
  const none = { image: false, embeddedContext: false };
  assert.throws(
    () => toAcpPrompt([{ type: "image", mediaType: "image/png", data: "AA==" }], none),
    /prompt\[0\] is an image/,
  );
  assert.throws(
    () => toAcpPrompt([{ type: "resource", uri: "file:///a", text: "A" }], none),
    /embeddedContext is false/,
  );
  assert.deepEqual(toAcpPrompt([{ type: "resource", uri: "u" }], none), [
    { type: "resource_link", uri: "u", name: "u" },
  ]);
});

Deno.test("fromAcpBlock() converts known blocks and skips the rest", () => {
  assert.deepEqual(fromAcpBlock({ type: "text", text: "a" }), { type: "text", text: "a" });
  assert.deepEqual(fromAcpBlock({ type: "image", data: "AA==", mimeType: "image/png" }), {
    type: "image",
    mediaType: "image/png",
    data: "AA==",
  });
  assert.deepEqual(fromAcpBlock({ type: "resource_link", uri: "u", name: "n" }), {
    type: "resource",
    uri: "u",
  });
  assert.deepEqual(
    fromAcpBlock({ type: "resource", resource: { uri: "u", text: "T", mimeType: "text/x" } }),
    { type: "resource", uri: "u", mediaType: "text/x", text: "T" },
  );
  assert.equal(fromAcpBlock({ type: "audio", data: "AA==", mimeType: "audio/wav" }), undefined);
  assert.equal(fromAcpBlock({ type: "text" }), undefined);
  assert.equal(fromAcpBlock("text"), undefined);
});

Deno.test("fromAcpUpdate() maps each kind and keeps the raw update", () => {
  const chunk = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } };
  assert.deepEqual(fromAcpUpdate(chunk), {
    kind: "message",
    type: "agent_message_chunk",
    raw: chunk,
    content: [{ type: "text", text: "hi" }],
  });
  assert.equal(
    fromAcpUpdate({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "" } })
      ?.kind,
    "thought",
  );
  assert.deepEqual(
    fromAcpUpdate({ sessionUpdate: "tool_call", toolCallId: "c", title: "T", kind: "read" }),
    {
      kind: "tool-call",
      type: "tool_call",
      raw: { sessionUpdate: "tool_call", toolCallId: "c", title: "T", kind: "read" },
      toolCall: { toolCallId: "c", title: "T", toolKind: "read" },
    },
  );
  assert.equal(fromAcpUpdate({ sessionUpdate: "plan", entries: [] })?.kind, "plan");
  assert.equal(fromAcpUpdate({ sessionUpdate: "current_mode_update" })?.kind, "other");
});

Deno.test("fromAcpUpdate() returns undefined for malformed updates", () => {
  assert.equal(fromAcpUpdate(null), undefined);
  assert.equal(fromAcpUpdate({}), undefined);
  assert.equal(fromAcpUpdate({ sessionUpdate: "agent_message_chunk" }), undefined);
  assert.equal(fromAcpUpdate({ sessionUpdate: "tool_call" }), undefined);
  assert.equal(fromAcpUpdate({ sessionUpdate: "plan", entries: [1] }), undefined);
});
