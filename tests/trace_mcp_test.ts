// Trace context over MCP: the provider's tools/call carries its run's
// traceparent in `_meta`, and seam's MCP server starts the remote run under
// it, so both runs are one trace, the remote one a child of the local one.
import assert from "node:assert/strict";
import { createHost, createMemoryLogger } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createMcpHttpHandler, createMcpProvider, createMcpServer } from "@seam/mcp";
import { parentOf, recordSpans } from "./trace_support.ts";

Deno.test("createMcpProvider() and createMcpServer() carry trace context in _meta", async () => {
  const recorded = recordSpans();
  const remote = createHost({ logger: createMemoryLogger().logger });
  const remoteService = createSubagentService(remote.scope);
  remoteService.registerProvider({
    name: "echo",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start: (request) => ({
      id: "remote-run",
      started: Promise.resolve(),
      result: Promise.resolve({ output: request.prompt, stopReason: "completed" as const }),
      cancel() {},
      dispose: () => Promise.resolve(),
    }),
  });
  const mcp = createMcpHttpHandler(createMcpServer({ scope: remote.scope }));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => mcp.fetch(request, "caller"),
  );
  const local = createHost({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(local.scope);
  subagents.registerProvider(
    createMcpProvider({
      name: "over-mcp",
      url: `http://127.0.0.1:${server.addr.port}/mcp`,
      tool: "subagent_echo",
    }),
  );
  try {
    const run = subagents.start("over-mcp", {
      prompt: "traced",
      parent: { id: "main", scope: local.scope },
    });
    assert.equal((await run.result).stopReason, "completed");
    await run.dispose();
    const outer = recorded.one("invoke_agent over-mcp");
    const inner = recorded.one("invoke_agent echo");
    assert.equal(inner.spanContext().traceId, outer.spanContext().traceId, "one trace");
    assert.equal(parentOf(inner), outer.spanContext().spanId, "the remote run under the local one");
  } finally {
    await mcp.close();
    await server.shutdown();
    await local.scope.dispose();
    await remote.scope.dispose();
    await recorded.stop();
  }
});
