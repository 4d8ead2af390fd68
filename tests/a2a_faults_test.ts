// Faults: a remote that refuses the connection, answers 500, closes the
// stream mid-task, never answers, or sends malformed events. Each ends the
// run `error` with a clear note (or `aborted` after a cancel), the remote
// task is cancelled where it is still live, and nothing leaks (sanitizers
// on: every timer cleared, every body consumed or cancelled).
import assert from "node:assert/strict";
import { subagentProgress } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { until } from "./a2a_support.ts";
import {
  CONTEXT,
  fakeAgent,
  parentScope,
  prompt,
  type Send,
  settle,
  status,
  TASK,
  task,
  withProvider,
  words,
} from "./a2a_fake_agent.ts";

Deno.test("a refused connection: discovery rejects, a run ends error", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${listener.addr.port}`;
  listener.close();
  await assert.rejects(
    createA2AProvider({ url, timeoutMs: 1_000 }),
    /Cannot create A2A provider: .*(refused|error sending request)/i,
  );
  const { root, parent } = parentScope();
  const provider = await createA2AProvider({
    card: {
      name: "gone",
      supportedInterfaces: [{ url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: { streaming: true },
    },
  });
  try {
    const run = provider.start({ prompt, parent });
    const result = await settle(run);
    assert.equal(result.stopReason, "error");
    assert.match(
      result.why,
      /The A2A run failed \(SendStreamingMessage\): .*(refused|error sending)/i,
    );
    await assert.rejects(run.started);
    await run.dispose();
  } finally {
    await provider.dispose();
    await root.dispose();
  }
});

Deno.test("HTTP 500 ends the run error with the status", async () => {
  const agent = fakeAgent({ raw: () => new Response("boom", { status: 500 }) });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settle(run);
    assert.equal(result.stopReason, "error");
    assert.match(result.why, /500/);
    assert.equal(result.error?.code, "START_FAILED");
    assert.deepEqual(result.error?.data, { call: "SendStreamingMessage", status: 500 });
    await run.dispose();
  });
});

Deno.test("a stream closed mid-task is re-attached with SubscribeToTask and loses nothing", async () => {
  const agent = fakeAgent({
    stream: (send, { close }) => {
      send(task("TASK_STATE_SUBMITTED"));
      send(status("TASK_STATE_WORKING"));
      send(words("one ", false));
      close(); // the blip
    },
    resubscribe: (send, { close }) => {
      // The snapshot carries what was streamed, plus what the client missed.
      send(
        task("TASK_STATE_WORKING", {
          artifacts: [{ artifactId: "out", parts: [{ text: "one two " }] }],
        }),
      );
      send(words("three", true));
      send(status("TASK_STATE_COMPLETED"));
      close();
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const progress: string[] = [];
    parent.scope.on(subagentProgress, (info) => {
      if (info.kind === "text") progress.push(info.text!);
    });
    const run = provider.start({ prompt, parent });
    const result = await settle(run);
    assert.equal(result.stopReason, "completed");
    assert.equal(result.text, "one two three");
    assert.deepEqual(progress, ["one ", "two ", "three"]);
    assert.deepEqual(agent.calls, ["SendStreamingMessage", "SubscribeToTask"]);
    await run.dispose();
  });
});

Deno.test("a stream that cannot be re-attached ends error and the task is cancelled", async (t) => {
  await t.step("re-attaching keeps failing (502)", async () => {
    const agent = fakeAgent({
      stream: (send, { close }) => {
        send(task("TASK_STATE_WORKING"));
        send(words("partial", false));
        close();
      },
      resubscribe: "fail",
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settle(run);
      assert.equal(result.stopReason, "error");
      assert.equal(result.text, "partial");
      assert.match(result.why, /lost remote task "task-1" .* 2 attempt\(s\) to re-attach failed/);
      assert.deepEqual(result.error?.code, "CONNECTION_LOST");
      assert.deepEqual(result.error?.data, {
        call: "SubscribeToTask",
        status: 502,
        taskId: "task-1",
        retries: 2,
      });
      await run.dispose();
      assert.deepEqual(agent.calls, [
        "SendStreamingMessage",
        "SubscribeToTask",
        "SubscribeToTask",
        "CancelTask",
      ]);
    });
  });

  await t.step("the agent refuses to re-attach: GetTask polling finds the end", async () => {
    let polls = 0;
    const agent = fakeAgent({
      stream: (send, { close }) => {
        send(task("TASK_STATE_WORKING"));
        close();
      },
      resubscribe: "refuse",
      getTask: () =>
        ++polls < 2 ? task("TASK_STATE_WORKING") : task("TASK_STATE_COMPLETED", {
          artifacts: [{ artifactId: "out", parts: [{ text: "done" }] }],
        }),
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settle(run);
      assert.equal(result.stopReason, "completed");
      assert.equal(result.text, "done");
      await run.dispose();
      assert.deepEqual(agent.calls, [
        "SendStreamingMessage",
        "SubscribeToTask",
        "GetTask",
        "GetTask",
      ]);
    }, { pollIntervalMs: 5 });
  });

  await t.step("reconnect: false ends error at the first drop", async () => {
    const agent = fakeAgent({
      stream: (send, { close }) => {
        send(task("TASK_STATE_WORKING"));
        close();
      },
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settle(run);
      assert.equal(result.stopReason, "error");
      assert.match(result.why, /reconnect is off/);
      await run.dispose();
      assert.deepEqual(agent.calls, ["SendStreamingMessage", "CancelTask"]);
    }, { reconnect: false });
  });
});

Deno.test("a remote that never answers times out", async (t) => {
  await t.step("no response at all", async () => {
    const agent = fakeAgent({
      raw: (_request, hang) => hang(),
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settle(run);
      assert.equal(result.stopReason, "error");
      assert.match(result.why, /did not answer SendStreamingMessage within 300 ms \(timeoutMs\)/);
      assert.deepEqual(result.error?.data, {
        call: "SendStreamingMessage",
        option: "timeoutMs",
        ms: 300,
      });
      await run.dispose();
    });
  });

  await t.step("a stream that sends no event", async () => {
    const agent = fakeAgent({ stream: () => {} });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settle(run);
      assert.equal(result.stopReason, "error");
      assert.match(result.why, /did not answer SendStreamingMessage within 300 ms/);
      await run.dispose();
    });
  });

  await t.step("an in-process fetch that never settles, and a body that never ends", async () => {
    const { root, parent } = parentScope();
    const card = {
      name: "in-process",
      supportedInterfaces: [{
        url: "http://x.test/",
        protocolBinding: "JSONRPC",
        protocolVersion: "1.0",
      }],
      capabilities: { streaming: true },
    };
    const never = await createA2AProvider({
      card,
      timeoutMs: 100,
      fetch: () => new Promise<Response>(() => {}),
    });
    const silent = await createA2AProvider({
      card,
      timeoutMs: 100,
      fetch: () =>
        Promise.resolve(
          new Response(
            new ReadableStream({
              start(c) {
                const frame = { jsonrpc: "2.0", id: 1, result: task("TASK_STATE_WORKING") };
                c.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(frame)}\n\n`));
              },
            }),
            { headers: { "content-type": "text/event-stream" } },
          ),
        ),
    });
    try {
      const first = never.start({ prompt, parent });
      assert.match((await settle(first)).why, /did not answer SendStreamingMessage within 100 ms/);
      await first.dispose();
      const second = silent.start({ prompt, parent });
      await second.started;
      second.cancel();
      assert.equal((await second.result).stopReason, "aborted");
      // Its CancelTask goes to a fetch whose answer never ends: bounded by timeoutMs.
      await second.dispose();
    } finally {
      await never.dispose();
      await silent.dispose();
      await root.dispose();
    }
  });
});

