// Interop with Mastra 1.71 as it is (issue 37 item 6, Mastra): Mastra's own
// A2A server (`MastraServer`, `@mastra/hono`) behind seam's A2A provider, and
// Mastra's own A2A client (`A2AAgent`) in front of `serveGateway` (which
// answers A2A 0.3 by default), on loopback, Mastra's mock model: send,
// stream, get, cancel, multi-turn, input required and its answer, an agent
// that fails, a remote refusing calls.
import assert from "node:assert/strict";
import { textOf } from "@seam/host";
import {
  handleSubagentInput,
  type SubagentInputAnswerInput,
  type SubagentInputRequest,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { A2AAgent } from "@mastra/core/a2a";
import { type MastraServed, serveMastra } from "./interop_mastra_support.ts";
import { serveInteropGateway } from "./interop_gateway_support.ts";
import { createMemoryTaskStore } from "../gateway/mod.ts";
import { settle, settleStreamed, withProvider } from "./interop_provider_support.ts";
import { until } from "./a2a_support.ts";

/** Mastra's tasks made since `before` (a count of them). */
const since = (mastra: MastraServed, before: number) => mastra.tasks().slice(before);

Deno.test("seam's A2A provider in front of Mastra's own A2A server", async (t) => {
  const mastra = await serveMastra();
  try {
    await withProvider({ url: mastra.cardUrl }, async (start, root) => {
      await t.step("send: Mastra's agent answers, its words the run's output", async () => {
        const result = await settle(start("hello"));
        assert.equal(result.stopReason, "completed", JSON.stringify(result));
        assert.equal(textOf(result.output), "heard: hello");
      });

      await t.step("stream: each chunk Mastra streams is progress", async () => {
        const { result, progress } = await settleStreamed(
          root,
          () => start("words one two three"),
        );
        assert.equal(result.stopReason, "completed", JSON.stringify(result));
        assert.equal(textOf(result.output), "one two three");
        assert.ok(progress.length > 1, `streamed in pieces: ${JSON.stringify(progress)}`);
        assert.equal(progress.join(""), "one two three");
        assert.equal(mastra.calls.at(-1)?.method, "message/stream");
      });

      await t.step(
        "multi-turn: resume() continues the context, Mastra's memory hears it",
        async () => {
          const before = mastra.tasks().length;
          const first = start("first");
          try {
            assert.equal(textOf((await first.result).output), "heard: first");
            const second = await settle(first.resume!("second"));
            assert.equal(second.stopReason, "completed", JSON.stringify(second));
            assert.equal(textOf(second.output), "heard: first | second");
          } finally {
            await first.dispose();
          }
          const [asked, followed] = since(mastra, before);
          assert.equal(followed.contextId, asked.contextId, "the same context (Mastra's thread)");
          assert.notEqual(followed.id, asked.id, "a new task in it");
        },
      );

      await t.step(
        "cancel: the run ends aborted, Mastra's task canceled, its model call ended",
        async () => {
          const before = mastra.tasks().length;
          const run = start("hang");
          try {
            await run.started;
            await until(() => mastra.model.hanging === 1);
            run.cancel("enough");
            assert.equal((await run.result).stopReason, "aborted");
          } finally {
            await run.dispose();
          }
          const [task] = since(mastra, before);
          assert.equal(task.state, "canceled");
          assert.ok(mastra.calls.some((c) => c.method === "tasks/cancel" && c.taskId === task.id));
          await until(() => mastra.model.hanging === 0);
        },
      );

      /** Start `prompt`, answering its one input request with `answer`; the request and the result. */
      const asking = async (prompt: string, answer: (r: SubagentInputRequest) => unknown) => {
        const before = mastra.tasks().length;
        const asked: SubagentInputRequest[] = [];
        const stop = handleSubagentInput(root, (request) => {
          asked.push(request);
          return answer(request) as SubagentInputAnswerInput;
        });
        try {
          const result = await settle(start(prompt));
          const tasks = since(mastra, before);
          assert.equal(tasks.length, 1, "one task, asked and answered");
          const answers = mastra.calls.filter((c) =>
            c.method === "message/stream" && c.taskId === tasks[0].id
          );
          assert.equal(answers.length, 1, "the answer went to the task");
          return { asked, result, task: tasks[0], sent: answers[0].parts };
        } finally {
          await stop();
        }
      };

      await t.step(
        "a tool needing approval: a permission request naming the tool and its arguments; approve resumes it with {approved: true}",
        async () => {
          const { asked, result, task, sent } = await asking(
            "approve ls -l",
            () => ({ outcome: "selected", optionId: "approve" }),
          );
          assert.equal(asked.length, 1);
          const { kind, message, toolCall, options } = asked[0];
          assert.equal(kind, "permission");
          assert.match(message, /asks to call "run" with \{"command":"ls -l"\}/);
          assert.deepEqual(toolCall, { name: "run", rawInput: { command: "ls -l" } });
          assert.deepEqual(options?.map((o) => [o.id, o.kind]), [
            ["approve", "allow_once"],
            ["decline", "reject_once"],
          ]);
          assert.deepEqual(sent, [
            { kind: "text", text: "approve" },
            { kind: "data", data: { approved: true } },
          ]);
          assert.equal(result.stopReason, "completed", JSON.stringify(result));
          assert.equal(textOf(result.output), 'ran: {"ran":"ls -l"}');
          assert.equal(task.state, "completed");
        },
      );

      await t.step(
        "a tool needing approval, declined: {approved: false}, Mastra does not run it",
        async () => {
          const { result, sent } = await asking(
            "approve rm -rf build",
            () => ({ outcome: "selected", optionId: "decline" }),
          );
          assert.deepEqual(sent?.at(-1), { kind: "data", data: { approved: false } });
          assert.equal(result.stopReason, "completed", JSON.stringify(result));
          assert.match(textOf(result.output), /not approved/);
          assert.doesNotMatch(textOf(result.output), /"ran"/);
        },
      );

      await t.step(
        "a tool that suspends itself: a question in its words about the call; answer.data resumes it",
        async () => {
          const { asked, result, sent } = await asking(
            "pick",
            () => ({ outcome: "answered", data: { file: "b.txt" } }),
          );
          assert.deepEqual(
            asked.map(({ kind, message, toolCall }) => ({ kind, message, toolCall })),
            [{
              kind: "question",
              message: "Which file?",
              toolCall: { name: "pick", rawInput: {} },
            }],
          );
          assert.deepEqual(sent?.at(-1), { kind: "data", data: { file: "b.txt" } });
          assert.equal(result.stopReason, "completed", JSON.stringify(result));
          assert.equal(textOf(result.output), 'ran: {"picked":"b.txt"}');
        },
      );

      await t.step("an agent that fails: the run ends error, Mastra's own words kept", async () => {
        const result = await settle(start("fail"));
        assert.equal(result.stopReason, "error", JSON.stringify(result));
        assert.equal(result.error?.code, "CHILD_FAILED");
        assert.equal(textOf(result.output), "Handler failed: the model is down");
      });
      assert.ok(mastra.tasks().every((task) => task.state !== "working"), "nothing left running");
    });
  } finally {
    await mastra.close();
  }
});

Deno.test("seam's A2A provider reads Mastra's task with GetTask when told it does not stream", async () => {
  const mastra = await serveMastra();
  try {
    const card = await (await fetch(mastra.cardUrl)).json();
    const quiet = { ...card, capabilities: { ...card.capabilities, streaming: false } };
    await withProvider({ card: quiet, pollIntervalMs: 5 }, async (start) => {
      const run = start("hold");
      const result = (async () => await settle(run))();
      await until(() =>
        mastra.calls.some((c) => c.method === "tasks/get" && c.state === "working")
      );
      mastra.model.release();
      const settled = await result;
      assert.equal(settled.stopReason, "completed", JSON.stringify(settled));
      assert.equal(textOf(settled.output), "held, then done");
      assert.ok(!mastra.calls.some((c) => c.method === "message/stream"));
      const reads = mastra.calls.filter((c) => c.method === "tasks/get");
      assert.equal(reads[0].state, "working", "a running task read");
      assert.equal(reads.at(-1)!.state, "completed", "then the finished one");
    });
  } finally {
    await mastra.close();
  }
});

Deno.test("Mastra's server refusing seam's calls: a clear error naming it, nothing left behind", async (t) => {
  const mastra = await serveMastra({ token: "s3cret" });
  try {
    await t.step(
      "no token: createA2AProvider() rejects, naming the card and the status",
      async () => {
        await assert.rejects(createA2AProvider({ url: mastra.cardUrl }), (error: Error) => {
          assert.match(error.message, /401/);
          assert.ok(error.message.includes(mastra.cardUrl), error.message);
          return true;
        });
      },
    );

    await t.step("a token it refuses: the run ends AUTH_REQUIRED, no task over there", async () => {
      const response = await fetch(mastra.cardUrl, { headers: { authorization: "Bearer s3cret" } });
      const card = await response.json();
      await withProvider({ card, token: "wrong" }, async (start) => {
        const result = await settle(start("hello"));
        assert.equal(result.stopReason, "error", JSON.stringify(result));
        assert.equal(result.error?.code, "AUTH_REQUIRED", JSON.stringify(result.error));
        assert.equal((result.error?.data as { status?: number }).status, 401);
      });
      assert.deepEqual(mastra.tasks(), []);
      await withProvider({ card, token: "s3cret" }, async (start) => {
        assert.equal(textOf((await settle(start("hello"))).output), "heard: hello");
      });
    });
  } finally {
    await mastra.close();
  }
});

type Chunk = { type: string; payload?: { text?: string } };

Deno.test("Mastra's A2AAgent against serveGateway, which answers A2A 0.3 by default", async (t) => {
  const served = serveInteropGateway();
  try {
    const agent = new A2AAgent({ url: served.url, id: "seam" });

    await t.step("send: generate() gets the child's answer from a completed task", async () => {
      const result = await agent.generate("@reply hello from mastra");
      assert.equal(result.text, "hello from mastra");
      assert.equal(result.task?.status.state, "completed");
    });

    await t.step("stream: stream() hears the words as the child says them", async () => {
      const stream = await agent.stream("@reply one two three");
      const deltas: string[] = [];
      for await (const chunk of stream.fullStream as AsyncIterable<Chunk>) {
        if (chunk.type === "text-delta") deltas.push(chunk.payload!.text!);
      }
      assert.deepEqual(deltas.slice(0, 3), ["one ", "two ", "three"], "word by word");
      const result = await stream.getResult();
      assert.equal(result.text, "one two three");
      assert.equal(result.task?.status.state, "completed");
    });

    await t.step(
      "multi-turn: the conversation A2AAgent sends reaches the child whole",
      async () => {
        const result = await agent.generate([
          { role: "user", content: "first" },
          { role: "assistant", content: "heard: first" },
          { role: "user", content: "second" },
        ]);
        assert.equal(result.task?.status.state, "completed");
        assert.match(result.text, /^heard: user: first\s+assistant: heard: first\s+user: second$/);
      },
    );

    const asks = new A2AAgent({
      url: `${served.url}/asks/.well-known/agent-card.json`,
      id: "asks",
    });

    await t.step(
      "input required: generate() suspends on the question, resumeGenerate() answers the task",
      async () => {
        const asked = await asks.generate("Which file should I read?");
        assert.equal(asked.finishReason, "suspended");
        assert.equal(asked.task?.status.state, "input-required");
        assert.match(asked.text, /Which file should I read\?/);
        const answered = await asks.resumeGenerate("report.txt", { runId: asked.runId });
        assert.equal(answered.task?.id, asked.task?.id, "the same task");
        assert.equal(answered.task?.status.state, "completed");
        assert.equal(answered.text, "reading report.txt");
      },
    );

    await t.step(
      "input required, streamed: resumeStream() answers the task and finishes, not suspended",
      async () => {
        await streamedAnswer(asks, "Which file now?", "notes.md");
      },
    );

    await t.step(
      "input required, an object answer: resumeGenerate() sends it as JSON words and data, the child hears it once, as answer.data",
      async () => {
        const asked = await asks.generate("Which file, as data?");
        assert.equal(asked.task?.status.state, "input-required");
        const answered = await asks.resumeGenerate({ file: "b.txt" }, { runId: asked.runId });
        assert.equal(answered.task?.status.state, "completed");
        assert.deepEqual(served.answers.at(-1), {
          outcome: "answered",
          text: '{"file":"b.txt"}',
          data: { file: "b.txt" },
        });
        assert.equal(answered.text, 'reading {"file":"b.txt"}');
      },
    );

    await t.step("an agent that fails: the task ends failed, saying why", async () => {
      const result = await agent.generate("@fail the model is down");
      assert.equal(result.task?.status.state, "failed");
      assert.match(result.text, /the model is down \(CHILD_FAILED\)/);
    });
    await until(() => served.gateway.liveTasks === 0);
    assert.deepEqual(served.asked, [
      "Which file should I read?",
      "Which file now?",
      "Which file, as data?",
    ]);
  } finally {
    await served.close();
  }
});

Deno.test("Mastra's A2AAgent against serveGateway on a shared storage: resumeStream() finishes, not suspended", async () => {
  const served = serveInteropGateway({
    taskStore: createMemoryTaskStore({ shared: true, leaseTtlMs: 10_000 }),
  });
  try {
    const asks = new A2AAgent({
      url: `${served.url}/asks/.well-known/agent-card.json`,
      id: "asks",
    });
    await streamedAnswer(asks, "Which file here?", "notes.md");
    await until(() => served.gateway.liveTasks === 0);
  } finally {
    await served.close();
  }
});

/**
 * Ask `question` of `asks` with stream(), answer it with resumeStream(): the
 * answer's stream ends as the task does (completed, `finishReason` "stop"),
 * not at the question it answered.
 */
async function streamedAnswer(asks: A2AAgent, question: string, file: string): Promise<void> {
  const stream = await asks.stream(question);
  for await (const _ of stream.fullStream as AsyncIterable<Chunk>) { /* to the question */ }
  const asked = await stream.getResult();
  assert.equal(asked.task?.status.state, "input-required");
  assert.equal(asked.finishReason, "suspended");
  const resumed = await asks.resumeStream(file, { runId: asked.runId });
  const chunks: string[] = [];
  for await (const chunk of resumed.fullStream as AsyncIterable<Chunk>) chunks.push(chunk.type);
  const answered = await resumed.getResult();
  assert.equal(answered.task?.id, asked.task?.id, "the same task");
  assert.equal(answered.task?.status.state, "completed");
  assert.equal(answered.text, `reading ${file}`);
  assert.equal(answered.finishReason, "stop", JSON.stringify(chunks));
  assert.ok(!chunks.includes("tool-call-suspended"), JSON.stringify(chunks));
}

Deno.test("serveGateway refuses Mastra's A2AAgent without its token: a clear error, no task", async () => {
  const served = serveInteropGateway({ auth: { tokens: { alice: "s3cret" } } });
  const refusals: string[] = [];
  // A2AAgent throws on a refusal without reading its body (which Deno's
  // sanitizer reports as a leak): read it here, and keep what it said.
  const reading: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.ok) return response;
    const body = await response.text();
    refusals.push(`${response.status} ${body}`);
    return new Response(body, { status: response.status, headers: response.headers });
  };
  try {
    const refused = new A2AAgent({ url: served.url, id: "seam", fetch: reading });
    await assert.rejects(refused.generate("@reply never"), /status 401/);
    assert.equal(refusals.length, 1);
    assert.match(refusals[0], /^401 .*Unauthenticated: send Authorization: Bearer <token>/);
    assert.equal(served.gateway.liveTasks, 0);
    assert.equal(served.children(), 0);
    const allowed = new A2AAgent({
      url: served.url,
      id: "seam",
      fetch: reading,
      headers: { authorization: "Bearer s3cret" },
    });
    assert.equal((await allowed.generate("@reply welcome")).text, "welcome");
  } finally {
    await served.close();
  }
});
