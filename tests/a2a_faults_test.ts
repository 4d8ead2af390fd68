// Faults: a remote that refuses the connection, answers 500, closes the
// stream mid-task, never answers, or sends malformed events. Each ends the
// run `error` with a clear note (or `aborted` after a cancel), the remote
// task is cancelled where it is still live, and nothing leaks (sanitizers
// on: every timer cleared, every body consumed or cancelled).
import assert from "node:assert/strict";
import { type ContentBlock, createMemoryLogger, createRootScope, textOf } from "@seam/host";
import { subagentProgress, type SubagentResultInput, type SubagentRunHandle } from "@seam/subagent";
import { type A2AProvider, createA2AProvider } from "@seam/subagent-a2a";
import { serveRaw, until } from "./a2a_support.ts";

type Frame = Record<string, unknown>;
type Send = (result: Frame) => void;

/** What a fake agent does with a streaming request (or a resubscription). */
type StreamScript = (send: Send, ctx: { request: Request; close(): void }) => void | Promise<void>;

interface FakeAgent {
  readonly url: string;
  readonly calls: string[];
  close(): Promise<void>;
}

const TASK = "task-1";
const CONTEXT = "ctx-1";

const task = (state: string, extra: Frame = {}): Frame => ({
  task: { id: TASK, contextId: CONTEXT, status: { state }, ...extra },
});
const status = (state: string, text?: string): Frame => ({
  statusUpdate: {
    taskId: TASK,
    contextId: CONTEXT,
    status: text === undefined
      ? { state }
      : { state, message: { messageId: "s", role: "ROLE_AGENT", parts: [{ text }] } },
  },
});
const words = (text: string, append: boolean): Frame => ({
  artifactUpdate: {
    taskId: TASK,
    contextId: CONTEXT,
    artifact: { artifactId: "out", parts: [{ text }] },
    append,
    lastChunk: false,
  },
});

/**
 * A hand-written A2A v1.0 JSON-RPC agent on loopback. `stream` answers
 * SendStreamingMessage, `resubscribe` SubscribeToTask; CancelTask answers a
 * CANCELED task; every method is recorded in `calls`.
 */
function fakeAgent(options: {
  stream?: StreamScript;
  /** Answer SendStreamingMessage with this response instead; `hang()` never answers (until close). */
  raw?: (request: Request, hang: () => Promise<Response>) => Response | Promise<Response>;
  resubscribe?: StreamScript | "refuse" | "fail";
  getTask?: () => Frame;
}): FakeAgent {
  const calls: string[] = [];
  const open: ReadableStreamDefaultController<Uint8Array>[] = [];
  const hanging: ((response: Response) => void)[] = [];
  const hang = () => new Promise<Response>((resolve) => hanging.push(resolve));
  const encoder = new TextEncoder();
  let url = "";
  const sseResponse = (request: Request, id: unknown, script: StreamScript): Response => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      try {
        controller.close();
      } catch { /* already errored */ }
    };
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        open.push(c);
      },
      cancel() {
        closed = true;
      },
    });
    const send: Send = (result) => {
      if (closed) return;
      controller.enqueue(
        encoder.encode(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`),
      );
    };
    Promise.resolve().then(() => script(send, { request, close })).catch(close);
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
  const server = serveRaw(async (request) => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/.well-known/agent-card.json") {
      return Response.json({
        name: "fake",
        supportedInterfaces: [{
          url: `${url}/`,
          protocolBinding: "JSONRPC",
          protocolVersion: "1.0",
        }],
        capabilities: { streaming: true },
      });
    }
    const body = await request.json();
    calls.push(body.method);
    const reply = (result: unknown) => Response.json({ jsonrpc: "2.0", id: body.id, result });
    switch (body.method) {
      case "SendStreamingMessage": {
        if (options.raw) return options.raw(request, hang);
        return sseResponse(request, body.id, options.stream!);
      }
      case "SubscribeToTask": {
        const r = options.resubscribe;
        if (r === "refuse" || r === undefined) {
          return Response.json({
            jsonrpc: "2.0",
            id: body.id,
            error: { code: -32004, message: "Unsupported operation: not streaming this task" },
          });
        }
        if (r === "fail") return new Response("bad gateway", { status: 502 });
        return sseResponse(request, body.id, r);
      }
      case "GetTask":
        return reply((options.getTask?.() ?? task("TASK_STATE_WORKING")).task);
      case "CancelTask":
        return reply((task("TASK_STATE_CANCELED")).task);
      default:
        return Response.json({
          jsonrpc: "2.0",
          id: body.id,
          error: { code: -32601, message: "Method not found" },
        });
    }
  });
  url = server.url;
  return {
    url,
    calls,
    async close() {
      for (const resolve of hanging) resolve(new Response("closing", { status: 503 }));
      for (const c of open) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await server.close();
    },
  };
}

const parentScope = () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  return { root, parent: { id: "main", scope: root.child("main") } };
};

const prompt = [{ type: "text" as const, text: "go" }];

async function settle(
  run: SubagentRunHandle,
): Promise<SubagentResultInput & { text: string }> {
  const result = await run.result;
  return { ...result, text: textOf(result.output as ContentBlock[]) };
}

/** Run `fn` with a provider for `agent` (short timeouts, quick reconnects), then clean up. */
async function withProvider(
  agent: FakeAgent,
  fn: (
    provider: A2AProvider,
    parent: { id: string; scope: ReturnType<typeof createRootScope> },
  ) => Promise<void>,
  extra: Partial<Parameters<typeof createA2AProvider>[0]> = {},
): Promise<void> {
  const { root, parent } = parentScope();
  const provider = await createA2AProvider({
    url: agent.url,
    timeoutMs: 300,
    reconnect: { retries: 2, delayMs: 5 },
    ...extra,
  });
  try {
    await fn(provider, parent);
  } finally {
    await provider.dispose();
    await root.dispose();
    await agent.close();
  }
}

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
      result.text,
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
    assert.match(result.text, /500/);
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
    parent.scope.on(subagentProgress, (info) => void progress.push(info.text!));
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
      assert.match(result.text, /^partial/);
      assert.match(result.text, /lost remote task "task-1" .* 2 attempt\(s\) to re-attach failed/);
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
      assert.match(result.text, /reconnect is off/);
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
      assert.match(result.text, /did not answer SendStreamingMessage within 300 ms \(timeoutMs\)/);
      await run.dispose();
    });
  });

  await t.step("a stream that sends no event", async () => {
    const agent = fakeAgent({ stream: () => {} });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settle(run);
      assert.equal(result.stopReason, "error");
      assert.match(result.text, /did not answer SendStreamingMessage within 300 ms/);
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
      assert.match((await settle(first)).text, /did not answer SendStreamingMessage within 100 ms/);
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
        assert.match(result.text, expected);
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
