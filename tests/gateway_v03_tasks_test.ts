// Tasks over A2A 0.3 beside 1.0, against `@a2a-js/sdk`'s 0.3 compatibility
// client (`@a2a-js/sdk/compat/v0_3/client`) over real loopback HTTP on both
// bindings: send, stream, get, cancel and resubscribe; input-required; a
// stream the client stops reading; files and data out; a direct Message.
import assert from "node:assert/strict";
import { type Message, Role, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { LegacyRestTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { type SubagentInputAsk, subagentProgress, type SubagentProvider } from "@seam/subagent";
import { getGatewayTask, SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import { controlledProvider, withSetup } from "../gateway/_test_support.ts";
import { askingProvider } from "./asking_support.ts";
import {
  asTask,
  BINDINGS,
  client03,
  message03,
  rest,
  rpc,
  sendRequest,
  type Served,
  textOf,
  until,
  userMessage,
  withGateway,
} from "./gateway_support.ts";

function kinds(events: StreamResponse[]): string[] {
  return events.map((e) => {
    const p = e.payload!;
    if (p.$case === "task") return `task:${TaskState[p.value.status!.state]}`;
    if (p.$case === "statusUpdate") return `status:${TaskState[p.value.status!.state]}`;
    if (p.$case === "artifactUpdate") return "artifact";
    return p.$case;
  });
}

/** Record the requests' A2A-Version headers as the server saw them. */
function versionsSeen(served: Served): string[] {
  return served.requests;
}

for (const binding of BINDINGS) {
  Deno.test(`gateway a2a03 over ${binding}: the SDK's 0.3 client sends, streams, gets, cancels, resubscribes`, async (t) => {
    await withGateway({ a2a03: true }, async (served) => {
      const client = await client03(served, binding);
      assert.equal(client.protocolVersion, "0.3");

      await t.step(
        "message/send blocks until the task ends and answers it in 0.3 form",
        async () => {
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete hello"))));
          assert.equal(task.status!.state, TaskState.TASK_STATE_COMPLETED);
          assert.equal(textOf(task), "hello");
          assert.ok(task.contextId);
          const seam = task.metadata?.[SEAM_EXTENSION_URI] as Record<string, unknown>;
          assert.equal(seam.provider, "reference");
          assert.equal(seam.stopReason, "completed");
          assert.ok(
            versionsSeen(served).some((r) =>
              binding === "JSONRPC" ? r === "POST /" : r === "POST /v1/message:send"
            ),
          );
        },
      );

      await t.step("tasks/get answers the task, its history cut to historyLength", async () => {
        const sent = asTask(await client.sendMessage(sendRequest(userMessage("complete again"))));
        const got = await client.getTask({ tenant: "", id: sent.id, historyLength: 1 });
        assert.equal(got.id, sent.id);
        assert.equal(got.status!.state, TaskState.TASK_STATE_COMPLETED);
        assert.equal(textOf(got), "again");
        assert.ok(got.history.length <= 1);
        await assert.rejects(
          client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined }),
          (error) => error instanceof TaskNotFoundError || /-32001|not found/i.test(String(error)),
        );
      });

      await t.step("a failed run is TASK_STATE_FAILED with the gateway's note", async () => {
        const task = asTask(await client.sendMessage(sendRequest(userMessage("fail"))));
        assert.equal(task.status!.state, TaskState.TASK_STATE_FAILED);
      });

      await t.step(
        "message/stream: the task, WORKING, the artifact, COMPLETED (final)",
        async () => {
          const events: StreamResponse[] = [];
          for await (
            const event of client.sendMessageStream(sendRequest(userMessage("complete streamed")))
          ) events.push(event);
          const seen = kinds(events);
          assert.equal(seen[0], "task:TASK_STATE_SUBMITTED");
          assert.ok(seen.includes("status:TASK_STATE_WORKING"), seen.join());
          assert.ok(seen.includes("artifact"), seen.join());
          assert.equal(seen.at(-1), "status:TASK_STATE_COMPLETED");
        },
      );

      await t.step("blocking false returns at once; cancel ends the task CANCELED", async () => {
        const task = asTask(
          await client.sendMessage(sendRequest(userMessage("hang"), { returnImmediately: true })),
        );
        assert.ok(
          task.status!.state === TaskState.TASK_STATE_SUBMITTED ||
            task.status!.state === TaskState.TASK_STATE_WORKING,
          TaskState[task.status!.state],
        );
        await until(() => served.reference.live.size > 0);
        const canceled = await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
        assert.equal(canceled.status!.state, TaskState.TASK_STATE_CANCELED);
      });

      await t.step("tasks/resubscribe follows a live task to its end", async () => {
        const task = asTask(
          await client.sendMessage(sendRequest(userMessage("hang"), { returnImmediately: true })),
        );
        await until(() => served.reference.live.size > 0);
        const events: StreamResponse[] = [];
        const following = (async () => {
          for await (const event of client.resubscribeTask({ tenant: "", id: task.id })) {
            events.push(event);
            if (events.length === 1) {
              await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
            }
          }
        })();
        await following;
        assert.equal(kinds(events)[0].startsWith("task:"), true);
        assert.equal(kinds(events).at(-1), "status:TASK_STATE_CANCELED");
      });
    });
  });
}

const PERMISSION: SubagentInputAsk = {
  kind: "permission",
  message: "The child wants to run a command",
  toolCall: { name: "shell", title: "Run rm -rf build", rawInput: { command: "rm -rf build" } },
  options: [
    { id: "allow", label: "Allow once", kind: "allow_once" },
    { id: "reject", label: "Reject", kind: "reject_once" },
  ],
};

/** A provider whose runs ask for permission once, then end with the option chosen. */
function permissionAsker(): SubagentProvider {
  return askingProvider("asks", async ({ ask }) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const answer = await ask(PERMISSION);
    return {
      output: answer.outcome === "selected" ? `chose ${answer.optionId}` : answer.outcome,
      stopReason: "completed",
    };
  });
}

