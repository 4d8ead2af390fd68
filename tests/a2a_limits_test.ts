// The A2A provider against a remote that refuses for a limit (HTTP 429): a
// seam gateway past limits.maxStreamsPerPrincipal on loopback, in both
// bindings, and a hand-written agent whose 429 is plain text. A refused
// start ends the run saying so; a refused re-attach reads the task by
// GetTask instead (the gateway's own advice), never a lost connection.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { type A2ABinding, createA2AProvider } from "@seam/subagent-a2a";
import { createGateway } from "../gateway/mod.ts";
import { type Controlled, controlledProvider, message } from "../gateway/_test_support.ts";
import { until } from "./a2a_support.ts";
import {
  fakeAgent,
  parentScope,
  prompt,
  settleWithin,
  task,
  withProvider,
  words,
} from "./a2a_fake_agent.ts";

interface Limited {
  readonly url: string;
  readonly controlled: Controlled;
  /** The A2A methods the gateway was asked, in order (JSON-RPC), or `METHOD /path`. */
  readonly calls: string[];
  /** Open a stream of `method` as the anonymous callers, held after its first frame; `undefined` while refused. */
  hold(method: "SendStreamingMessage" | "SubscribeToTask", params: unknown): Promise<boolean>;
}

/** A seam gateway on loopback that holds one stream for the anonymous callers. */
async function withLimitedGateway(fn: (gateway: Limited) => Promise<void>): Promise<void> {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const controlled = controlledProvider();
  createSubagentService(root).registerProvider(controlled);
  const gateway = createGateway({ scope: root, limits: { maxStreamsPerPrincipal: 1 } });
  const calls: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const text = request.method === "POST" ? await request.clone().text() : "";
    const path = new URL(request.url).pathname;
    calls.push(path === "/" && text ? JSON.parse(text).method : `${request.method} ${path}`);
    return gateway.fetch(request);
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  const held: ReadableStreamDefaultReader<Uint8Array>[] = [];
  try {
    await fn({
      url,
      controlled,
      calls,
      async hold(method, params) {
        const response = await fetch(`${url}/`, {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        });
        if (response.status === 429) {
          await response.body?.cancel();
          return false;
        }
        assert.equal(response.status, 200);
        const reader = response.body!.getReader();
        held.push(reader);
        await reader.read();
        return true;
      },
    });
  } finally {
    for (const reader of held) await reader.cancel();
    for (const run of controlled.runs) run.finish({ output: "", stopReason: "completed" });
    await gateway.close();
    await server.shutdown();
    await root.dispose();
  }
}

for (const binding of ["JSONRPC", "HTTP+JSON"] as const satisfies readonly A2ABinding[]) {
  Deno.test(`A2A provider: a seam gateway's 429 to SendStreamingMessage ends the run START_FAILED, naming the limit (${binding})`, async () => {
    await withLimitedGateway(async ({ url, controlled, calls, hold }) => {
      assert.ok(await hold("SendStreamingMessage", { message: message("hold") }));
      const { root, parent } = parentScope();
      const provider = await createA2AProvider({
        url,
        binding,
        timeoutMs: 2_000,
        reconnect: { retries: 3, delayMs: 5 },
      });
      try {
        const sent = calls.length;
        const run = provider.start({ prompt, parent });
        const result = await settleWithin(run);
        assert.equal(result.stopReason, "error");
        assert.equal(result.error?.code, "START_FAILED");
        assert.match(
          result.why,
          /^The A2A run failed \(SendStreamingMessage\): the remote agent refused it for a limit \(HTTP 429\): Too many streams: 1 are open for unauthenticated callers \(limits\.maxStreamsPerPrincipal is 1\)/,
        );
        assert.equal((result.error?.data as { status?: number }).status, 429);
        // Asked once, not again: no task exists to follow.
        assert.equal(calls.length - sent, 1);
        assert.equal(controlled.runs.length, 1, "the refused stream started no task");
        await run.dispose();
      } finally {
        await provider.dispose();
        await root.dispose();
      }
    });
  });
}

Deno.test("A2A provider: a seam gateway's 429 to SubscribeToTask is no lost connection: the run polls GetTask to the task's end", async () => {
  await withLimitedGateway(async ({ url, controlled, calls, hold }) => {
    // The provider's first stream is cut after its first event, and another caller
    // takes the one slot before the provider re-attaches.
    let cut = false;
    const cutting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (cut || response.headers.get("content-type") !== "text/event-stream") return response;
      cut = true;
      const reader = response.body!.getReader();
      const first = (await reader.read()).value!;
      await reader.cancel();
      const frame = new TextDecoder().decode(first).split("\n").find((l) =>
        l.startsWith("data: ")
      )!;
      const id = JSON.parse(frame.slice(6)).result.task.id;
      for (let i = 0; !(await hold("SubscribeToTask", { id })); i++) {
        assert.ok(i < 200, "the cut stream's slot was never given back");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(first);
            controller.close();
          },
        }),
        { headers: response.headers },
      );
    };
    const { root, parent } = parentScope();
    const provider = await createA2AProvider({
      url,
      fetch: cutting,
      timeoutMs: 2_000,
      pollIntervalMs: 20,
      reconnect: { retries: 3, delayMs: 5 },
    });
    try {
      const run = provider.start({ prompt, parent });
      await until(() => calls.includes("GetTask"));
      assert.equal(calls.filter((c) => c === "SubscribeToTask").length, 2, "re-attached once");
      controlled.runs[0].ready();
      controlled.runs[0].finish({ output: "done", stopReason: "completed" });
      const result = await settleWithin(run);
      assert.equal(result.stopReason, "completed", result.why);
      assert.equal(result.text, "done");
      await run.dispose();
    } finally {
      await provider.dispose();
      await root.dispose();
    }
  });
});

Deno.test("A2A provider: a plain HTTP 429 to SubscribeToTask is no lost connection: the run polls GetTask", async () => {
  let posts = 0;
  const agent = fakeAgent({
    stream: (send, { close }) => {
      send(task("TASK_STATE_WORKING"));
      send(words("partial", false));
      close();
    },
    // The second POST is the re-attach: refused for a limit, in plain text.
    intercept: (request) =>
      request.method === "POST" && ++posts === 2
        ? new Response("slow down", { status: 429, headers: { "retry-after": "1" } })
        : undefined,
    getTask: () => task("TASK_STATE_COMPLETED"),
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.stopReason, "completed", result.why);
    assert.deepEqual(agent.calls, ["SendStreamingMessage", "GetTask"]);
    await run.dispose();
  }, { pollIntervalMs: 20 });
});
