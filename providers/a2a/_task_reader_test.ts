import assert from "node:assert/strict";
import type { Artifact, Message, Part, StreamResponse, Task } from "@a2a-js/sdk";
import { TaskReader } from "./_task_reader.ts";
import { SEAM_EXTENSION_URI } from "./_extension.ts";
import { TaskStates } from "./_wire.ts";

// Plain objects in the SDK client's shapes: no server, no client, no timers.
const text = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "",
});
const data = (value: unknown): Part => ({
  content: { $case: "data", value: value as never },
  metadata: undefined,
  filename: "",
  mediaType: "",
});
const agentSays = (words: string, taskId = "t"): Message => ({
  messageId: "m",
  contextId: "c",
  taskId,
  role: 2,
  parts: [text(words)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const artifact = (parts: Part[], artifactId = "out"): Artifact => ({
  artifactId,
  name: "",
  description: "",
  parts,
  metadata: undefined,
  extensions: [],
});
const task = (
  state: number,
  fields: { artifacts?: Artifact[]; said?: string; metadata?: Record<string, unknown> } = {},
): Task => ({
  id: "t",
  contextId: "c",
  status: {
    state,
    message: fields.said === undefined ? undefined : agentSays(fields.said),
    timestamp: undefined,
  },
  artifacts: fields.artifacts ?? [],
  history: [],
  metadata: fields.metadata,
});
const status = (state: number, said?: string, taskId = "t"): StreamResponse => ({
  payload: {
    $case: "statusUpdate",
    value: {
      taskId,
      contextId: "c",
      status: {
        state,
        message: said === undefined ? undefined : agentSays(said),
        timestamp: undefined,
      },
      metadata: undefined,
    },
  },
});
const chunk = (words: string, append: boolean): StreamResponse => ({
  payload: {
    $case: "artifactUpdate",
    value: {
      taskId: "t",
      contextId: "c",
      artifact: artifact([text(words)]),
      append,
      lastChunk: false,
      metadata: undefined,
    },
  },
});
const snapshot = (value: Task): StreamResponse => ({ payload: { $case: "task", value } });

const reader = (maxOutputChars = 1_000) => new TaskReader({ resourceUris: false, maxOutputChars });

Deno.test("TaskReader.read() follows a task from its first event to its end", () => {
  const r = reader();
  assert.equal(r.condition, "unknown");
  assert.deepEqual(r.read(snapshot(task(TaskStates.SUBMITTED))), {
    text: "",
    changed: true,
    progress: true,
    first: true,
  });
  assert.equal(r.condition, "live");
  assert.equal(r.taskId, "t");
  assert.equal(r.contextId, "c");
  assert.deepEqual(r.read(status(TaskStates.WORKING)), {
    text: "",
    changed: true,
    progress: true,
    first: false,
  });
  assert.deepEqual(r.read(chunk("Hel", false)), {
    text: "Hel",
    changed: true,
    progress: true,
    first: false,
  });
  assert.deepEqual(r.read(chunk("lo", true)), {
    text: "lo",
    changed: true,
    progress: true,
    first: false,
  });
  assert.equal(r.held, 8); // "Hello" and the artifact's id, "out"
  assert.deepEqual(r.read(status(TaskStates.COMPLETED)).changed, true);
  assert.equal(r.condition, "ended");
  assert.deepEqual(r.outcome(undefined, true), {
    stopReason: "completed",
    pieces: [{ type: "text", text: "Hello" }],
  });
});

Deno.test("TaskReader says what is new: a repeat is not news", () => {
  const r = reader();
  r.read(snapshot(task(TaskStates.WORKING, { artifacts: [artifact([text("one ")])] })));
  // The same WORKING again, and a snapshot that repeats what was streamed.
  assert.equal(r.read(status(TaskStates.WORKING)).changed, false);
  assert.equal(
    r.readTask(task(TaskStates.WORKING, { artifacts: [artifact([text("one ")])] })).changed,
    false,
  );
  assert.equal(r.read(chunk("", true)).changed, false);
  // A snapshot that extends what was streamed brings only its new end.
  assert.deepEqual(
    r.readTask(task(TaskStates.WORKING, { artifacts: [artifact([text("one two")])] })),
    { text: "two", changed: true, progress: true, first: false },
  );
  assert.equal(r.read(status(TaskStates.WORKING, "thinking")).changed, true);
  assert.equal(r.read(status(TaskStates.WORKING, "thinking")).changed, false);
});

Deno.test("TaskReader tells progress from news: a flip back to a state, word or output seen before is news, not progress", () => {
  const r = reader();
  r.read(snapshot(task(TaskStates.SUBMITTED)));
  const working = r.read(status(TaskStates.WORKING));
  assert.deepEqual([working.changed, working.progress], [true, true]);
  // WORKING to SUBMITTED and back: each a change, neither new.
  for (const state of [TaskStates.SUBMITTED, TaskStates.WORKING, TaskStates.SUBMITTED]) {
    const news = r.read(status(state));
    assert.deepEqual([news.changed, news.progress], [true, false], `state ${state}`);
  }
  // Two words by turns: new once each.
  const words = ["thinking", "still thinking", "thinking", "still thinking"];
  const seen = words.map((word) => r.read(status(TaskStates.SUBMITTED, word)));
  assert.deepEqual(seen.map((news) => [news.changed, news.progress]), [
    [true, true],
    [true, true],
    [true, false],
    [true, false],
  ]);
  // An artifact replaced by turns with two contents, and one text given whole
  // that was streamed in chunks before: the same output, no progress.
  const outputs = [
    r.read(chunk("a", false)),
    r.read(chunk("b", true)),
    r.read(chunk("a", false)),
    r.readTask(task(TaskStates.SUBMITTED, { artifacts: [artifact([text("ab")])] })),
    r.read(chunk("abc", false)),
  ];
  assert.deepEqual(outputs.map((news) => [news.changed, news.progress]), [
    [true, true],
    [true, true],
    [true, false],
    [true, false],
    [true, true],
  ]);
});

Deno.test("TaskReader.outcome() maps each end", async (t) => {
  const end = (value: Task, schema?: Record<string, unknown>) => {
    const r = reader();
    r.readTask(value);
    return r.outcome(schema as never, true);
  };
  await t.step("FAILED → error, the agent's word as output", () => {
    assert.deepEqual(end(task(TaskStates.FAILED, { said: "no disk" })), {
      stopReason: "error",
      pieces: [{ type: "text", text: "no disk" }],
      error: {
        code: "CHILD_FAILED",
        message: "the remote task ended in TASK_STATE_FAILED",
        data: { state: "TASK_STATE_FAILED", taskId: "t", contextId: "c" },
      },
    });
    // With output of its own, the agent's last word is the reason.
    const withOutput = end(
      task(TaskStates.FAILED, { said: "no disk", artifacts: [artifact([text("half")])] }),
    );
    assert.deepEqual(withOutput.pieces, [{ type: "text", text: "half" }]);
    assert.equal(withOutput.error?.message, "the remote task ended in TASK_STATE_FAILED: no disk");
  });
  await t.step("REJECTED → refusal", () => {
    const outcome = end(task(TaskStates.REJECTED, { said: "not doing that" }));
    assert.deepEqual(outcome, {
      stopReason: "refusal",
      pieces: [{ type: "text", text: "not doing that" }],
    });
  });
  await t.step("CANCELED over there → error with the remote's reason, not aborted", () => {
    const outcome = end(task(TaskStates.CANCELED, { said: "Canceled: shutting down" }));
    assert.equal(outcome.stopReason, "error");
    assert.equal(outcome.error?.code, "REMOTE_CANCELED");
    assert.match(
      outcome.error!.message,
      /cancelled the task .*not this run: Canceled: shutting down/,
    );
  });
  await t.step("a seam gateway's exact aborted (its shutdown) → error with its reason", () => {
    const outcome = end(
      task(TaskStates.CANCELED, {
        said: "Canceled: the gateway shut down.",
        metadata: { [SEAM_EXTENSION_URI]: { stopReason: "aborted" } },
      }),
    );
    assert.equal(outcome.stopReason, "error");
    assert.deepEqual(outcome.pieces, []);
    assert.deepEqual(outcome.error, {
      code: "REMOTE_CANCELED",
      message:
        "the remote run was aborted over there, not by this run: Canceled: the gateway shut down.",
      data: { state: "TASK_STATE_CANCELED", taskId: "t", contextId: "c" },
    });
  });
  await t.step("a seam gateway's exact stop reason wins over the state", () => {
    const outcome = end(
      task(TaskStates.FAILED, {
        artifacts: [artifact([text("partial")])],
        metadata: { [SEAM_EXTENSION_URI]: { stopReason: "max-tokens" } },
      }),
    );
    assert.deepEqual(outcome, {
      stopReason: "max-tokens",
      pieces: [{ type: "text", text: "partial" }],
    });
  });
  await t.step("a seam gateway's typed error passes through, the task's state added", () => {
    const outcome = end(
      task(TaskStates.FAILED, {
        metadata: {
          [SEAM_EXTENSION_URI]: {
            stopReason: "error",
            error: { code: "TIMEOUT", message: "the model did not answer", data: { ms: 10 } },
          },
        },
      }),
    );
    assert.deepEqual(outcome.error, {
      code: "TIMEOUT",
      message: "the model did not answer",
      data: { state: "TASK_STATE_FAILED", taskId: "t", contextId: "c", ms: 10 },
    });
    // An older gateway's error is its message.
    const older = end(
      task(TaskStates.FAILED, {
        metadata: { [SEAM_EXTENSION_URI]: { stopReason: "error", error: "broken provider" } },
      }),
    );
    assert.equal(older.error?.code, "CHILD_FAILED");
    assert.equal(older.error?.message, "the remote run broke down: broken provider");
  });
  await t.step("INPUT_REQUIRED → interrupted, error saying what it needs", () => {
    const r = reader();
    r.readTask(task(TaskStates.INPUT_REQUIRED, { said: "Which file?" }));
    assert.equal(r.condition, "interrupted");
    const outcome = r.outcome(undefined, true);
    assert.equal(outcome.stopReason, "error");
    assert.equal(outcome.error?.code, "INPUT_REQUIRED");
    assert.match(
      outcome.error!.message,
      /stopped in TASK_STATE_INPUT_REQUIRED: it needs more input to go on; resume\(\) answers it/,
    );
    assert.deepEqual(outcome.pieces, [{ type: "text", text: "Which file?" }]);
  });
  await t.step("an outputSchema takes the last data part, checked", () => {
    const schema = {
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
    };
    assert.deepEqual(
      end(
        task(TaskStates.COMPLETED, { artifacts: [artifact([text("x"), data({ n: 1 })])] }),
        schema,
      ),
      {
        stopReason: "completed",
        pieces: [{ type: "text", text: "x" }],
        structured: { n: 1 },
      },
    );
    const wrong = end(
      task(TaskStates.COMPLETED, { artifacts: [artifact([data({ n: "one" })])] }),
      schema,
    );
    assert.equal(wrong.stopReason, "error");
    assert.equal(wrong.error?.code, "INVALID_STRUCTURED_RESULT");
    assert.match(wrong.error!.message, /does not match the outputSchema/);
    const none = end(task(TaskStates.COMPLETED, { artifacts: [artifact([text("x")])] }), schema);
    assert.equal(none.error?.code, "NO_STRUCTURED_RESULT");
  });
});

Deno.test("TaskReader.readAnswer() takes a direct message as the whole run", () => {
  const r = reader();
  const message = { ...agentSays("just this"), taskId: "" };
  assert.deepEqual(r.readAnswer(message), { text: "", changed: true, progress: true, first: true });
  assert.equal(r.condition, "reply");
  assert.equal(r.taskId, undefined);
  assert.deepEqual(r.outcome(undefined, true).pieces, [{ type: "text", text: "just this" }]);
  assert.throws(() => r.read(status(TaskStates.WORKING)), /after answering with a message/);
});

Deno.test("TaskReader refuses malformed events, naming them", () => {
  const cases: [StreamResponse, RegExp][] = [
    [{ payload: undefined }, /none of task, message, statusUpdate, artifactUpdate/],
    [
      status(TaskStates.WORKING, undefined, "other"),
      /event of task "other" on the stream of task "t"/,
    ],
    [status(99), /entered an unknown state \(99\)/],
    [
      { payload: { $case: "statusUpdate", value: { taskId: "t" } as never } },
      /status with no state/,
    ],
    [{ payload: { $case: "statusUpdate", value: { taskId: "" } as never } }, /no task id/],
  ];
  for (const [event, message] of cases) {
    const r = reader();
    r.read(snapshot(task(TaskStates.WORKING)));
    assert.throws(() => r.read(event), message);
  }
});

Deno.test("TaskReader quotes an unknown event cut to 200 characters, never between the halves of a surrogate pair", () => {
  const r = reader();
  r.read(snapshot(task(TaskStates.WORKING)));
  // The JSON of the event is `{"payload":{"$case":"x","value":"…"}}`: its 200th
  // character is the first half of an emoji.
  const head = '{"payload":{"$case":"x","value":"';
  const value = "a".repeat(199 - head.length) + "😀".repeat(40);
  const event = { payload: { $case: "x", value } } as unknown as StreamResponse;
  assert.equal(JSON.stringify(event).charCodeAt(199), 0xd83d);
  let message = "";
  try {
    r.read(event);
  } catch (error) {
    message = (error as Error).message;
  }
  assert.match(message, /none of task, message, statusUpdate, artifactUpdate: \{"payload"/);
  assert.match(message, /a… \(\d+ more characters\)/);
  assert.doesNotMatch(message, /[\ud800-\udbff](?![\udc00-\udfff])/, "no lone high surrogate");
});

Deno.test("TaskReader holds at most maxOutputChars, keeping what came before", () => {
  // 10 characters of text, and 3 of the artifact's id ("out").
  const r = reader(13);
  r.read(snapshot(task(TaskStates.WORKING)));
  r.read(chunk("12345678", false));
  assert.throws(
    () => r.read(chunk("9ab", true)),
    /more output than this run holds \(13 characters, maxOutputChars\)/,
  );
  assert.deepEqual(r.pieces(), [{ type: "text", text: "12345678" }]);
  // A replacement counts what it replaces, not on top of it.
  r.read(chunk("abcdefghij", false));
  assert.equal(r.held, 13);
  // The agent's last word counts too.
  assert.throws(() => r.read(status(TaskStates.WORKING, "!")), /maxOutputChars/);
  const other = reader(5);
  assert.throws(
    () => other.readTask(task(TaskStates.COMPLETED, { artifacts: [artifact([text("123456")])] })),
    /maxOutputChars/,
  );
});

Deno.test("TaskReader checks that a seam gateway continued the context it was asked to", () => {
  const r = new TaskReader({ resourceUris: true, maxOutputChars: 100, continuing: "ctx-9" });
  assert.throws(
    () =>
      r.readTask(
        task(TaskStates.WORKING, { metadata: { [SEAM_EXTENSION_URI]: { stopReason: undefined } } }),
      ),
    /did not continue context "ctx-9": it started a fresh run/,
  );
  const ok = new TaskReader({ resourceUris: true, maxOutputChars: 100, continuing: "ctx-9" });
  ok.readTask(
    task(TaskStates.WORKING, { metadata: { [SEAM_EXTENSION_URI]: { resumedFrom: "r1" } } }),
  );
  assert.equal(ok.condition, "live");
});

Deno.test("TaskReader.answered(): the interruption answered, read again, is live; a new one interrupts", async (t) => {
  const said = (messageId: string) => ({ ...agentSays("Which file?"), messageId });
  const asks = (messageId: string, state: number = TaskStates.INPUT_REQUIRED): StreamResponse => ({
    payload: {
      $case: "statusUpdate",
      value: {
        taskId: "t",
        contextId: "c",
        status: { state, message: said(messageId), timestamp: undefined },
        metadata: undefined,
      },
    },
  });
  const r = new TaskReader({ resourceUris: false, maxOutputChars: 10_000 });
  await t.step("answering a task that does not wait is refused", () => {
    r.readTask(task(TaskStates.WORKING));
    assert.throws(() => r.answered(), /Cannot answer the remote task: it is live/);
  });
  await t.step("the same status message again (a snapshot, an update): live", () => {
    r.read(asks("q1"));
    assert.equal(r.condition, "interrupted");
    r.answered();
    assert.equal(r.condition, "live");
    const snapshot = task(TaskStates.INPUT_REQUIRED);
    r.readTask({ ...snapshot, status: { ...snapshot.status!, message: said("q1") } });
    assert.equal(r.condition, "live");
    r.read(asks("q1"));
    assert.equal(r.condition, "live");
  });
  await t.step("a new status message in an interrupted state: interrupted again", () => {
    r.read(asks("q2", TaskStates.AUTH_REQUIRED));
    assert.equal(r.condition, "interrupted");
    assert.equal(r.state, TaskStates.AUTH_REQUIRED);
  });
  await t.step("with no message id, a snapshot in the same state is the old one", () => {
    const plain = new TaskReader({ resourceUris: false, maxOutputChars: 10_000 });
    plain.readTask(task(TaskStates.INPUT_REQUIRED));
    plain.answered();
    plain.readTask(task(TaskStates.INPUT_REQUIRED));
    assert.equal(plain.condition, "live");
    plain.read(status(TaskStates.WORKING));
    plain.read(status(TaskStates.INPUT_REQUIRED));
    assert.equal(plain.condition, "interrupted", "after WORKING, it is a new interruption");
  });
});

Deno.test("TaskReader reads a FAILED status under another task id as its task's failure", () => {
  const r = reader();
  r.read(status(TaskStates.WORKING));
  r.read(status(TaskStates.FAILED, "the agent threw: no such file", "another"));
  assert.equal(r.condition, "ended");
  assert.equal(r.taskId, "t");
  const outcome = r.outcome(undefined, true);
  assert.equal(outcome.stopReason, "error");
  assert.match(JSON.stringify(outcome), /the agent threw: no such file/);
  // Any other state under another id is still refused.
  const other = reader();
  other.read(status(TaskStates.WORKING));
  assert.throws(
    () => other.read(status(TaskStates.COMPLETED, "x", "other")),
    /event of task "other" on the stream of task "t"/,
  );
});

Deno.test("TaskReader leaves ADK's tool traffic (function calls and responses) out of the output", () => {
  const adk = (type: string, value: unknown): Part => ({
    ...data(value),
    metadata: { adk_type: type },
  });
  const r = reader();
  r.read(snapshot(task(TaskStates.WORKING, {
    artifacts: [
      artifact([adk("function_call", { name: "lookup", args: { q: "x" }, id: "c1" })], "a1"),
      artifact([adk("function_response", { name: "lookup", response: { hit: 1 } })], "a2"),
      artifact([text("found it"), data({ kept: true })], "a3"),
    ],
  })));
  assert.deepEqual(r.pieces(), [{ type: "text", text: "found it" }, {
    type: "data",
    data: { kept: true },
  }]);
});
