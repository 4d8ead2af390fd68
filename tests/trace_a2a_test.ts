// One trace across an A2A hop over real loopback HTTP: the caller's run span
// → the gateway's SERVER span (from the W3C headers the A2A provider sent)
// → the gateway's run → its child's model call. And the gateway's runs name
// the caller's run as their parent run.
import assert from "node:assert/strict";
import { SpanKind, trace } from "@opentelemetry/api";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService, type SubagentRunInfo, subagentStart } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { startSpawnGateway } from "./a2a_support.ts";
import { parentOf, recordSpans, runAndResumeUnder } from "./trace_support.ts";

Deno.test("createA2AProvider() carries the run's trace context to a seam gateway, whose spans continue it", async () => {
  const recorded = recordSpans();
  const gateway = startSpawnGateway("loopback");
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const toGateway = await createA2AProvider({ url: gateway.url, name: "remote" });
  subagents.registerProvider(toGateway);
  try {
    const run = subagents.start("remote", {
      prompt: "@reply hello over A2A",
      parent: { id: "a", scope: root.child("a") },
    });
    const result = await run.result;
    await run.dispose();
    assert.equal(result.stopReason, "completed");

    const caller = recorded.one("invoke_agent remote");
    const server = recorded.one("SendStreamingMessage");
    const remoteRun = recorded.one("invoke_agent spawn");
    const chat = recorded.one("chat scripted");
    assert.equal(server.kind, SpanKind.SERVER);
    assert.equal(parentOf(server), caller.spanContext().spanId);
    assert.equal(server.parentSpanContext?.isRemote, true, "parented from the traceparent header");
    assert.equal(parentOf(remoteRun), server.spanContext().spanId);
    assert.equal(parentOf(chat), remoteRun.spanContext().spanId);
    const traceId = caller.spanContext().traceId;
    for (const span of [server, remoteRun, chat]) assert.equal(span.spanContext().traceId, traceId);
    assert.equal(server.attributes["rpc.system"], "jsonrpc");
    assert.equal(server.attributes["rpc.method"], "SendStreamingMessage");
    assert.equal(server.attributes["http.request.method"], "POST");
    assert.equal(server.attributes["http.response.status_code"], 200);
    assert.equal(remoteRun.attributes["seam.run.parent_id"], run.id);
    // The stream's span lasts until its last frame: it ends after the run it streamed
    // (spans are exported in the order they end).
    const ended = recorded.spans();
    assert.ok(ended.indexOf(server) > ended.indexOf(remoteRun), "the SERVER span ended first");
  } finally {
    await toGateway.dispose();
    await root.dispose();
    await gateway.close();
    await recorded.stop();
  }
});

Deno.test("a seam gateway's runs name the A2A caller's run as their parentRunId", async () => {
  const gateway = startSpawnGateway("loopback");
  const starts: SubagentRunInfo[] = [];
  gateway.host.scope.on(subagentStart, (info) => void starts.push(info));
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const toGateway = await createA2AProvider({ url: gateway.url, name: "remote" });
  subagents.registerProvider(toGateway);
  try {
    const run = subagents.start("remote", {
      prompt: "@reply hi",
      parent: { id: "a", scope: root.child("a") },
    });
    await run.result;
    await run.dispose();
    assert.equal(starts.length, 1);
    assert.equal(starts[0].parentRunId, run.id);
    assert.equal(starts[0].depth, 1);
  } finally {
    await toGateway.dispose();
    await root.dispose();
    await gateway.close();
  }
});

Deno.test("createA2AProvider() sends a resumed run's own trace context, and the gateway's resumed run continues it", async () => {
  const recorded = recordSpans();
  const gateway = startSpawnGateway("loopback");
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const toGateway = await createA2AProvider({ url: gateway.url, name: "remote" });
  subagents.registerProvider(toGateway);
  // The application's span: both runs (the first and the resumed) hang under it, one trace.
  const app = trace.getTracer("app").startSpan("app");
  try {
    await runAndResumeUnder(app, subagents, root, "remote");

    // Each name twice: the first run's, then the resumed run's (in the order they started).
    const twice = (name: string) => {
      const found = recorded.spans().filter((s) => s.name === name).sort((a, b) =>
        a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]
      );
      assert.equal(found.length, 2, `${name}: ${recorded.spans().map((s) => s.name)}`);
      return found;
    };
    const callers = twice("invoke_agent remote");
    const servers = twice("SendStreamingMessage");
    const remoteRuns = twice("invoke_agent spawn");
    const chats = twice("chat scripted");
    const idOf = (span: { spanContext(): { spanId: string } }) => span.spanContext().spanId;
    for (const i of [0, 1]) {
      assert.equal(
        parentOf(servers[i]),
        idOf(callers[i]),
        `request ${i}: its own run's traceparent`,
      );
      assert.equal(parentOf(remoteRuns[i]), idOf(servers[i]), `remote run ${i}: under its request`);
      assert.equal(parentOf(chats[i]), idOf(remoteRuns[i]), `model call ${i}: under its run`);
    }
    for (const caller of callers) assert.equal(parentOf(caller), idOf(app));
    const traceId = app.spanContext().traceId;
    for (const span of [...callers, ...servers, ...remoteRuns, ...chats]) {
      assert.equal(span.spanContext().traceId, traceId, span.name);
    }
  } finally {
    await toGateway.dispose();
    await root.dispose();
    await gateway.close();
    await recorded.stop();
  }
});
