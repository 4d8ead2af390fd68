// No `await using` here: Node 20 (`deno task test:node`) cannot parse it.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHttpHandler } from "./http.ts";
import { createMcpProvider } from "./provider.ts";
import { world } from "./_test_support.ts";
import { serveOnLoopback } from "./_test_http.ts";

/** The handler on loopback, each request's principal read from `x-principal` (the test's own auth). */
async function serve(handler: ReturnType<typeof createMcpHttpHandler>) {
  const server = await serveOnLoopback((request) =>
    handler.fetch(request, request.headers.get("x-principal") ?? undefined)
  );
  return { url: `${server.origin}/mcp`, server };
}

async function connect(url: string, principal: string, elicitation = false) {
  const client = new Client(
    { name: principal, version: "1" },
    { capabilities: elicitation ? { elicitation: { form: {} } } : {} },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { "x-principal": principal } },
  });
  await client.connect(transport);
  return { client, transport };
}

type Text = { text: string };

Deno.test("createMcpHttpHandler() serves tools, progress, elicitation and cancel over HTTP", async (t) => {
  const w = world();
  try {
    const handler = createMcpHttpHandler(w.server);
    const { url, server } = await serve(handler);
    try {
      const { client } = await connect(url, "alice", true);
      client.setRequestHandler(ElicitRequestSchema, () => ({
        action: "accept",
        content: { decision: "allow" },
      }));
      await t.step("a call with progress", async () => {
        const messages: string[] = [];
        const result = await client.callTool(
          { name: "subagent_test", arguments: { description: "Echo", prompt: "echo x y" } },
          undefined,
          { onprogress: (p: { message?: string }) => messages.push(p.message ?? "") },
        );
        assert.equal((result.content as Text[])[0].text, "x y");
        assert.equal(messages.join(""), "x y ");
      });
      await t.step("an input request from a grandchild, answered by elicitation", async () => {
        const result = await client.callTool({
          name: "subagent_test",
          arguments: { description: "Ask", prompt: "nest ask" },
        });
        assert.equal((result.content as Text[])[0].text, "selected allow");
      });
      await t.step("cancel ends the run and its subtree", async () => {
        const controller = new AbortController();
        const call = client.callTool(
          { name: "subagent_test", arguments: { description: "Hang", prompt: "nest hang" } },
          undefined,
          { signal: controller.signal },
        );
        while (w.provider.live.size < 2) await new Promise((r) => setTimeout(r, 5));
        controller.abort();
        await assert.rejects(call);
        while (w.provider.live.size > 0) await new Promise((r) => setTimeout(r, 5));
      });
      assert.equal(handler.sessions, 1);
      await client.close();
    } finally {
      await handler.close();
      await server.shutdown();
    }
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpHttpHandler() keeps principals apart", async () => {
  const w = world();
  try {
    const handler = createMcpHttpHandler(w.server, { maxSessionsPerPrincipal: 1 });
    const { url, server } = await serve(handler);
    try {
      const alice = await connect(url, "alice");
      const sessionId = alice.transport.sessionId!;
      const controller = new AbortController();
      const call = alice.client.callTool(
        { name: "subagent_test", arguments: { description: "Hang", prompt: "hang" } },
        undefined,
        { signal: controller.signal },
      );
      while (w.provider.live.size < 1) await new Promise((r) => setTimeout(r, 5));
      const [runId] = [...w.provider.live];
      const requestId = 1; // the client's second request (initialize was 0)
      // Bob names alice's session: it does not exist for him, so he can neither list nor cancel.
      const as = (principal: string, body: unknown) =>
        fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": sessionId,
            "mcp-protocol-version": "2025-11-25",
            "x-principal": principal,
          },
          body: JSON.stringify(body),
        });
      const list = await as("bob", { jsonrpc: "2.0", id: 9, method: "tools/list" });
      assert.equal(list.status, 404);
      await list.body?.cancel();
      const cancel = await as("bob", {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId },
      });
      assert.equal(cancel.status, 404);
      await cancel.body?.cancel();
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(w.provider.live.has(runId), "alice's run is untouched");
      // A second session for alice is past her cap; bob may still open his own.
      await assert.rejects(connect(url, "alice"), /429|most is 1/);
      const bob = await connect(url, "bob");
      const mine = await bob.client.callTool({
        name: "subagent_test",
        arguments: { description: "Echo", prompt: "echo bob" },
      });
      assert.equal((mine.content as Text[])[0].text, "bob");
      controller.abort();
      await assert.rejects(call);
      await alice.client.close();
      await bob.client.close();
    } finally {
      await handler.close();
      await server.shutdown();
    }
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpProvider() reaches a server by URL over Streamable HTTP", async () => {
  // The server side: a seam MCP endpoint over the test provider.
  const remote = world();
  try {
    const handler = createMcpHttpHandler(remote.server);
    const { url, server } = await serve(handler);
    const local = world();
    try {
      try {
        local.subagents.registerProvider(
          createMcpProvider({
            name: "remote",
            url,
            tool: "subagent_test",
            headers: { "x-principal": "caller" },
          }),
        );
        const parent = { id: "p", scope: local.host.scope };
        const run = local.subagents.start("remote", { prompt: "echo over http", parent });
        const result = await run.result;
        await run.dispose();
        assert.equal(result.stopReason, "completed");
        assert.deepEqual(result.output, [{ type: "text", text: "over http" }]);
        // The remote seam server's usage came back in _meta.
        assert.equal(result.usage?.self.outputTokens, 2);
        const hang = local.subagents.start("remote", { prompt: "hang", parent });
        await hang.started;
        while (remote.provider.live.size < 1) await new Promise((r) => setTimeout(r, 5));
        hang.cancel();
        assert.equal((await hang.result).stopReason, "aborted");
        await hang.dispose();
        // Disposing ended the run's session (DELETE): the remote run is gone with it.
        while (remote.provider.live.size > 0) await new Promise((r) => setTimeout(r, 5));
        assert.equal(handler.sessions, 0, "each run's session was ended");
      } finally {
        await handler.close();
        await server.shutdown();
      }
    } finally {
      await local[Symbol.asyncDispose]();
    }
  } finally {
    await remote[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpHttpHandler() bounds the progress held for a client that never reads", async () => {
  const w = world();
  try {
    const handler = createMcpHttpHandler(w.server, { maxUnreadBytes: 64 * 1024 });
    const { url, server } = await serve(handler);
    try {
      const post = (body: unknown, session?: string) =>
        fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
            ...(session ? { "mcp-session-id": session } : {}),
          },
          body: JSON.stringify(body),
        });
      const init = await post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "never-reads", version: "1" },
        },
      });
      const session = init.headers.get("mcp-session-id")!;
      await init.text();
      await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
      // 30 MB of progress, on a stream the client does not read until the run has ended.
      const call = await post({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "subagent_test",
          arguments: { description: "Stream", prompt: "stream 30000" },
          _meta: { progressToken: "p" },
        },
      }, session);
      assert.equal(call.headers.get("content-type"), "text/event-stream");
      while (w.provider.started.size < 1 || w.provider.live.size > 0) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const text = await call.text();
      const messages = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
        JSON.parse(line.slice(6))
      );
      const progress = messages.filter((m) => m.method === "notifications/progress");
      const result = messages.find((m) => m.id === 1);
      // The run was not held back by the client, and its result came through whole.
      assert.equal(result?.result?.content?.[0]?.text, "streamed");
      // What got through is the bound plus what the sockets and the client's fetch held (a few MB
      // here), not the 30 MB streamed: the rest was coalesced away, and said so.
      assert.ok(text.length < 10_000_000, `the stream carried ${text.length} bytes`);
      assert.ok(
        progress.some((m) => /^\[\d+ characters not delivered\]/.test(m.params.message)),
        "a progress message says what was dropped",
      );
      const numbers = progress.map((m) => m.params.progress);
      assert.deepEqual(numbers, numbers.toSorted((a: number, b: number) => a - b));
    } finally {
      await handler.close();
      await server.shutdown();
    }
  } finally {
    await w[Symbol.asyncDispose]();
  }
});
