// The gateway against the real `@a2a-js/sdk` 1.3 client over loopback HTTP,
// with both bindings: every A2A operation the gateway serves, the seam
// extension, auth and task isolation.
import assert from "node:assert/strict";
import { type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import { SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import {
  BINDINGS,
  rawRpc,
  sendRequest,
  type Served,
  until,
  userMessage,
  withGateway,
} from "./gateway_support.ts";

function asTask(result: unknown): Task {
  assert.ok(result && typeof result === "object" && "status" in result, "expected a task");
  return result as Task;
}

function seamMeta(task: Task): Record<string, unknown> {
  return task.metadata?.[SEAM_EXTENSION_URI] as Record<string, unknown>;
}

function textOf(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts).map((p) =>
    p.content?.$case === "text" ? p.content.value : ""
  ).join("");
}

function kinds(events: StreamResponse[]): string[] {
  return events.map((e) => {
    const p = e.payload!;
    if (p.$case === "task") return `task:${TaskState[p.value.status!.state]}`;
    if (p.$case === "statusUpdate") return `status:${TaskState[p.value.status!.state]}`;
    if (p.$case === "artifactUpdate") {
      return `artifact:${p.value.append ? "append" : "set"}${p.value.lastChunk ? ":last" : ""}`;
    }
    return p.$case;
  });
}

async function startHang(served: Served, binding: (typeof BINDINGS)[number]): Promise<Task> {
  const client = await served.client(binding);
  const task = asTask(
    await client.sendMessage(sendRequest(userMessage("hang"), { returnImmediately: true })),
  );
  await until(() => served.reference.live.size > 0);
  return task;
}

for (const binding of BINDINGS) {
  Deno.test(`gateway over ${binding}: the SDK client sends, streams, gets, lists`, async (t) => {
    await withGateway({}, async (served) => {
      const client = await served.client(binding);

      await t.step(
        "sendMessage() blocks until the task completes, output as an artifact",
        async () => {
          const task = asTask(
            await client.sendMessage(sendRequest(userMessage("complete hi there"))),
          );
          assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
          assert.equal(textOf(task), "hi there");
          assert.equal(seamMeta(task).stopReason, "completed");
          assert.equal(seamMeta(task).provider, "reference");
          assert.equal(served.reference.live.size, 0, "the run was disposed");
          assert.equal(
            served.requests.at(-1),
            binding === "JSONRPC" ? "POST /" : "POST /message:send",
            "the client used the binding under test",
          );
        },
      );

      await t.step("each stop reason maps to its state with the exact stopReason", async () => {
        const cases = [
          ["fail", TaskState.TASK_STATE_FAILED, "error"],
          ["max-tokens", TaskState.TASK_STATE_FAILED, "max-tokens"],
        ] as const;
        for (const [prompt, state, stopReason] of cases) {
          const task = asTask(await client.sendMessage(sendRequest(userMessage(prompt))));
          assert.equal(task.status?.state, state, prompt);
          assert.equal(seamMeta(task).stopReason, stopReason);
          assert.ok(textOf(task).length > 0, "the partial or failing output is kept");
        }
      });

      await t.step("returnImmediately answers at once; GetTask sees the end", async () => {
        const task = asTask(
          await client.sendMessage(
            sendRequest(userMessage("complete later"), { returnImmediately: true }),
          ),
        );
        assert.ok(
          task.status?.state === TaskState.TASK_STATE_SUBMITTED ||
            task.status?.state === TaskState.TASK_STATE_WORKING,
        );
        let got = await client.getTask({ tenant: "", id: task.id });
        for (let i = 0; i < 200 && got.status?.state !== TaskState.TASK_STATE_COMPLETED; i++) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          got = await client.getTask({ tenant: "", id: task.id });
        }
        assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
        assert.equal(textOf(got), "later");
      });

      await t.step(
        "sendMessageStream() yields task, WORKING, the artifact, COMPLETED in order",
        async () => {
          const events: StreamResponse[] = [];
          for await (
            const event of client.sendMessageStream(sendRequest(userMessage("complete streamed")))
          ) {
            events.push(event);
          }
          assert.deepEqual(kinds(events), [
            "task:TASK_STATE_SUBMITTED",
            "status:TASK_STATE_WORKING",
            "artifact:set:last",
            "status:TASK_STATE_COMPLETED",
          ]);
          const first = events[0].payload!.value as Task;
          for (const event of events.slice(1)) {
            assert.equal((event.payload!.value as { taskId: string }).taskId, first.id);
          }
        },
      );

      await t.step("getTask() returns the history, cut by historyLength", async () => {
        const task = asTask(
          await client.sendMessage(sendRequest(userMessage("complete remember me"))),
        );
        const full = await client.getTask({ tenant: "", id: task.id });
        assert.equal(full.history.length, 1);
        assert.equal(full.history[0].parts[0].content?.value, "complete remember me");
        assert.equal(full.history[0].taskId, task.id);
        assert.equal(textOf(full), "remember me", "the output lives in the artifact");
        const one = await client.getTask({ tenant: "", id: task.id, historyLength: 1 });
        assert.equal(one.history.length, 1);
        const none = await client.getTask({ tenant: "", id: task.id, historyLength: 0 });
        assert.equal(none.history.length, 0);
      });

      await t.step("listTasks() pages through the caller's tasks, newest first", async () => {
        const contextId = crypto.randomUUID();
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const task = asTask(
            await client.sendMessage(sendRequest(userMessage(`complete n${i}`, { contextId }))),
          );
          ids.push(task.id);
        }
        const page1 = await client.listTasks({
          tenant: "",
          contextId,
          status: TaskState.TASK_STATE_UNSPECIFIED,
          pageSize: 2,
          pageToken: "",
          historyLength: 0,
          statusTimestampAfter: undefined,
          includeArtifacts: true,
        });
        assert.equal(page1.totalSize, 3);
        assert.equal(page1.tasks.length, 2);
        assert.notEqual(page1.nextPageToken, "");
        assert.ok(page1.tasks.every((task) => task.artifacts.length === 1));
        const page2 = await client.listTasks({
          tenant: "",
          contextId,
          status: TaskState.TASK_STATE_COMPLETED,
          pageSize: 2,
          pageToken: page1.nextPageToken,
          historyLength: undefined,
          statusTimestampAfter: undefined,
          includeArtifacts: false,
        });
        assert.equal(page2.tasks.length, 1);
        assert.equal(page2.nextPageToken, "");
        assert.deepEqual(
          new Set([...page1.tasks, ...page2.tasks].map((task) => task.id)),
          new Set(ids),
        );
        assert.equal(page2.tasks[0].artifacts.length, 0, "artifacts only when asked");
      });

      await t.step("getTask() of an unknown task is TaskNotFoundError (-32001)", async () => {
        await assert.rejects(
          client.getTask({ tenant: "", id: "no-such-task" }),
          (error: unknown) => error instanceof TaskNotFoundError,
        );
      });
    });
  });

  Deno.test(`gateway over ${binding}: cancel and subscribe`, async (t) => {
    await withGateway({}, async (served) => {
      const client = await served.client(binding);

      await t.step(
        "cancelTask() of a working task ends it CANCELED and disposes the run",
        async () => {
          const task = await startHang(served, binding);
          const canceled = await client.cancelTask({
            tenant: "",
            id: task.id,
            metadata: undefined,
          });
          assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
          assert.equal(seamMeta(canceled).stopReason, "aborted");
          await until(() => served.reference.live.size === 0);
        },
      );

      await t.step(
        "cancelTask() of a completed task is TaskNotCancelableError (-32002)",
        async () => {
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete done"))));
          await assert.rejects(
            client.cancelTask({ tenant: "", id: task.id, metadata: undefined }),
            (error: unknown) => error instanceof TaskNotCancelableError,
          );
        },
      );

      await t.step("cancelTask() of an unknown task is TaskNotFoundError (-32001)", async () => {
        await assert.rejects(
          client.cancelTask({ tenant: "", id: "missing", metadata: undefined }),
          (error: unknown) => error instanceof TaskNotFoundError,
        );
      });

      await t.step("resubscribeTask() to a live task: the task first, then its end", async () => {
        const task = await startHang(served, binding);
        const events: StreamResponse[] = [];
        const stream = client.resubscribeTask({ tenant: "", id: task.id });
        const first = await stream.next();
        events.push(first.value as StreamResponse);
        const cancel = client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
        for await (const event of stream) events.push(event);
        await cancel;
        const seen = kinds(events);
        assert.match(seen[0], /^task:TASK_STATE_(SUBMITTED|WORKING)$/);
        assert.equal(seen.at(-1), "status:TASK_STATE_CANCELED");
      });

      await t.step(
        "resubscribeTask() to a finished task is UnsupportedOperationError",
        async () => {
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete x"))));
          await assert.rejects(
            async () => {
              for await (const _ of client.resubscribeTask({ tenant: "", id: task.id })) {
                // nothing to read
              }
            },
            (error: unknown) => error instanceof UnsupportedOperationError,
          );
        },
      );
    });
  });

  Deno.test(`gateway over ${binding}: the seam extension round trip`, async (t) => {
    await withGateway({}, async (served) => {
      const client = await served.client(binding);
      const withExt = (text: string, ext: Record<string, unknown>) =>
        userMessage(text, { metadata: { [SEAM_EXTENSION_URI]: ext } });

      await t.step("outputSchema: the structured value arrives as a data part", async () => {
        const task = asTask(
          await client.sendMessage(sendRequest(withExt("structured", {
            outputSchema: {
              type: "object",
              properties: { answer: { type: "string" } },
              required: ["answer"],
            },
          }))),
        );
        assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
        const data = task.artifacts[0].parts.find((p) => p.content?.$case === "data");
        assert.deepEqual(data?.content?.value, { answer: "42" });
        assert.equal(data?.mediaType, "application/json");
      });

      await t.step("persona reaches the child", async () => {
        const task = asTask(
          await client.sendMessage(sendRequest(withExt("persona", { persona: "You are Ada." }))),
        );
        assert.equal(textOf(task), "You are Ada.");
      });

      await t.step(
        "a capability the provider lacks is UnsupportedOperationError (-32004)",
        async () => {
          await assert.rejects(
            client.sendMessage(
              sendRequest(withExt("complete x", { persona: "You are Ada." }), { tenant: "bare" }),
            ),
            (error: unknown) =>
              error instanceof UnsupportedOperationError && /persona/.test(error.message),
          );
          assert.equal(served.bare.live.size, 0, "no child was started");
        },
      );

      await t.step("maxDepth holds against the caller's depth", async () => {
        const ok = asTask(
          await client.sendMessage(
            sendRequest(withExt("complete deep", { depth: 1, maxDepth: 2 })),
          ),
        );
        assert.equal(ok.status?.state, TaskState.TASK_STATE_COMPLETED);
        await assert.rejects(
          client.sendMessage(sendRequest(withExt("complete deeper", { depth: 2, maxDepth: 2 }))),
          (error: unknown) =>
            error instanceof RequestMalformedError && /depth 3/.test(error.message),
        );
      });

      await t.step("an unknown extension field is rejected, never ignored", async () => {
        await assert.rejects(
          client.sendMessage(sendRequest(withExt("complete x", { temperature: 2 }))),
          (error: unknown) =>
            error instanceof RequestMalformedError && /temperature/.test(error.message),
        );
      });

      await t.step("an invalid outputSchema is a clear invalid-params error", async () => {
        await assert.rejects(
          client.sendMessage(
            sendRequest(withExt("structured", { outputSchema: { type: "array" } })),
          ),
          (error: unknown) =>
            error instanceof RequestMalformedError && /outputSchema/.test(error.message),
        );
      });

      await t.step("the per-provider card addresses its provider through the tenant", async () => {
        const bareClient = await served.client(binding, {
          cardPath: "/bare/.well-known/agent-card.json",
        });
        const task = asTask(
          await bareClient.sendMessage(sendRequest(userMessage("complete via bare"))),
        );
        assert.equal(seamMeta(task).provider, "bare");
        assert.equal(textOf(task), "via bare");
        assert.equal(
          served.requests.at(-1),
          binding === "JSONRPC" ? "POST /" : "POST /bare/message:send",
        );
        // Its tasks are seen through the same tenant, not through another one.
        const again = await bareClient.getTask({ tenant: "", id: task.id });
        assert.equal(again.id, task.id);
        await assert.rejects(
          client.getTask({ tenant: "reference", id: task.id }),
          (error: unknown) => error instanceof TaskNotFoundError,
        );
      });
    });
  });

  Deno.test(`gateway over ${binding}: bearer auth and per-principal task isolation`, async (t) => {
    await withGateway(
      { auth: { tokens: { alice: "token-alice-0123456789", bob: "token-bob-0123456789" } } },
      async (served) => {
        await t.step("the card is public and declares the bearer scheme", async () => {
          const response = await fetch(`${served.url}/.well-known/agent-card.json`);
          const card = await response.json();
          assert.equal(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme, "Bearer");
          assert.deepEqual(Object.keys(card.securityRequirements[0].schemes), ["bearer"]);
        });

        await t.step("no token or a wrong token is refused with 401", async () => {
          const anonymous = await served.client(binding);
          await assert.rejects(anonymous.sendMessage(sendRequest(userMessage("complete x"))));
          const wrong = await served.client(binding, { token: "token-alice-0123456788" });
          await assert.rejects(wrong.sendMessage(sendRequest(userMessage("complete x"))));
          const raw = await rawRpc(served.url, "GetTask", { id: "x" }, {
            authorization: "Bearer nope",
          });
          assert.equal(raw.status, 401);
          assert.equal(served.reference.live.size, 0);
        });

        await t.step("another principal's task answers task-not-found", async () => {
          const alice = await served.client(binding, { token: "token-alice-0123456789" });
          const bob = await served.client(binding, { token: "token-bob-0123456789" });
          const done = asTask(await alice.sendMessage(sendRequest(userMessage("complete mine"))));
          assert.equal((await alice.getTask({ tenant: "", id: done.id })).id, done.id);
          await assert.rejects(
            bob.getTask({ tenant: "", id: done.id }),
            (error: unknown) => error instanceof TaskNotFoundError,
          );
          const hang = await startHang(
            { ...served, client: (b) => served.client(b, { token: "token-alice-0123456789" }) },
            binding,
          );
          await assert.rejects(
            bob.cancelTask({ tenant: "", id: hang.id, metadata: undefined }),
            (error: unknown) => error instanceof TaskNotFoundError,
          );
          await assert.rejects(
            async () => {
              for await (const _ of bob.resubscribeTask({ tenant: "", id: hang.id })) {
                // never reached
              }
            },
            (error: unknown) => error instanceof TaskNotFoundError,
          );
          const listed = await bob.listTasks({
            tenant: "",
            contextId: "",
            status: TaskState.TASK_STATE_UNSPECIFIED,
            pageSize: 100,
            pageToken: "",
            historyLength: undefined,
            statusTimestampAfter: undefined,
            includeArtifacts: false,
          });
          assert.equal(listed.tasks.length, 0);
          const canceled = await alice.cancelTask({ tenant: "", id: hang.id, metadata: undefined });
          assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
        });
      },
    );
  });
}

Deno.test("gateway: the A2A-Version header is honoured on both bindings", async () => {
  await withGateway({}, async (served) => {
    const rpc = await rawRpc(served.url, "GetTask", { id: "x" }, { "a2a-version": "0.3" });
    assert.equal(rpc.status, 200);
    assert.equal((rpc.body.error as { code: number }).code, -32009);
    const rest = await fetch(`${served.url}/tasks/x`, { headers: { "a2a-version": "2.0" } });
    assert.equal(rest.status, 400);
    const body = await rest.json();
    assert.equal(body.error.details[0].reason, "VERSION_NOT_SUPPORTED");
    // Without the header the request is read as 1.0.
    const plain = await fetch(`${served.url}/tasks/x`);
    assert.equal(plain.status, 404);
    await plain.body?.cancel();
  });
});
