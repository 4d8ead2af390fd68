import assert from "node:assert/strict";
import { GatewayError, internalError } from "../core/_errors.ts";
import type { SendParams } from "../http/_validate.ts";
import {
  type ClusterCommand,
  type ClusterReply,
  decodeCommand,
  decodeReply,
  encodeCommand,
  encodeReply,
  isReply,
  PROTOCOL_VERSION,
} from "./_protocol.ts";

const steering: SendParams = {
  message: { messageId: "m1", parts: [{ text: "more" }], taskId: "t1" },
};
const followUp: SendParams = {
  message: { messageId: "m2", parts: [{ text: "again" }], contextId: "c1" },
};

Deno.test("encodeCommand() writes the wire every instance since the first reads (no v at version 1)", () => {
  assert.equal(PROTOCOL_VERSION, 1);
  assert.deepEqual(encodeCommand({ kind: "cancel", taskId: "t1", principal: undefined }), {
    kind: "cancel",
    taskId: "t1",
    principal: null,
  });
  assert.deepEqual(encodeCommand({ kind: "message", params: steering, principal: "alice" }), {
    kind: "message",
    params: steering,
    principal: "alice",
  });
  assert.equal(
    JSON.stringify(encodeCommand({ kind: "continue", params: followUp, principal: undefined })),
    JSON.stringify({ kind: "continue", params: followUp, principal: null }),
  );
});

Deno.test("decodeCommand() reads back what encodeCommand() wrote, through JSON", () => {
  const commands: ClusterCommand[] = [
    { kind: "cancel", taskId: "t1", principal: undefined },
    { kind: "message", params: steering, principal: "alice" },
    { kind: "continue", params: followUp, principal: "bob" },
  ];
  for (const command of commands) {
    assert.deepEqual(decodeCommand(JSON.parse(JSON.stringify(encodeCommand(command)))), command);
  }
});

Deno.test("decodeCommand() refuses a version it does not speak, and a command it cannot read", () => {
  assert.deepEqual(
    decodeCommand({ v: 1, kind: "cancel", taskId: "t1", principal: null }),
    { kind: "cancel", taskId: "t1", principal: undefined },
  );
  const newer = (() => {
    try {
      decodeCommand({ v: 2, kind: "cancel", taskId: "t1", principal: null });
    } catch (error) {
      return error;
    }
  })();
  assert.ok(newer instanceof GatewayError);
  assert.equal(newer.kind, "unsupportedOperation");
  assert.match(newer.message, /protocol version 2 \(this instance speaks 1\)/);
  const unreadable = [
    { kind: "reboot" },
    { kind: "cancel", taskId: 7 },
    { kind: "message", params: followUp }, // a message names its task
    { kind: "continue", params: steering }, // a follow-up names a context, no task
    { kind: "message", params: { message: { messageId: "m", parts: "text" } } },
    { kind: "continue", params: null },
  ];
  for (const json of unreadable) {
    assert.throws(
      () => decodeCommand(json),
      (error: unknown) => error instanceof GatewayError && error.kind === "invalidRequest",
      JSON.stringify(json),
    );
  }
});

Deno.test("encodeReply() writes today's reply shapes; notKept carries the 503 an older sender reads", () => {
  const task = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_CANCELED" as const } };
  assert.deepEqual(encodeReply({ kind: "task", task }), { task });
  assert.deepEqual(encodeReply({ kind: "accepted", since: undefined }), { ok: true });
  assert.deepEqual(encodeReply({ kind: "accepted", since: 4 }), { ok: true, since: 4 });
  assert.deepEqual(encodeReply({ kind: "created", taskId: "t2" }), { taskId: "t2" });
  const notKept = encodeReply({ kind: "notKept" });
  assert.equal(notKept.notKept, true);
  assert.deepEqual(notKept.error, {
    kind: "internal",
    message: "The instance that kept this context's run no longer keeps it; try again",
    httpStatus: 503,
    metadata: undefined,
  });
});

Deno.test("decodeReply() reads every reply back, and a reply it cannot read is a 503 refusal", () => {
  const task = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_CANCELED" as const } };
  const replies: ClusterReply[] = [
    { kind: "task", task },
    { kind: "accepted", since: undefined },
    { kind: "accepted", since: 9 },
    { kind: "created", taskId: "t2" },
    { kind: "notKept" },
  ];
  for (const reply of replies) {
    assert.deepEqual(decodeReply(JSON.parse(JSON.stringify(encodeReply(reply)))), reply);
  }
  const refused = decodeReply(
    JSON.parse(JSON.stringify(encodeReply({
      kind: "refused",
      error: new GatewayError("taskNotCancelable", "Task not cancelable: done", {
        metadata: { taskId: "t1" },
      }),
    }))),
  );
  assert.ok(isReply(refused, "refused"));
  assert.equal(refused.error.kind, "taskNotCancelable");
  assert.equal(refused.error.message, "Task not cancelable: done");
  assert.deepEqual(refused.error.metadata, { taskId: "t1" });
  const odd = decodeReply({ error: { kind: "no such kind", httpStatus: "x", metadata: [1] } });
  assert.ok(isReply(odd, "refused"));
  assert.equal(odd.error.kind, "internal");
  assert.equal(odd.error.httpStatus, undefined);
  assert.equal(odd.error.metadata, undefined);
  for (const json of [{}, { task: "t1" }, { taskId: 5 }, { ok: "yes" }]) {
    const reply = decodeReply(json);
    assert.ok(isReply(reply, "refused"), JSON.stringify(json));
    assert.equal(reply.error.httpStatus, 503);
    assert.equal(reply.error.kind, internalError("").kind);
  }
});
