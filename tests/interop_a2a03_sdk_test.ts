// Interop with the A2A 0.3 line as it is (issue 37 item 6, the 0.3 SDK):
// `@a2a-js/sdk` 0.3.14's own server behind seam's A2A provider, and its own
// client in front of `serveGateway` (which answers 0.3 by default), all on
// loopback, no model: send, stream, get, cancel, multi-turn, input required
// and its answer, an agent that throws, a call the peer refuses.
import assert from "node:assert/strict";
import { textOf } from "@seam/host";
import { handleSubagentInput } from "@seam/subagent";
import type { Message, Task } from "@a2a-js/sdk-03";
import { type Client, ClientFactory } from "@a2a-js/sdk-03/client";
import { serveSdk03 } from "./interop_a2a03_support.ts";
import { serveInteropGateway } from "./interop_gateway_support.ts";
import { settle, settleStreamed, withProvider } from "./interop_provider_support.ts";
import { until } from "./a2a_support.ts";

/** `withProvider` for the 0.3 SDK's server at `url`, its log of the agent's throw silenced. */
async function withSdk03(
  url: string,
  fn: Parameters<typeof withProvider>[1],
): Promise<void> {
  const quiet = console.error;
  console.error = () => {};
  try {
    await withProvider({ url, pollIntervalMs: 5 }, fn);
  } finally {
    console.error = quiet;
  }
}

Deno.test("seam's A2A provider in front of the 0.3 SDK's own server", async (t) => {
  const remote = await serveSdk03();
  try {
    await withSdk03(remote.url, async (start, root) => {
      await t.step("send: the agent's answer is the run's output", async () => {
        const result = await settle(start("hello there"));
        assert.equal(result.stopReason, "completed", JSON.stringify(result));
        assert.equal(textOf(result.output), "echo: hello there");
      });

      await t.step("stream: each artifact chunk is progress, their text the output", async () => {
        const { result, progress } = await settleStreamed(
          root,
          () => start("words one two three"),
        );
        assert.equal(result.stopReason, "completed", JSON.stringify(result));
        assert.equal(textOf(result.output), "one two three");
        assert.equal(progress.join(""), "one two three");
        assert.ok(remote.calls.some((c) => c.method === "message/stream"));
      });

      await t.step("multi-turn: resume() continues the context, the agent hears it", async () => {
        const first = start("first");
        try {
          assert.equal(textOf((await first.result).output), "echo: first");
          const second = first.resume!("second");
          try {
            const result = await second.result;
            assert.equal(result.stopReason, "completed", JSON.stringify(result));
            assert.equal(textOf(result.output), "echo: second (after: first)");
          } finally {
            await second.dispose();
          }
        } finally {
          await first.dispose();
        }
        const [asked, followed] = remote.received.slice(-2);
        assert.equal(followed.contextId, asked.contextId, "the same context");
        assert.notEqual(followed.taskId, asked.taskId, "a new task in it");
      });

      await t.step(
        "cancel: the run ends aborted, the SDK's task canceled, nothing runs",
        async () => {
          const run = start("hang");
          try {
            await run.started;
            await until(() => remote.running() === 1);
            run.cancel("enough");
            assert.equal((await run.result).stopReason, "aborted");
          } finally {
            await run.dispose();
          }
          const { taskId } = remote.received.at(-1)!;
          assert.deepEqual(remote.cancelled, [taskId]);
          assert.ok(remote.calls.some((c) => c.method === "tasks/cancel" && c.taskId === taskId));
          assert.equal((await remote.task(taskId))?.status.state, "canceled");
          await until(() => remote.running() === 0);
        },
      );

      await t.step(
        "input required: the question goes up, the answer to the same task",
        async () => {
          const questions: string[] = [];
          const stop = handleSubagentInput(root, (request) => {
            questions.push(request.message);
            return { outcome: "answered", text: "report.txt" };
          });
          try {
            const result = await settle(start("ask which file?"));
            assert.equal(result.stopReason, "completed", JSON.stringify(result));
            assert.equal(textOf(result.output), "got: report.txt");
          } finally {
            await stop();
          }
          assert.deepEqual(questions, ["which file?"]);
          const [question, answer] = remote.received.slice(-2);
          assert.equal(answer.taskId, question.taskId);
          assert.equal(answer.text, "report.txt");
        },
      );

      await t.step(
        "input required, no handler: the run ends saying so; resume() answers it",
        async () => {
          const first = start("ask which file?");
          try {
            const result = await first.result;
            assert.equal(result.stopReason, "error");
            assert.equal(result.error?.code, "INPUT_REQUIRED");
            assert.match(textOf(result.output), /which file\?/);
            const second = first.resume!("notes.md");
            try {
              assert.equal(textOf((await second.result).output), "got: notes.md");
            } finally {
              await second.dispose();
            }
          } finally {
            await first.dispose();
          }
          const [question, answer] = remote.received.slice(-2);
          assert.equal(answer.taskId, question.taskId);
          assert.equal((await remote.task(answer.taskId))?.status.state, "completed");
        },
      );

      await t.step(
        "the SDK refuses an answer to a task its own client cancelled meanwhile: error, its words",
        async () => {
          const client = await new ClientFactory().createFromUrl(remote.url);
          const stop = handleSubagentInput(root, async () => {
            const { taskId } = remote.received.at(-1)!;
            assert.equal((await client.cancelTask({ id: taskId })).status.state, "canceled");
            return { outcome: "answered", text: "too late" };
          });
          try {
            const result = await settle(start("ask which file?"));
            assert.equal(result.stopReason, "error", JSON.stringify(result));
            assert.equal(result.error?.code, "CHILD_FAILED", JSON.stringify(result.error));
            assert.match(result.error!.message, /terminal state \(canceled\)/);
          } finally {
            await stop();
          }
          assert.equal(remote.received.at(-1)!.text, "ask which file?", "nothing new ran");
          assert.equal(remote.running(), 0);
        },
      );

      await t.step(
        "resume() of a task cancelled over there since: the first request refused, its words",
        async () => {
          const first = start("ask which file?");
          try {
            assert.equal((await first.result).error?.code, "INPUT_REQUIRED");
            const { taskId } = remote.received.at(-1)!;
            const client = await new ClientFactory().createFromUrl(remote.url);
            assert.equal((await client.cancelTask({ id: taskId })).status.state, "canceled");
            const second = first.resume!("too late");
            try {
              const result = await second.result;
              assert.equal(result.stopReason, "error", JSON.stringify(result));
              assert.equal(result.error?.code, "START_FAILED", JSON.stringify(result.error));
              assert.match(result.error!.message, /terminal state \(canceled\)/);
            } finally {
              await second.dispose();
            }
            assert.equal(remote.received.at(-1)!.taskId, taskId, "nothing new ran");
          } finally {
            await first.dispose();
          }
          assert.equal(remote.running(), 0);
        },
      );

      await t.step(
        "an agent that throws: the run ends error with the agent's own text",
        async () => {
          const result = await settle(start("throw"));
          assert.equal(result.stopReason, "error", JSON.stringify(result));
          assert.match(JSON.stringify(result), /Agent execution error: no model is configured/);
          assert.doesNotMatch(JSON.stringify(result), /on the stream of task/);
        },
      );
    });
  } finally {
    await remote.close();
  }
});

