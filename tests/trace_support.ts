/**
 * Test-only OpenTelemetry wiring: an in-memory exporter behind a simple
 * span processor, the W3C propagator, and (optionally) the async-hooks
 * context manager, registered globally for one test and removed after.
 */
import { context, propagation, ROOT_CONTEXT, type Span, trace } from "@opentelemetry/api";
import assert from "node:assert/strict";
import { type Scope, traceParentKey } from "@seam/host";
import type { SubagentService } from "@seam/subagent";
import { type AcpProvider, createAcpProvider } from "@seam/subagent-acp";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";

/** What a test reads back, and how it unregisters everything. */
export interface RecordedSpans {
  readonly exporter: InMemorySpanExporter;
  /** The finished spans so far. */
  spans(): ReadableSpan[];
  /** The one finished span named `name` (throws naming what there is otherwise). */
  one(name: string): ReadableSpan;
  /** Unregister the provider, propagator and context manager. */
  stop(): Promise<void>;
}

/** Register a recording tracer provider (and the W3C propagator) for a test. */
export function recordSpans(options: { contextManager?: boolean } = {}): RecordedSpans {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  if (!trace.setGlobalTracerProvider(provider)) {
    throw new Error(
      "Cannot record spans: a tracer provider is registered already (a test did not stop())",
    );
  }
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (options.contextManager) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  const spans = () => exporter.getFinishedSpans();
  return {
    exporter,
    spans,
    one(name) {
      const found = spans().filter((s) => s.name === name);
      if (found.length !== 1) {
        throw new Error(
          `expected one span "${name}", got ${found.length} of [${
            spans().map((s) => s.name).join(", ")
          }]`,
        );
      }
      return found[0];
    },
    async stop() {
      // The exporter answers each export on a timer: let them all finish.
      await provider.forceFlush();
      await new Promise((resolve) => setTimeout(resolve, 0));
      trace.disable();
      propagation.disable();
      context.disable();
      await provider.shutdown();
    },
  };
}

/**
 * Start `provider`'s run in a scope under `app`'s span, resume it once
 * (both complete), dispose both runs, then end `app`.
 */
export async function runAndResumeUnder(
  app: Span,
  subagents: SubagentService,
  root: Scope,
  provider: string,
): Promise<void> {
  const scope = root.child("a");
  scope.provide(traceParentKey, { context: trace.setSpan(ROOT_CONTEXT, app) });
  const first = subagents.start(provider, { prompt: "@reply one", parent: { id: "a", scope } });
  assert.equal((await first.result).stopReason, "completed");
  const second = first.resume!("@reply two");
  assert.equal((await second.result).stopReason, "completed");
  await second.dispose();
  await first.dispose();
  app.end();
}

/** A span's parent span id (`undefined` for a root). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

const OUT = new URL("./.out/", import.meta.url).pathname;
const WORKSPACE = new URL("../deno.json", import.meta.url).pathname;
const TRACED_SERVER = new URL("./testdata/acp_traced_server.ts", import.meta.url).pathname;

/**
 * An ACP provider `name` on the traced test server (testdata/acp_traced_server.ts),
 * a real child process writing the spans it records to a fresh file under
 * tests/.out; answers the provider and that file's path.
 */
export async function tracedAcpProvider(
  name: string,
  label: string,
): Promise<{ provider: AcpProvider; traceFile: string }> {
  await Deno.mkdir(OUT, { recursive: true });
  const traceFile = `${OUT}${label}_${crypto.randomUUID()}.jsonl`;
  const provider = createAcpProvider({
    name,
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--config",
      WORKSPACE,
      "--allow-env",
      `--allow-write=${OUT}`,
      TRACED_SERVER,
      "--trace-file",
      traceFile,
    ],
    disposeEofGraceMs: 2_000,
    disposeGraceMs: 1_000,
    startupTimeoutMs: 20_000,
  });
  return { provider, traceFile };
}
