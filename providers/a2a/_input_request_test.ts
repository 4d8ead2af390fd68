import assert from "node:assert/strict";
import { answerMessage, remoteAskOf } from "./_input_request.ts";
import { SEAM_EXTENSION_URI } from "./_extension.ts";
import { RemoteProtocolError } from "./_async.ts";
import { TaskStates } from "./_wire.ts";

const seamPart = (inputRequest: unknown) => ({
  type: "data" as const,
  data: { [SEAM_EXTENSION_URI]: { inputRequest } } as never,
});
const REQUEST = {
  id: "shell-1/input-1",
  runId: "shell-1",
  path: ["root", "a2a-3", "shell-1"],
  kind: "permission",
  message: "The child wants to run a command",
  toolCall: { name: "shell", rawInput: { command: "ls" } },
  options: [{ id: "allow", label: "Allow", kind: "allow_once" }],
};

Deno.test("remoteAskOf() reads what an interrupted task asks", async (t) => {
  await t.step("a seam gateway's request: its fields, the path below this run, its id", () => {
    const asked = remoteAskOf(
      [{ type: "text", text: "The child wants… Answer with…" }, seamPart(REQUEST)],
      TaskStates.INPUT_REQUIRED,
      "t",
      ["root", "a2a-3"],
    );
    assert.deepEqual(asked, {
      ask: {
        kind: "permission",
        message: REQUEST.message,
        toolCall: REQUEST.toolCall,
        options: REQUEST.options,
      },
      relay: { below: ["shell-1"] },
      remoteId: "shell-1/input-1",
    });
  });
  await t.step("a path that does not repeat this run's is all below; none: the runId", () => {
    const other = remoteAskOf([seamPart({ ...REQUEST, path: ["x", "y"] })], 6, "t", ["root"]);
    assert.deepEqual(other.relay, { below: ["x", "y"] });
    const bare = remoteAskOf([seamPart({ ...REQUEST, path: undefined })], 6, "t", ["root"]);
    assert.deepEqual(bare.relay, { below: ["shell-1"] });
  });
  await t.step("any other agent: a question, or authentication, in its words", () => {
    assert.deepEqual(
      remoteAskOf([{ type: "text", text: " Which file? " }], TaskStates.INPUT_REQUIRED, "t", []),
      { ask: { kind: "question", message: "Which file?" } },
    );
    assert.deepEqual(remoteAskOf([], TaskStates.AUTH_REQUIRED, "t-9", []), {
      ask: {
        kind: "authentication",
        message: 'The remote agent needs authentication to go on (task "t-9")',
      },
    });
  });
  await t.step("a seam request that is not an object, or has no id, is a protocol error", () => {
    assert.throws(() => remoteAskOf([seamPart("allow?")], 6, "t", []), RemoteProtocolError);
    assert.throws(
      () => remoteAskOf([seamPart({ ...REQUEST, id: 7 })], 6, "t", []),
      /the seam gateway sent an input request with no id/,
    );
  });
});

Deno.test("answerMessage() answers on the same task: the exact answer for a seam gateway, text otherwise", () => {
  const ids = { taskId: "t", contextId: "c", depth: 2 };
  const seam = answerMessage({ outcome: "selected", optionId: "allow" }, "r-1", ids);
  assert.equal(seam.taskId, "t");
  assert.equal(seam.contextId, "c");
  assert.deepEqual(seam.metadata, {
    [SEAM_EXTENSION_URI]: {
      depth: 2,
      answer: { requestId: "r-1", outcome: "selected", optionId: "allow" },
    },
  });
  assert.deepEqual(seam.extensions, [SEAM_EXTENSION_URI]);
  const plain = answerMessage({ outcome: "answered", text: "report.txt" }, undefined, ids);
  assert.equal(plain.metadata, undefined);
  assert.deepEqual(plain.parts.map((p) => p.content), [{ $case: "text", value: "report.txt" }]);
});

Deno.test("remoteAskOf() puts a data-only question into words; a function call is answered as ADK's function_response", () => {
  const call = { id: "call-1", name: "approve_expense", args: { amount: 120, currency: "EUR" } };
  const asked = remoteAskOf([{ type: "data", data: call }], TaskStates.INPUT_REQUIRED, "t1", []);
  assert.equal(asked.ask.kind, "question");
  assert.match(
    asked.ask.message,
    /calls "approve_expense" with \{"amount":120,"currency":"EUR"\} and waits for its result \(task "t1"\)/,
  );
  assert.deepEqual(asked.ask.toolCall, {
    name: "approve_expense",
    kind: "function_call",
    rawInput: { amount: 120, currency: "EUR" },
  });
  assert.deepEqual(asked.functionCall, { id: "call-1", name: "approve_expense" });
  const ids = { taskId: "t1", contextId: "c1", depth: 0 };
  for (
    const [answer, response] of [
      [{ outcome: "answered", text: '{"status":"approved"}' }, { status: "approved" }],
      [{ outcome: "answered", text: "approved" }, { result: "approved" }],
      [{ outcome: "refused", reason: "no one to ask" }, { error: "no one to ask" }],
    ] as const
  ) {
    const message = answerMessage(answer, undefined, ids, asked.functionCall);
    assert.equal(message.taskId, "t1");
    assert.equal(message.parts.length, 1);
    const part = message.parts[0];
    assert.equal(part.content?.$case, "data");
    assert.deepEqual(part.content?.value, { id: "call-1", name: "approve_expense", response });
    assert.deepEqual(part.metadata, { adk_type: "function_response" });
  }
  const other = remoteAskOf([{ type: "data", data: [1, 2] }], TaskStates.INPUT_REQUIRED, "t2", []);
  assert.match(other.ask.message, /needs more input to go on \(task "t2"\); it sent \[1,2\]/);
  assert.equal(other.functionCall, undefined);
});

