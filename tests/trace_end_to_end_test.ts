// One trace for a whole delegation across processes: a root agent's
// `subagent` tool → an A2A run → a seam gateway over real loopback HTTP → an
// ACP child process (our ACP server, its spans exported to a file by its
// test-only entry) → the child's model call. Every span's parent is the
// expected one and all share one trace id.
import assert from "node:assert/strict";
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { createHost, createMemoryLogger, createScriptedModel, traceParentKey } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { installSubagentTool } from "@seam/tool-subagent";
import { startSpawnGateway } from "./a2a_support.ts";
import { parentOf, recordSpans, tracedAcpProvider } from "./trace_support.ts";

/** A span as the child process wrote it. */
interface ChildSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly parentIsRemote: boolean;
  readonly attributes: Record<string, unknown>;
}

Deno.test("one trace runs from a root agent through A2A, a gateway and an ACP child process to its model call", async () => {
  const { provider: acp, traceFile } = await tracedAcpProvider("acp", "trace_e2e");
  const recorded = recordSpans();
  // The gateway: its ACP provider runs our ACP server as a child process.
  const gateway = startSpawnGateway("loopback", {
    defaultProvider: "acp",
    setup: (_host, subagents) => {
      subagents.registerProvider(acp);
    },
  });
  // The root: an agent whose `subagent` tool delegates over A2A.
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  const toGateway = await createA2AProvider({ url: gateway.url, name: "remote", provider: "acp" });
  subagents.registerProvider(toGateway);
  installSubagentTool(host.scope, { provider: "remote" });
  const app = trace.getTracer("app").startSpan("app");
  host.scope.provide(traceParentKey, { context: trace.setSpan(ROOT_CONTEXT, app) });
  try {
    const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
    main.send(
      '@call subagent {"description": "Across", "prompt": "@reply hello from the ACP child"}\n' +
        "@reply {{results}}",
    );
    const end = await main.whenIdle();
    assert.equal(end.reason, "completed");
    assert.match(JSON.stringify(end.output), /hello from the ACP child/);
    app.end();
  } finally {
    await host.scope.dispose();
    await toGateway.dispose();
    // Closing the gateway disposes its ACP provider: the child exits, its spans written.
    await gateway.close();
  }
  try {
    const child: ChildSpan[] = Deno.readTextFileSync(traceFile).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    const childOne = (name: string) => {
      const found = child.filter((s) => s.name === name);
      assert.equal(found.length, 1, `${name} in ${child.map((s) => s.name).join(", ")}`);
      return found[0];
    };
    const traceId = app.spanContext().traceId;
    const idOf = (span: { spanContext(): { spanId: string } }) => span.spanContext().spanId;

    // In this process: app → execute_tool → invoke_agent remote → (HTTP) → the
    // gateway's SERVER span → invoke_agent acp.
    const tool = recorded.one("execute_tool subagent");
    const callerRun = recorded.one("invoke_agent remote");
    const server = recorded.one("SendStreamingMessage");
    const gatewayRun = recorded.one("invoke_agent acp");
    assert.equal(parentOf(tool), idOf(app));
    assert.equal(parentOf(callerRun), idOf(tool));
    assert.equal(parentOf(server), idOf(callerRun));
    assert.equal(server.kind, SpanKind.SERVER);
    assert.equal(server.parentSpanContext?.isRemote, true);
    assert.equal(parentOf(gatewayRun), idOf(server));
    assert.equal(gatewayRun.attributes["seam.run.parent_id"], callerRun.attributes["seam.run.id"]);
    for (const span of recorded.spans()) {
      if (span.name === "GET") continue; // the provider's card fetch, before any run
      assert.equal(span.spanContext().traceId, traceId, span.name);
    }

    // In the child process: (ACP `_meta`) → invoke_agent traced-child → chat scripted.
    const prompt = childOne("invoke_agent traced-child");
    const chat = childOne("chat scripted");
    assert.equal(prompt.kind, SpanKind.SERVER);
    assert.equal(prompt.parentSpanId, idOf(gatewayRun));
    assert.equal(prompt.parentIsRemote, true);
    assert.equal(prompt.attributes["rpc.method"], "session/prompt");
    assert.equal(chat.parentSpanId, prompt.spanId);
    assert.equal(chat.attributes["gen_ai.request.model"], "scripted");
    for (const span of child) assert.equal(span.traceId, traceId, span.name);
  } finally {
    await recorded.stop();
    await Deno.remove(traceFile).catch(() => {});
  }
});
