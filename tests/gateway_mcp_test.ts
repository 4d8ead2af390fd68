// The gateway with @seam/mcp mounted at {basePath}/mcp: the same bearer auth
// as the A2A routes, and one principal's MCP session invisible to another.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { createGateway } from "@seam/gateway";
import { createMcpHttpHandler, createMcpServer } from "@seam/mcp";

Deno.test("createGateway({mounts}) serves MCP at {basePath}/mcp behind the gateway's auth", async (t) => {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  createSubagentService(host.scope).registerProvider(createSpawnProvider());
  const parent = await host.agents.create({ id: "root", options: { model: "scripted" } });
  const mcp = createMcpHttpHandler(createMcpServer({ scope: host.scope, parent }));
  const gateway = createGateway({
    scope: host.scope,
    parent,
    basePath: "/api",
    auth: { tokens: { alice: "alice-token", bob: "bob-token" } },
    mounts: { "/mcp": (request, principal) => mcp.fetch(request, principal) },
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => gateway.fetch(request),
  );
  const url = `http://127.0.0.1:${server.addr.port}/api/mcp`;
  const connect = async (token: string) => {
    const client = new Client({ name: "agent", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    return { client, transport };
  };
  try {
    await t.step("without a valid token: 401, as the A2A routes", async () => {
      for (const headers of [{}, { authorization: "Bearer nope" }] as HeadersInit[]) {
        const response = await fetch(url, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: "{}",
        });
        assert.equal(response.status, 401);
        await response.body?.cancel();
      }
    });
    const alice = await connect("alice-token");
    await t.step("a call through the mount runs a real spawn child", async () => {
      const result = await alice.client.callTool({
        name: "subagent_spawn",
        arguments: { description: "Hello", prompt: "@reply hello over the gateway" },
      });
      assert.deepEqual(result.content, [{ type: "text", text: "hello over the gateway" }]);
    });
    await t.step("bob cannot use alice's session", async () => {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          authorization: "Bearer bob-token",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": alice.transport.sessionId!,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }),
      });
      assert.equal(response.status, 404);
      await response.body?.cancel();
    });
    await t.step("the A2A routes are still the gateway's", async () => {
      const card = await fetch(
        `http://127.0.0.1:${server.addr.port}/api/.well-known/agent-card.json`,
      );
      assert.equal(card.status, 200);
      await card.body?.cancel();
    });
    await alice.client.close();
  } finally {
    await mcp.close();
    await gateway.close();
    await server.shutdown();
    await host.scope.dispose();
  }
});

Deno.test("createGateway() refuses a malformed mount", () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  createSubagentService(host.scope);
  assert.throws(
    () => createGateway({ scope: host.scope, mounts: { "mcp": () => new Response() } }),
    /mounts: "mcp" must be a path like "\/mcp"/,
  );
  assert.throws(
    () => createGateway({ scope: host.scope, mounts: { "/mcp": "no" as never } }),
    /mounts\["\/mcp"\] must be a function/,
  );
});