for (const binding of BINDINGS) {
  Deno.test(`gateway a2a03 over ${binding}: input-required, answered by a 0.3 message`, async () => {
    await withGateway({ a2a03: true }, async (served) => {
      served.subagents.registerProvider(permissionAsker());
      const client = await client03(served, binding, "/asks/.well-known/agent-card.json");
      const asked = asTask(await client.sendMessage(sendRequest(userMessage("go"))));
      assert.equal(asked.status!.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      const parts = asked.status!.message!.parts;
      assert.match(
        parts[0].content?.$case === "text" ? parts[0].content.value : "",
        /Run rm -rf build/,
      );
      assert.equal(parts[1].content?.$case, "data", "the request as a data part");
      const done = asTask(
        await client.sendMessage(
          sendRequest(userMessage("allow", { taskId: asked.id, contextId: asked.contextId })),
        ),
      );
      assert.equal(done.id, asked.id);
      assert.equal(done.status!.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(textOf(done), "chose allow");
    });
  });
}

Deno.test("gateway a2a03 over HTTP+JSON: a stream the client stops reading ends with an SSE error event the SDK's 0.3 client raises", async () => {
  const provider = controlledProvider();
  await withSetup(
    [provider],
    { a2a03: true, limits: { maxStreamBufferBytes: 4_096 } },
    async (s) => {
      const transport = new LegacyRestTransport({
        endpoint: "http://gw.test",
        fetchImpl: (input, init) => s.gateway.fetch(new Request(input, init)),
      });
      const stream = transport.sendMessageStream(sendRequest(userMessage("go")));
      const first = await stream.next();
      assert.equal(first.value?.payload?.$case, "task");
      const run = provider.runs[0];
      run.ready();
      await new Promise((resolve) => setTimeout(resolve, 0));
      const chunk = "x".repeat(1_000);
      for (let i = 0; i < 100; i++) {
        run.request.parent.scope.emit(subagentProgress, {
          runId: run.id,
          kind: "text",
          text: chunk,
        });
      }
      assert.equal(s.gateway.liveTasks, 1, "the task goes on");
      await assert.rejects(
        (async () => {
          for await (const _ of stream) { /* drain what was buffered */ }
        })(),
        /Stream closed: the client is not reading it/,
      );
      run.finish({ output: "done", stopReason: "completed" });
    },
  );
});

/** A provider whose runs answer a file, a link, and data (an object and a list). */
function richProvider(): SubagentProvider {
  let n = 0;
  return {
    name: "rich",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start: () => ({
      id: `rich-${++n}`,
      started: Promise.resolve(),
      result: Promise.resolve({
        output: [
          { type: "text", text: "here" },
          { type: "file", mediaType: "application/pdf", data: "JVBERg==", filename: "r.pdf" },
          { type: "resource", uri: "https://example.com/r.txt", mediaType: "text/plain" },
          { type: "data", data: { answer: 42 } },
          { type: "data", data: [1, 2] },
        ],
        stopReason: "completed" as const,
      }),
      cancel() {},
      dispose: () => Promise.resolve(),
    }),
  };
}

Deno.test("gateway a2a03: files and data out, in each binding's 0.3 form", async (t) => {
  await withGateway({ a2a03: true }, async (served) => {
    served.subagents.registerProvider(richProvider());
    await t.step(
      "JSON-RPC: file parts with bytes/uri, data objects, a list wrapped as {value}",
      async () => {
        const { body } = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "go" }]),
        }, { path: "/rich/" });
        const parts = (body.result as { artifacts: { parts: unknown[] }[] }).artifacts[0].parts;
        assert.deepEqual(parts, [
          { kind: "text", text: "here" },
          { kind: "file", file: { bytes: "JVBERg==", mimeType: "application/pdf", name: "r.pdf" } },
          { kind: "file", file: { uri: "https://example.com/r.txt", mimeType: "text/plain" } },
          { kind: "data", data: { answer: 42 } },
          { kind: "data", data: { value: [1, 2] }, metadata: { data_part_compat: true } },
        ]);
      },
    );
    await t.step("HTTP+JSON: proto JSON parts", async () => {
      const r = await rest(served, "POST", "/rich/v1/message:send", {
        message: { messageId: "m", role: "ROLE_USER", content: [{ text: "go" }] },
      });
      const task = r.body.task as { artifacts: { parts: unknown[] }[] };
      assert.deepEqual(task.artifacts[0].parts, [
        { text: "here" },
        { file: { fileWithBytes: "JVBERg==", mimeType: "application/pdf" } },
        { file: { fileWithUri: "https://example.com/r.txt", mimeType: "text/plain" } },
        { data: { data: { answer: 42 } } },
        { data: { data: { value: [1, 2] } } },
      ]);
    });
    for (const binding of BINDINGS) {
      await t.step(
        `the SDK's 0.3 client reads them as raw, url and data parts (${binding})`,
        async () => {
          const client = await client03(served, binding, "/rich/.well-known/agent-card.json");
          const task = asTask(await client.sendMessage(sendRequest(userMessage("go"))));
          const cases = task.artifacts[0].parts.map((p) => p.content?.$case);
          assert.deepEqual(cases, ["text", "raw", "url", "data", "data"]);
          const data = task.artifacts[0].parts.slice(3).map((p) =>
            p.content?.$case === "data" ? p.content.value : undefined
          );
          assert.deepEqual(data[0], { answer: 42 });
          // The JSON-RPC form carries the flag that unwraps a list; proto JSON has no part metadata.
          assert.deepEqual(data[1], binding === "JSONRPC" ? [1, 2] : { value: [1, 2] });
        },
      );
    }
  });
});

