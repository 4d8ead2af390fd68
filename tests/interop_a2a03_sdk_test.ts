// Interop with the A2A 0.3 line as it is (issue 37 item 6, the 0.3 SDK):
// `@a2a-js/sdk` 0.3.14's own server behind seam's A2A provider, and its own
// client in front of `serveGateway` (which answers 0.3 by default), all on
// loopback, no model.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  type RequestContext,
} from "@a2a-js/sdk-03/server";
import { ClientFactory } from "@a2a-js/sdk-03/client";
import { serveGateway } from "../gateway/serve.ts";
import { createReferenceProvider } from "./reference_provider.ts";

const now = () => new Date().toISOString();

/** An agent written against the 0.3 SDK: it echoes, or throws after its task exists. */
const executor: AgentExecutor = {
  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = context;
    const text = userMessage.parts.map((p) => p.kind === "text" ? p.text : "").join("");
    if (!context.task) {
      bus.publish({
        kind: "task",
        id: taskId,
        contextId,
        status: { state: "submitted", timestamp: now() },
        history: [userMessage],
      });
    }
    await Promise.resolve();
    if (text === "throw") throw new Error("no model is configured");
    bus.publish({
      kind: "status-update",
      taskId,
      contextId,
      status: {
        state: "completed",
        timestamp: now(),
        message: {
          kind: "message",
          role: "agent",
          messageId: crypto.randomUUID(),
          parts: [{ kind: "text", text: `echo: ${text}` }],
          taskId,
          contextId,
        },
      },
      final: true,
    });
    bus.finished();
  },
  cancelTask(): Promise<void> {
    return Promise.resolve();
  },
};

/** The 0.3 SDK's JSON-RPC server on loopback (its transport handler under `Deno.serve`). */
function serveSdk03(): { url: string; close(): Promise<void> } {
  let url = "";
  // Made once the server listens (its card names the URL); requests come after.
  // deno-lint-ignore prefer-const
  let transport!: JsonRpcTransportHandler;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    if (req.method === "GET" && path === "/.well-known/agent-card.json") {
      return Response.json(await handler.getAgentCard());
    }
    const out = await transport.handle(await req.json());
    if (out && typeof (out as AsyncGenerator)[Symbol.asyncIterator] === "function") {
      const encoder = new TextEncoder();
      const events = out as AsyncGenerator<unknown>;
      return new Response(
        new ReadableStream({
          async pull(controller) {
            const next = await events.next();
            if (next.done) controller.close();
            else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    }
    return Response.json(out);
  });
  url = `http://127.0.0.1:${server.addr.port}`;
  const handler = new DefaultRequestHandler(
    {
      name: "sdk03 echo",
      description: "an agent on @a2a-js/sdk 0.3.14",
      url: `${url}/`,
      version: "1.0.0",
      protocolVersion: "0.3.0",
      preferredTransport: "JSONRPC",
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
    },
    new InMemoryTaskStore(),
    executor,
  );
  transport = new JsonRpcTransportHandler(handler);
  return { url, close: () => server.shutdown() };
}

Deno.test("seam's A2A provider in front of the 0.3 SDK's own server", async (t) => {
  const remote = serveSdk03();
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const parent = { id: "main", scope: root.child("main") };
  const quiet = console.error;
  console.error = () => {}; // the SDK logs the agent's throw
  try {
    subagents.registerProvider(await createA2AProvider({ url: remote.url, timeoutMs: 10_000 }));
    await t.step("send and stream: the agent's answer is the run's output", async () => {
      const run = subagents.start("a2a", { prompt: "hello there", parent });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "completed", JSON.stringify(result));
      assert.equal(textOf(result.output), "echo: hello there");
    });
    await t.step("an agent that throws: the run ends error with the agent's own text", async () => {
      const run = subagents.start("a2a", { prompt: "throw", parent });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "error", JSON.stringify(result));
      assert.match(JSON.stringify(result), /Agent execution error: no model is configured/);
      assert.doesNotMatch(JSON.stringify(result), /on the stream of task/);
    });
  } finally {
    console.error = quiet;
    await root.dispose();
    await remote.close();
  }
});

Deno.test("the 0.3 SDK's own client against serveGateway, which answers 0.3 by default", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root).registerProvider(createReferenceProvider());
  const served = serveGateway({ scope: root }, { port: 0, quiet: true });
  try {
    const client = await new ClientFactory().createFromUrl(served.url);
    const answer = await client.sendMessage({
      message: {
        kind: "message",
        messageId: crypto.randomUUID(),
        role: "user",
        parts: [{ kind: "text", text: "complete hello from 0.3" }],
      },
      configuration: { blocking: true },
    });
    assert.equal(answer.kind, "task", JSON.stringify(answer));
    const task = answer as { status: { state: string }; artifacts?: { parts: unknown[] }[] };
    assert.equal(task.status.state, "completed", JSON.stringify(answer));
    assert.match(JSON.stringify(task.artifacts), /hello from 0\.3/);
  } finally {
    await served.shutdown();
    await root.dispose();
  }
});