Deno.test("seam's A2A provider polls the 0.3 SDK's server with GetTask when it does not stream", async () => {
  const remote = await serveSdk03({ streaming: false });
  try {
    await withSdk03(remote.url, async (start) => {
      const run = start("slow");
      try {
        const result = await run.result;
        assert.equal(result.stopReason, "completed", JSON.stringify(result));
        assert.equal(textOf(result.output), "done slowly");
      } finally {
        await run.dispose();
      }
      const { taskId } = remote.received.at(-1)!;
      const reads = remote.calls.filter((c) => c.method === "tasks/get" && c.taskId === taskId);
      assert.ok(!remote.calls.some((c) => c.method === "message/stream"));
      assert.match(reads[0]?.state ?? "", /^(submitted|working)$/, "a running task read");
      assert.equal(reads.at(-1)?.state, "completed", "then the finished task");
    });
  } finally {
    await remote.close();
  }
});

const say = (text: string, extra: Partial<Message> = {}): { message: Message } => ({
  message: {
    kind: "message",
    messageId: crypto.randomUUID(),
    role: "user",
    parts: [{ kind: "text", text }],
    ...extra,
  },
});

function artifactText(task: Task): string {
  return (task.artifacts ?? []).flatMap((a) => a.parts)
    .map((p) => p.kind === "text" ? p.text : "").join("");
}

function asTask(answer: unknown): Task {
  assert.equal((answer as Task).kind, "task", JSON.stringify(answer));
  return answer as Task;
}

