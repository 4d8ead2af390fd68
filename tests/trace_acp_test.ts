// A resumed ACP run over a real child process (our ACP server, its spans
// exported to a file by its test-only entry): each `session/prompt` carries
// its own run's trace context in `_meta`, so the resumed prompt's span and
// its model call hang under the resumed run's `invoke_agent` span.
import assert from "node:assert/strict";
import { trace } from "@opentelemetry/api";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { parentOf, recordSpans, runAndResumeUnder, tracedAcpProvider } from "./trace_support.ts";

/** A span as the child process wrote it. */
interface ChildSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
}

Deno.test("createAcpProvider() prompts a resumed run under its own trace context, not the first run's", async () => {
  const { provider: acp, traceFile } = await tracedAcpProvider("acp", "trace_acp_resume");
  const recorded = recordSpans();
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  subagents.registerProvider(acp);
  // The application's span: both runs hang under it, one trace.
  const app = trace.getTracer("app").startSpan("app");
  try {
    await runAndResumeUnder(app, subagents, root, "acp");
  } finally {
    await root.dispose();
    // Disposing the provider ends the child process: its spans are written.
    await acp.dispose();
  }
  try {
    const runs = recorded.spans().filter((s) => s.name === "invoke_agent acp").sort((a, b) =>
      a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]
    );
    assert.equal(runs.length, 2);
    const child: ChildSpan[] = Deno.readTextFileSync(traceFile).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    const under = (name: string, parentId: string) =>
      child.filter((s) => s.name === name && s.parentSpanId === parentId);
    for (const [i, run] of runs.entries()) {
      const prompts = under("invoke_agent traced-child", run.spanContext().spanId);
      assert.equal(prompts.length, 1, `run ${i}'s prompt in ${JSON.stringify(child)}`);
      assert.equal(under("chat scripted", prompts[0].spanId).length, 1, `run ${i}'s model call`);
    }
    assert.equal(child.length, 4, "two prompts, two model calls");
    for (const run of runs) assert.equal(parentOf(run), app.spanContext().spanId);
    for (const span of child) assert.equal(span.traceId, app.spanContext().traceId, span.name);
  } finally {
    await recorded.stop();
    await Deno.remove(traceFile).catch(() => {});
  }
});