Deno.test("gateway a2a03: a direct Message reply in 0.3 form", async (t) => {
  const replying: SubagentProvider = {
    name: "replies",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      getGatewayTask(request.parent.scope)!.replyWithMessage();
      return {
        id: crypto.randomUUID(),
        started: Promise.resolve(),
        result: Promise.resolve({ output: "Direct answer", stopReason: "completed" as const }),
        cancel() {},
        dispose: () => Promise.resolve(),
      };
    },
  };
  await withGateway({ a2a03: true }, async (served) => {
    served.subagents.registerProvider(replying);
    await t.step(
      "on the wire: kind message, role agent (JSON-RPC); {message} (HTTP+JSON)",
      async () => {
        const { body } = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "hi" }]),
        }, { path: "/replies/" });
        const m = body.result as Record<string, unknown>;
        assert.equal(m.kind, "message");
        assert.equal(m.role, "agent");
        assert.deepEqual(m.parts, [{ kind: "text", text: "Direct answer" }]);
        const r = await rest(served, "POST", "/replies/v1/message:send", {
          message: { messageId: "m", role: "ROLE_USER", content: [{ text: "hi" }] },
        });
        const pm = r.body.message as Record<string, unknown>;
        assert.equal(pm.role, "ROLE_AGENT");
        assert.deepEqual(pm.content, [{ text: "Direct answer" }]);
      },
    );
    for (const binding of BINDINGS) {
      await t.step(
        `the SDK's 0.3 client gets a Message, and a stream of one (${binding})`,
        async () => {
          const client = await client03(served, binding, "/replies/.well-known/agent-card.json");
          const reply = await client.sendMessage(sendRequest(userMessage("hi"))) as Message;
          assert.equal(reply.role, Role.ROLE_AGENT);
          assert.equal(
            reply.parts[0].content?.$case === "text" ? reply.parts[0].content.value : "",
            "Direct answer",
          );
          const events: StreamResponse[] = [];
          for await (const e of client.sendMessageStream(sendRequest(userMessage("hi")))) {
            events.push(e);
          }
          assert.deepEqual(kinds(events), ["message"]);
        },
      );
    }
  });
});