Deno.test("answerMessage() sends answer.data: ADK's function_response, a data part, or the seam extension's answer", () => {
  const ids = { taskId: "t1", contextId: "c1", depth: 1 };
  const data = { status: "approved", amount: 120 };
  const words = JSON.stringify(data);
  const call = { id: "call-1", name: "approve_expense" };
  const adk = answerMessage(
    { outcome: "answered", text: "ok, approved", data },
    undefined,
    ids,
    call,
  );
  assert.deepEqual(adk.parts.map((p) => p.content?.value), [{
    id: "call-1",
    name: "approve_expense",
    response: data,
  }]);
  const contents = (answer: Parameters<typeof answerMessage>[0], remoteId?: string) =>
    answerMessage(answer, remoteId, ids).parts.map((p) => p.content);
  assert.deepEqual(
    contents({ outcome: "answered", text: words, data }),
    [{ $case: "data", value: data }],
    "words that only repeat the data are not sent twice",
  );
  assert.deepEqual(contents({ outcome: "answered", text: "see the data", data }), [
    { $case: "text", value: "see the data" },
    { $case: "data", value: data },
  ]);
  const seam = answerMessage({ outcome: "answered", text: words, data }, "r-1", ids);
  assert.deepEqual(seam.metadata?.[SEAM_EXTENSION_URI], {
    depth: 1,
    answer: { requestId: "r-1", outcome: "answered", text: words, data },
  });
  assert.deepEqual(seam.parts.map((p) => p.content), [{ $case: "text", value: words }]);
});

Deno.test("remoteAskOf() reads Mastra's suspended tool call: an approval is a permission request answered {approved}", async (t) => {
  const words = {
    type: "text" as const,
    text: "Additional input is required to continue this task.",
  };
  const suspended = (suspendPayload: unknown) => ({
    type: "data" as const,
    data: { suspendPayload, resumeSchema: "{}" } as never,
  });
  const approval = { toolCallId: "call-1", toolName: "run", args: { command: "ls" } };
  const ids = { taskId: "t1", contextId: "c1", depth: 0 };
  await t.step("an approval: the tool, its arguments, approve or decline", () => {
    const asked = remoteAskOf([words, suspended(approval)], TaskStates.INPUT_REQUIRED, "t1", []);
    assert.equal(asked.ask.kind, "permission");
    assert.match(asked.ask.message, /asks to call "run" with \{"command":"ls"\} \(task "t1"\)/);
    assert.deepEqual(asked.ask.toolCall, { name: "run", rawInput: { command: "ls" } });
    assert.deepEqual(asked.ask.options?.map((o) => o.id), ["approve", "decline"]);
    assert.deepEqual(asked.functionCall, { id: "call-1", name: "run", approval: true });
    const sent = (answer: Parameters<typeof answerMessage>[0]) =>
      answerMessage(answer, undefined, ids, asked.functionCall).parts.map((p) => p.content);
    assert.deepEqual(sent({ outcome: "selected", optionId: "approve" }), [
      { $case: "text", value: "approve" },
      { $case: "data", value: { approved: true } },
    ]);
    assert.deepEqual(sent({ outcome: "selected", optionId: "decline" })[1], {
      $case: "data",
      value: { approved: false },
    });
    assert.deepEqual(sent({ outcome: "refused", reason: "no one to ask" })[1], {
      $case: "data",
      value: { approved: false, reason: "no one to ask" },
    });
  });
  await t.step("a tool that suspended itself: a question in Mastra's words about the call", () => {
    const own = { ...approval, suspendPayload: { message: "Which file?" } };
    const asked = remoteAskOf(
      [{ type: "text", text: "Which file?" }, suspended(own)],
      TaskStates.INPUT_REQUIRED,
      "t1",
      [],
    );
    assert.deepEqual(asked, {
      ask: {
        kind: "question",
        message: "Which file?",
        toolCall: {
          name: "run",
          rawInput: { command: "ls" },
        },
      },
    });
  });
  await t.step("a payload without a tool's name and call id: the words, as from any agent", () => {
    for (const payload of [{ toolName: "run" }, { toolCallId: "c", toolName: "" }, "run", null]) {
      const asked = remoteAskOf([words, suspended(payload)], TaskStates.INPUT_REQUIRED, "t", []);
      assert.deepEqual(asked, { ask: { kind: "question", message: words.text } }, String(payload));
    }
    const auth = remoteAskOf([words, suspended(approval)], TaskStates.AUTH_REQUIRED, "t", []);
    assert.equal(auth.ask.kind, "authentication");
  });
});
