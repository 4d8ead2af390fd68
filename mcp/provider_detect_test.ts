// The provider's protocol line, found where the server tells: tested against a
// plain server of each official SDK (no seam inside), on loopback.
// No `await using` here: Node 20 (`deno task test:node`) cannot parse it.
import assert from "node:assert/strict";
import { createMcpHandler, McpServer as ModernServer } from "@modelcontextprotocol/server";
import { McpServer as LegacyServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createHost, createMemoryLogger } from "@seam/host";
import { createSubagentService, type SubagentProvider } from "@seam/subagent";
import { z } from "zod";
import { createMcpProvider } from "./provider.ts";
import { serveOnLoopback } from "./_test_http.ts";

type Reply = { content: { type: "text"; text: string }[] };
const reply = (text: string): Reply => ({ content: [{ type: "text", text }] });

/** The official 2.4 server's handler: 2026-07-28 (and stateless 2025 serving beside it). */
function modernHandler(): (request: Request) => Promise<Response> {
  const handler = createMcpHandler(() => {
    const server = new ModernServer({ name: "modern", version: "1.0.0" });
    server.registerTool(
      "greet",
      { inputSchema: { prompt: z.string() } },
      ({ prompt }: { prompt: string }) => reply(`modern ${prompt}`),
    );
    return server;
  });
  return (request) => handler.fetch(request);
}

/** The official 1.32 server over its web-standard transport, stateless: 2025-11-25 only. */
function legacyHandler(): (request: Request) => Promise<Response> {
  return async (request) => {
    const server = new LegacyServer({ name: "legacy", version: "1.0.0" });
    server.registerTool(
      "greet",
      { inputSchema: { prompt: z.string() } },
      ({ prompt }: { prompt: string }) => reply(`legacy ${prompt}`),
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    await server.connect(transport);
    return await transport.handleRequest(request);
  };
}

/** Serve `handler`, noting each POST's JSON-RPC method; run `body` with the URL. */
async function withServer(
  handler: (request: Request) => Promise<Response>,
  body: (url: string, methods: string[]) => Promise<void>,
): Promise<void> {
  const methods: string[] = [];
  const server = await serveOnLoopback(async (request) => {
    if (request.method === "POST") {
      const message = await request.clone().json().catch(() => undefined);
      if (typeof message?.method === "string") methods.push(message.method);
    }
    return await handler(request);
  });
  try {
    await body(`${server.origin}/mcp`, methods);
  } finally {
    await server.shutdown();
  }
}

/** Two runs of `provider`: their outputs. */
async function twoRuns(provider: SubagentProvider): Promise<string[]> {
  const host = createHost({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(provider);
  const outputs: string[] = [];
  try {
    for (const prompt of ["one", "two"]) {
      const run = subagents.start(provider.name, {
        prompt,
        parent: { id: "p", scope: host.scope },
      });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "completed", JSON.stringify(result.error));
      outputs.push(JSON.stringify(result.output));
    }
  } finally {
    await host.scope.dispose();
  }
  return outputs;
}

Deno.test("createMcpProvider({url}) finds a 2026-07-28 server by server/discover", async () => {
  await withServer(modernHandler(), async (url, methods) => {
    const outputs = await twoRuns(createMcpProvider({ url, tool: "greet" }));
    assert.match(outputs[0], /modern one/);
    assert.match(outputs[1], /modern two/);
    // Asked once for the provider; the modern line has no initialize.
    assert.equal(methods.filter((m) => m === "server/discover").length, 1 + 2, methods.join());
    assert.ok(!methods.includes("initialize"), methods.join());
  });
});

Deno.test("createMcpProvider({url}) falls back to initialize for a 2025-11-25 server", async () => {
  await withServer(legacyHandler(), async (url, methods) => {
    const outputs = await twoRuns(createMcpProvider({ url, tool: "greet" }));
    assert.match(outputs[0], /legacy one/);
    assert.match(outputs[1], /legacy two/);
    // One probe, refused; then the 2025 handshake (the probe's own, then each run's).
    assert.equal(methods.filter((m) => m === "server/discover").length, 1, methods.join());
    assert.equal(methods.filter((m) => m === "initialize").length, 1 + 2, methods.join());
  });
});

Deno.test("createMcpProvider({url, protocol}) overrides what the server tells", async () => {
  await withServer(modernHandler(), async (url, methods) => {
    const outputs = await twoRuns(
      createMcpProvider({ url, tool: "greet", protocol: "2025-11-25" }),
    );
    assert.match(outputs[0], /modern one/);
    assert.ok(!methods.includes("server/discover"), methods.join());
    assert.equal(methods.filter((m) => m === "initialize").length, 2, methods.join());
  });
});
