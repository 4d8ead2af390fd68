import assert from "node:assert/strict";
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import {
  activeTracer,
  createHost,
  createMemoryLogger,
  failSpan,
  startSpan,
  traceCarrier,
  traceContextFrom,
  traceParentKey,
} from "./mod.ts";

/** Register a recording provider and the W3C propagator for `fn`, then remove them. */
async function recording(fn: (exporter: InMemorySpanExporter) => Promise<void>): Promise<void> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  assert.ok(trace.setGlobalTracerProvider(provider));
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  try {
    await fn(exporter);
  } finally {
    await provider.forceFlush();
    await provider.shutdown();
    trace.disable();
    propagation.disable();
  }
}

Deno.test("startSpan() opens a span under the scope's TraceParent; failSpan() marks it failed", async () => {
  await recording(async (exporter) => {
    const host = createHost({ logger: createMemoryLogger().logger });
    const tracer = activeTracer("test", "1.0.0");
    assert.ok(tracer !== undefined);
    const outer = startSpan(tracer, { name: "outer", kind: "server", attributes: {} });
    host.scope.provide(traceParentKey, { context: outer.context });
    const inner = startSpan(tracer, {
      name: "inner",
      kind: "client",
      attributes: { "gen_ai.request.model": "m", "seam.run.depth": 2 },
      scope: host.scope,
    });
    failSpan(inner.span, "model_error", "it broke");
    (inner.span as Span).end();
    (outer.span as Span).end();
    const [innerDone, outerDone] = exporter.getFinishedSpans();
    assert.equal(innerDone.name, "inner");
    assert.equal(innerDone.parentSpanContext?.spanId, outerDone.spanContext().spanId);
    assert.equal(innerDone.attributes["gen_ai.request.model"], "m");
    assert.equal(innerDone.attributes["error.type"], "model_error");
    assert.deepEqual(innerDone.status, { code: SpanStatusCode.ERROR, message: "it broke" });
    assert.equal(trace.getSpan(inner.context as Context), inner.span);
    await host.scope.dispose();
  });
});

Deno.test("startSpan() takes an explicit parent over the scope's", async () => {
  await recording(async (exporter) => {
    const tracer = activeTracer("test", "1.0.0")!;
    const root = startSpan(tracer, { name: "root", kind: "internal", attributes: {} });
    const child = startSpan(tracer, {
      name: "child",
      kind: "internal",
      attributes: {},
      parent: root.context,
    });
    (child.span as Span).end();
    (root.span as Span).end();
    const [childDone, rootDone] = exporter.getFinishedSpans();
    assert.equal(childDone.parentSpanContext?.spanId, rootDone.spanContext().spanId);
    await Promise.resolve();
  });
});

Deno.test("traceCarrier() writes the W3C headers of a context, nothing without one", async () => {
  assert.equal(traceCarrier(undefined), undefined);
  await recording(async () => {
    const tracer = activeTracer("test", "1.0.0")!;
    const started = startSpan(tracer, { name: "run", kind: "internal", attributes: {} });
    const carrier = traceCarrier(started.context);
    const id = (started.span as Span).spanContext();
    assert.equal(carrier?.traceparent, `00-${id.traceId}-${id.spanId}-01`);
    (started.span as Span).end();
    await Promise.resolve();
  });
});

Deno.test("traceContextFrom() reads the W3C headers through the propagator the api would use", async () => {
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const traceparent = `00-${traceId}-b7ad6b7169203331-01`;
  const headers = new Headers({ traceparent, tracestate: "vendor=value" });
  assert.equal(traceContextFrom(headers), ROOT_CONTEXT, "no propagator: the root context");
  await recording(async () => {
    const read = trace.getSpanContext(traceContextFrom(headers) as Context);
    assert.equal(read?.traceId, traceId);
    assert.equal(read?.spanId, "b7ad6b7169203331");
    assert.equal(read?.traceState?.get("vendor"), "value");
    const none = traceContextFrom(new Headers({ traceparent: "not a traceparent" }));
    assert.equal(trace.getSpanContext(none as Context), undefined);
    await Promise.resolve();
  });
  // A registry of an api major this package does not speak: its propagator is not used.
  const key = Symbol.for("opentelemetry.js.api.1");
  const global = globalThis as Record<symbol, unknown>;
  const before = global[key];
  try {
    global[key] = { version: "2.10.0", propagation: new W3CTraceContextPropagator() };
    assert.equal(traceContextFrom(headers), ROOT_CONTEXT);
  } finally {
    global[key] = before;
  }
});

Deno.test("activeTracer() finds a registered provider exactly where @opentelemetry/api's trace does", () => {
  const key = Symbol.for("opentelemetry.js.api.1");
  const global = globalThis as Record<symbol, unknown>;
  const before = global[key];
  const tracer = { startSpan: () => undefined };
  const provider = { getDelegateTracer: () => tracer, getTracer: () => tracer };
  const versions = [
    "1.10.0",
    "1.10.7",
    "1.11.0",
    "1.9.0",
    "0.10.0",
    "2.10.0",
    "1.10.0-rc.1",
    "1.10",
    "x",
    "",
    undefined,
  ];
  try {
    for (const version of versions) {
      // A fresh registry each time: the api remembers the last one it found compatible.
      global[key] = { version, trace: provider };
      const apiUsesIt = trace.getTracerProvider() === (provider as unknown);
      assert.equal(activeTracer("t", "1") === tracer, apiUsesIt, `version ${version}`);
    }
    global[key] = undefined;
    assert.equal(activeTracer("t", "1"), undefined);
  } finally {
    global[key] = before;
  }
});

Deno.test("startSpan() takes a registered context manager's active context as the default parent", async () => {
  await recording(async (exporter) => {
    const tracer = activeTracer("test", "1.0.0")!;
    const outer = startSpan(tracer, { name: "outer", kind: "internal", attributes: {} });
    const manager = {
      active: () => outer.context as Context,
      with: <A extends unknown[], R>(
        _: Context,
        fn: (...args: A) => R,
        self?: unknown,
        ...args: A
      ) => fn.call(self, ...args),
      bind: <T>(_: Context, target: T) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    };
    assert.ok(context.setGlobalContextManager(manager));
    try {
      const inner = startSpan(tracer, { name: "inner", kind: "internal", attributes: {} });
      (inner.span as Span).end();
    } finally {
      context.disable();
    }
    (outer.span as Span).end();
    const [innerDone, outerDone] = exporter.getFinishedSpans();
    assert.equal(innerDone.parentSpanContext?.spanId, outerDone.spanContext().spanId);
    await Promise.resolve();
  });
});
