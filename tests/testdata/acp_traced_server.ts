// Test-only: our ACP server (`serveAcpAgent`, scripted model) in a child
// process whose application registered OpenTelemetry: a tracer provider
// exporting each finished span as one JSON line to the file named by
// `--trace-file`, and the W3C propagator (so `_meta` trace context is read).
// Usage: deno run --allow-env --allow-write=<dir> acp_traced_server.ts --trace-file <path>
import { propagation, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
import { serveAcpAgent } from "@seam/subagent-acp";

const at = Deno.args.indexOf("--trace-file");
const file = at >= 0 ? Deno.args[at + 1] : undefined;
if (!file) throw new Error("acp_traced_server.ts: --trace-file <path> is required");

const exporter = {
  export(spans: ReadableSpan[], done: (result: { code: 0 }) => void) {
    const lines = spans.map((span) =>
      JSON.stringify({
        name: span.name,
        kind: span.kind,
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        parentIsRemote: span.parentSpanContext?.isRemote === true,
        attributes: span.attributes,
        status: span.status,
      }) + "\n"
    ).join("");
    // Written at once: the process may exit right after its last span ends.
    Deno.writeTextFileSync(file, lines, { append: true });
    done({ code: 0 });
  },
  shutdown: () => Promise.resolve(),
};
trace.setGlobalTracerProvider(
  new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

const host = createHost({ logger: createMemoryLogger().logger });
host.models.register(host.scope, "scripted", createScriptedModel());
const server = serveAcpAgent({
  host,
  model: "scripted",
  name: "traced-child",
  streams: { readable: Deno.stdin.readable, writable: Deno.stdout.writable },
});
await server.closed;
await host.scope.dispose();
Deno.exit(0);