Deno.test("the 0.3 SDK's own client against serveGateway, which answers 0.3 by default", async (t) => {
  const served = serveInteropGateway();
  try {
    const client: Client = await new ClientFactory().createFromUrl(served.url);

    await t.step("send: a completed task, the answer in its artifacts", async () => {
      const answer = await client.sendMessage({
        ...say("@reply hello from 0.3"),
        configuration: { blocking: true },
      });
      const task = asTask(answer);
      assert.equal(task.status.state, "completed", JSON.stringify(answer));
      assert.match(JSON.stringify(task.artifacts), /hello from 0\.3/);
    });

    await t.step("stream: the task, working, the words, completed (final)", async () => {
      const kinds: string[] = [];
      let text = "";
      for await (const event of client.sendMessageStream(say("@reply one two three"))) {
        if (event.kind === "task") kinds.push(`task:${event.status.state}`);
        if (event.kind === "status-update") kinds.push(`status:${event.status.state}`);
        if (event.kind === "artifact-update") {
          kinds.push("artifact");
          const chunk = event.artifact.parts.map((p) => p.kind === "text" ? p.text : "").join("");
          text = event.append ? text + chunk : chunk;
        }
      }
      assert.equal(kinds[0], "task:submitted", kinds.join());
      assert.ok(kinds.includes("status:working"), kinds.join());
      assert.ok(kinds.includes("artifact"), kinds.join());
      assert.equal(kinds.at(-1), "status:completed", kinds.join());
      assert.equal(text.trim(), "one two three");
    });

    await t.step("get: a finished task as it ended, a running one as it runs", async () => {
      const done = asTask(await client.sendMessage(say("@reply kept")));
      const got = await client.getTask({ id: done.id });
      assert.equal(got.status.state, "completed");
      assert.equal(artifactText(got).trim(), "kept");
      const children = served.children();
      const running = asTask(
        await client.sendMessage({ ...say("@hang"), configuration: { blocking: false } }),
      );
      await until(() => served.children() === children + 1);
      const now = await client.getTask({ id: running.id });
      assert.match(now.status.state, /^(submitted|working)$/);

      // cancel (of that running task): canceled over there, its child gone, no task left.
      const canceled = await client.cancelTask({ id: running.id });
      assert.equal(canceled.status.state, "canceled");
      assert.equal((await client.getTask({ id: running.id })).status.state, "canceled");
      await until(() => served.children() === children && served.gateway.liveTasks === 0);
    });

    await t.step(
      "multi-turn: a message in the same context continues the conversation",
      async () => {
        const first = asTask(await client.sendMessage(say("first")));
        assert.equal(artifactText(first).trim(), "heard: first");
        const second = asTask(
          await client.sendMessage(say("second", { contextId: first.contextId })),
        );
        assert.equal(second.contextId, first.contextId);
        assert.notEqual(second.id, first.id, "a new task in the context");
        assert.equal(second.status.state, "completed", JSON.stringify(second.status));
        assert.equal(artifactText(second).trim(), "heard: first | second");
      },
    );

    await t.step("input required: the question in words, the answer ends the task", async () => {
      const asks = await new ClientFactory().createFromUrl(
        `${served.url}/asks/.well-known/agent-card.json`,
        "",
      );
      const asked = asTask(await asks.sendMessage(say("Which file should I read?")));
      assert.equal(asked.status.state, "input-required", JSON.stringify(asked.status));
      const words = asked.status.message?.parts.map((p) => p.kind === "text" ? p.text : "");
      assert.match(words?.join("") ?? "", /Which file should I read\?/);
      const done = asTask(
        await asks.sendMessage(
          say("report.txt", { taskId: asked.id, contextId: asked.contextId }),
        ),
      );
      assert.equal(done.id, asked.id, "the same task");
      assert.equal(done.status.state, "completed", JSON.stringify(done.status));
      assert.equal(artifactText(done).trim(), "reading report.txt");
    });

    await t.step("an agent that fails: the task ends failed, saying why", async () => {
      const failed = asTask(await client.sendMessage(say("@fail the model is down")));
      assert.equal(failed.status.state, "failed");
      assert.match(JSON.stringify(failed.status.message), /the model is down/);
      await until(() => served.gateway.liveTasks === 0);
    });
  } finally {
    await served.close();
  }
});

Deno.test("serveGateway refuses the 0.3 SDK's client without its token: a clear error, no task", async () => {
  const served = serveInteropGateway({ auth: { tokens: { alice: "s3cret" } } });
  try {
    const client = await new ClientFactory().createFromUrl(served.url);
    await assert.rejects(
      () => client.sendMessage(say("@reply never")),
      (error: Error) => {
        assert.match(error.message, /Unauthenticated: send Authorization: Bearer <token>/);
        return true;
      },
    );
    assert.equal(served.gateway.liveTasks, 0);
    assert.equal(served.children(), 0);
  } finally {
    await served.close();
  }
});