Deno.test("malformed events end the run error and cancel the live task", async (t) => {
  const cases: [string, (send: Send, raw: (text: string) => void) => void, RegExp][] = [
    ["an event that is not JSON", (send, raw) => {
      send(task("TASK_STATE_WORKING"));
      raw("data: {not json\n\n");
    }, /Failed to parse SSE event data/],
    ["an event that is none of the four kinds", (send) => {
      send(task("TASK_STATE_WORKING"));
      send({ bogus: true });
    }, /none of task, message, statusUpdate, artifactUpdate/],
    ["an event of another task", (send) => {
      send(task("TASK_STATE_WORKING"));
      send({
        statusUpdate: {
          taskId: "other",
          contextId: CONTEXT,
          status: { state: "TASK_STATE_WORKING" },
        },
      });
    }, /event of task "other" on the stream of task "task-1"/],
    ["a status with no state", (send) => {
      send(task("TASK_STATE_WORKING"));
      send({ statusUpdate: { taskId: TASK, contextId: CONTEXT } });
    }, /status with no state/],
  ];
  for (const [name, script, expected] of cases) {
    await t.step(name, async () => {
      const encoder = new TextEncoder();
      const agent = fakeAgent({
        raw: () =>
          new Response(
            new ReadableStream<Uint8Array>({
              start(c) {
                const send: Send = (result) =>
                  c.enqueue(
                    encoder.encode(
                      `data: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result })}\n\n`,
                    ),
                  );
                script(send, (text) => c.enqueue(encoder.encode(text)));
                c.close();
              },
            }),
            { headers: { "content-type": "text/event-stream" } },
          ),
      });
      await withProvider(agent, async (provider, parent) => {
        const run = provider.start({ prompt, parent });
        const result = await settle(run);
        assert.equal(result.stopReason, "error");
        assert.match(result.why, expected);
        await run.dispose();
        assert.deepEqual(agent.calls, ["SendStreamingMessage", "CancelTask"]);
      });
    });
  }
});

Deno.test("cancel mid-run ends aborted at once and cancels the remote task", async () => {
  const agent = fakeAgent({
    stream: (send) => {
      send(task("TASK_STATE_WORKING"));
      send(words("some", false));
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    await run.started;
    await until(() => agent.calls.length === 1);
    run.cancel("stop");
    const result = await settle(run);
    assert.equal(result.stopReason, "aborted");
    await run.dispose();
    assert.deepEqual(agent.calls, ["SendStreamingMessage", "CancelTask"]);
  });
});

Deno.test("cancel before the task exists still cancels it once it appears", async () => {
  const agent = fakeAgent({
    stream: async (send) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      send(task("TASK_STATE_WORKING"));
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    await until(() => agent.calls.length === 1);
    run.cancel();
    assert.equal((await run.result).stopReason, "aborted");
    await assert.rejects(run.started);
    await run.dispose();
    assert.deepEqual(agent.calls, ["SendStreamingMessage", "CancelTask"]);
  });
});
