// Remotes whose answers break the protocol, each a real server on loopback: a
// GetTask poll answered with what is not JSON, not a JSON-RPC response, or not a
// task. The run ends PROTOCOL_ERROR naming what was wrong, at the first such
// answer (asking again will not mend it), and the remote task is cancelled.
// And the reason of a refusal, cut to its bound without breaking the text.
import assert from "node:assert/strict";
import { fakeAgent, prompt, settleWithin, status, task, withProvider } from "./a2a_fake_agent.ts";

/** GetTask answers that break the protocol, and what the run's error must name. */
const garbage: Record<string, { answer: (id: unknown) => Response; names: RegExp }> = {
  "not JSON": {
    answer: () => new Response("<html>oops</html>", { headers: { "content-type": "text/html" } }),
    names: /not valid JSON/,
  },
  "JSON that is not a JSON-RPC response": {
    answer: () => Response.json({ hello: "world" }),
    names: /expected 'jsonrpc' to be exactly '2\.0'/,
  },
  "a JSON-RPC response to another request": {
    answer: (id) => Response.json({ jsonrpc: "2.0", id: `${id}-other`, result: {} }),
    names: /ID mismatch/,
  },
  "a result that is not a task": {
    answer: (id) => Response.json({ jsonrpc: "2.0", id, result: null }),
    names: /null/,
  },
};

Deno.test("a GetTask poll answered with garbage ends the run PROTOCOL_ERROR at once, not retried as a lost connection", async (t) => {
  for (const [name, { answer, names }] of Object.entries(garbage)) {
    await t.step(name, async () => {
      const agent = fakeAgent({ streaming: false, getTaskResponse: answer });
      await withProvider(agent, async (provider, parent) => {
        const run = provider.start({ prompt, parent });
        const result = await settleWithin(run);
        assert.equal(result.stopReason, "error");
        assert.equal(result.error?.code, "PROTOCOL_ERROR", result.why);
        assert.match(
          result.why,
          /^The A2A run failed \(GetTask\): the remote agent broke the protocol: its GetTask answer cannot be read \(/,
        );
        assert.match(result.why, names);
        assert.deepEqual(result.error?.data, { call: "GetTask" });
        await run.dispose();
        assert.deepEqual(agent.calls, ["SendMessage", "GetTask", "CancelTask"]);
      }, { pollIntervalMs: 5, reconnect: { retries: 5, delayMs: 5 } });
    });
  }
});

Deno.test("a GetTask poll after a stream that cannot be re-attached, answered with garbage, ends the run PROTOCOL_ERROR", async () => {
  const agent = fakeAgent({
    stream: (send, { close }) => {
      send(task("TASK_STATE_WORKING"));
      send(status("TASK_STATE_WORKING", "on it"));
      close();
    },
    resubscribe: "refuse",
    getTaskResponse: garbage["not JSON"].answer,
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.error?.code, "PROTOCOL_ERROR", result.why);
    assert.match(result.why, /\(GetTask\): the remote agent broke the protocol: .*not valid JSON/);
    await run.dispose();
    assert.deepEqual(agent.calls, [
      "SendStreamingMessage",
      "SubscribeToTask",
      "GetTask",
      "CancelTask",
    ]);
  }, { pollIntervalMs: 5, reconnect: { retries: 5, delayMs: 5 } });
});

Deno.test("an event stream whose first event cannot be read ends the run PROTOCOL_ERROR, not retried as a lost connection", async (t) => {
  const garbled = (raw: (text: string) => void, close: () => void) => {
    raw("data: <html>oops</html>\n\n");
    close();
  };
  await t.step("a re-attached stream", async () => {
    const agent = fakeAgent({
      stream: (send, { close }) => {
        send(task("TASK_STATE_WORKING"));
        close();
      },
      resubscribe: (_send, { raw, close }) => garbled(raw, close),
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settleWithin(run);
      assert.equal(result.error?.code, "PROTOCOL_ERROR", result.why);
      assert.match(
        result.why,
        /\(SubscribeToTask\): Failed to parse SSE event data: .*not valid JSON/,
      );
      await run.dispose();
      assert.deepEqual(agent.calls, ["SendStreamingMessage", "SubscribeToTask", "CancelTask"]);
    }, { reconnect: { retries: 5, delayMs: 5 } });
  });
  await t.step("the first stream, before a task exists", async () => {
    const agent = fakeAgent({ stream: (_send, { raw, close }) => garbled(raw, close) });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      await assert.rejects(run.started, /Failed to parse SSE event data/);
      const result = await settleWithin(run);
      assert.equal(result.error?.code, "PROTOCOL_ERROR", result.why);
      assert.match(result.why, /\(SendStreamingMessage\): Failed to parse SSE event data/);
      await run.dispose();
    });
  });
});

Deno.test("a 401's reason is cut to 300 characters without splitting a surrogate pair", async (t) => {
  for (
    const [name, body] of Object.entries({
      "a JSON-RPC error's message": (message: string) =>
        Response.json({ jsonrpc: "2.0", id: 1, error: { code: 401, message } }, { status: 401 }),
      "a body of plain text": (message: string) => new Response(message, { status: 401 }),
    })
  ) {
    await t.step(name, async () => {
      const agent = fakeAgent({
        stream: (send) => send(task("TASK_STATE_WORKING")),
        intercept: (request) =>
          request.method === "POST" ? body("y".repeat(299) + "\u{1F600}".repeat(100)) : undefined,
      });
      await withProvider(agent, async (provider, parent) => {
        const result = await settleWithin(provider.start({ prompt, parent }));
        assert.equal(result.error?.code, "AUTH_REQUIRED", result.why);
        assert.equal((result.error?.data as { reason?: string })?.reason, "y".repeat(299));
      });
    });
  }
});

Deno.test("a GetTask answer whose body breaks off is a lost connection, polled again", async () => {
  let polls = 0;
  const agent = fakeAgent({
    streaming: false,
    getTaskResponse: (id) => {
      if (++polls > 1) {
        return Response.json({ jsonrpc: "2.0", id, result: task("TASK_STATE_COMPLETED").task });
      }
      const head = new TextEncoder().encode(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"res`);
      return new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(head);
            setTimeout(() => controller.error(new Error("the connection broke")), 5);
          },
        }),
        { headers: { "content-type": "application/json" } },
      );
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.stopReason, "completed", result.why);
    await run.dispose();
    assert.deepEqual(agent.calls, ["SendMessage", "GetTask", "GetTask"]);
  }, { pollIntervalMs: 5, reconnect: { retries: 2, delayMs: 5 } });
});
