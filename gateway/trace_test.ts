import assert from "node:assert/strict";
import { SpanKind } from "@opentelemetry/api";
import { parentOf, recordSpans } from "../tests/trace_support.ts";
import { BASE, controlledProvider, message, rpc, rpcRequest, withSetup } from "./_test_support.ts";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

Deno.test("createGateway() answers a request in a SERVER span under its traceparent, and its run below", async () => {
  const recorded = recordSpans();
  const provider = controlledProvider({ name: "echo", auto: true });
  try {
    await withSetup([provider], {}, async ({ gateway }) => {
      const answer = await rpc(
        gateway,
        "SendMessage",
        { message: message("hi") },
        { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`, tracestate: "vendor=1" },
      );
      assert.equal(typeof answer.result, "object", JSON.stringify(answer));
    });
    const server = recorded.one("SendMessage");
    assert.equal(server.kind, SpanKind.SERVER);
    assert.equal(server.spanContext().traceId, TRACE_ID);
    assert.equal(parentOf(server), CALLER_SPAN);
    assert.equal(server.parentSpanContext?.isRemote, true);
    assert.equal(server.spanContext().traceState?.get("vendor"), "1");
    assert.equal(server.attributes["rpc.method"], "SendMessage");
    assert.equal(server.attributes["http.response.status_code"], 200);
    const run = recorded.one("invoke_agent echo");
    assert.equal(parentOf(run), server.spanContext().spanId);
    assert.equal(run.spanContext().traceId, TRACE_ID);
  } finally {
    await recorded.stop();
  }
});

Deno.test("createGateway() hangs a continuation's resumed run under the continuation's SERVER span", async () => {
  const recorded = recordSpans();
  const provider = controlledProvider({ name: "echo", auto: true, resume: true });
  const otherTrace = "0af7651916cd43dd8448eb211c80319c";
  const otherCaller = "b7ad6b7169203331";
  try {
    await withSetup([provider], {}, async ({ gateway }) => {
      const first = await rpc(gateway, "SendMessage", { message: message("one") }, {
        traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01`,
      });
      const contextId = first.result.task.contextId;
      const second = await rpc(
        gateway,
        "SendMessage",
        { message: message("two", { contextId }) },
        { traceparent: `00-${otherTrace}-${otherCaller}-01` },
      );
      assert.equal(provider.runs[0].resumedWith.length, 1, JSON.stringify(second));
    });
    // Spans are exported as they end: the first request's, then the continuation's.
    const [request, continuation] = recorded.spans().filter((s) => s.name === "SendMessage");
    const [run, resumed] = recorded.spans().filter((s) => s.name === "invoke_agent echo");
    assert.equal(parentOf(continuation), otherCaller);
    assert.equal(parentOf(run), request.spanContext().spanId);
    assert.equal(parentOf(resumed), continuation.spanContext().spanId, "not the first request's");
    assert.equal(resumed.spanContext().traceId, otherTrace);
  } finally {
    await recorded.stop();
  }
});

Deno.test("createGateway() starts a fresh trace for a request without trace context", async () => {
  const recorded = recordSpans();
  try {
    await withSetup([controlledProvider({ name: "echo", auto: true })], {}, async ({ gateway }) => {
      await rpc(gateway, "GetTask", { id: "nope" });
    });
    const server = recorded.one("GetTask");
    assert.equal(parentOf(server), undefined);
    assert.equal(server.attributes["http.response.status_code"], 200);
  } finally {
    await recorded.stop();
  }
});

Deno.test("createGateway() ends a stream's SERVER span when the client goes away", async () => {
  const recorded = recordSpans();
  const provider = controlledProvider({ name: "echo" });
  try {
    await withSetup([provider], {}, async ({ gateway }) => {
      const response = await gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("hi") }),
      );
      const reader = response.body!.getReader();
      await reader.read(); // the task's first frame
      assert.deepEqual(recorded.spans().map((s) => s.name), [], "nothing ended yet");
      await reader.cancel();
      const server = recorded.one("SendStreamingMessage");
      assert.equal(server.attributes["http.response.status_code"], 200);
    });
  } finally {
    await recorded.stop();
  }
});

Deno.test("createGateway() ends a stream's SERVER span once when its request is aborted", async () => {
  const recorded = recordSpans();
  const provider = controlledProvider({ name: "echo" });
  try {
    await withSetup([provider], {}, async ({ gateway }) => {
      const abort = new AbortController();
      const request = new Request(rpcRequest("SendStreamingMessage", { message: message("hi") }), {
        signal: abort.signal,
      });
      const response = await gateway.fetch(request);
      const reader = response.body!.getReader();
      await reader.read();
      assert.deepEqual(recorded.spans().map((s) => s.name), [], "nothing ended yet");
      // The client went (no cancel of the body reached the gateway): the span ends anyway.
      abort.abort();
      assert.equal(recorded.one("SendStreamingMessage").ended, true);
      await reader.cancel();
      assert.equal(recorded.spans().length, 1, "ended once");
    });
  } finally {
    await recorded.stop();
  }
});

Deno.test("createGateway() records a method HTTP does not know as _OTHER, in a span named HTTP", async () => {
  const recorded = recordSpans();
  try {
    await withSetup([controlledProvider({ name: "echo", auto: true })], {}, async ({ gateway }) => {
      const method = `X${"Q".repeat(10_000)}`;
      const response = await gateway.fetch(new Request(`${BASE}/`, { method }));
      await response.body?.cancel();
    });
    const server = recorded.one("HTTP");
    assert.equal(server.attributes["http.request.method"], "_OTHER");
  } finally {
    await recorded.stop();
  }
});

Deno.test("createGateway() names an A2A 0.3 JSON-RPC request's SERVER span for its method", async () => {
  const recorded = recordSpans();
  try {
    const provider = controlledProvider({ name: "echo", auto: true });
    await withSetup([provider], { a2a03: true }, async ({ gateway }) => {
      const answer = await rpc(gateway, "tasks/get", { id: "nope" }, { "a2a-version": "0.3" });
      assert.equal(typeof answer.error, "object", JSON.stringify(answer));
    });
    const server = recorded.one("tasks/get");
    assert.equal(server.attributes["rpc.system"], "jsonrpc");
    assert.equal(server.attributes["rpc.method"], "tasks/get");
  } finally {
    await recorded.stop();
  }
});
