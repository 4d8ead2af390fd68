import assert from "node:assert/strict";
import { type Context, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { createHost, createMemoryLogger, createScriptedModel, traceParentKey } from "@seam/host";
import {
  createSubagentService,
  startRunsUnder,
  type SubagentProvider,
  type SubagentRequest,
  type SubagentResumeRequest,
  type SubagentRun,
  type SubagentRunHandle,
} from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";
import { parentOf, type RecordedSpans, recordSpans } from "./trace_support.ts";

function delegatingHost() {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  installSubagentTool(host.scope, { provider: "spawn", maxDepth: 2 });
  return { host, subagents };
}

Deno.test("installSubagentTool() traces a delegation as execute_tool → invoke_agent → chat, one trace", async () => {
  const recorded = recordSpans();
  const { host } = delegatingHost();
  // The application's own span: the root agent's spans hang under it.
  const app = trace.getTracer("app").startSpan("app");
  host.scope.provide(traceParentKey, { context: trace.setSpan(ROOT_CONTEXT, app) });
  try {
    const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
    main.send(
      '@call subagent {"description": "Say hi", "prompt": "@reply hi from the child"}\n' +
        "@reply The child said: {{results}}",
    );
    const end = await main.whenIdle();
    assert.equal(end.reason, "completed");
    app.end();
    const spans = recorded.spans();
    const tool = recorded.one("execute_tool subagent");
    const run = recorded.one("invoke_agent spawn");
    const chats = spans.filter((s) => s.name === "chat scripted");
    // The root agent's two steps and the child's one.
    assert.equal(chats.length, 3);
    const childChat = chats.filter((s) => parentOf(s) === run.spanContext().spanId);
    assert.equal(childChat.length, 1);
    const appId = app.spanContext().spanId;
    assert.equal(chats.filter((s) => parentOf(s) === appId).length, 2);
    assert.equal(parentOf(tool), appId);
    assert.equal(parentOf(run), tool.spanContext().spanId);
    assert.equal(new Set(spans.map((s) => s.spanContext().traceId)).size, 1);

    assert.equal(tool.attributes["gen_ai.operation.name"], "execute_tool");
    assert.equal(tool.attributes["gen_ai.tool.name"], "subagent");
    assert.equal(typeof tool.attributes["gen_ai.tool.call.id"], "string");
    assert.equal(run.attributes["gen_ai.operation.name"], "invoke_agent");
    assert.equal(run.attributes["gen_ai.agent.name"], "spawn");
    assert.equal(run.attributes["gen_ai.provider.name"], "seam");
    assert.equal(run.attributes["seam.run.depth"], 1);
    assert.equal(run.attributes["seam.run.label"], "Say hi");
    assert.equal(run.attributes["seam.stop_reason"], "completed");
    assert.equal(typeof run.attributes["gen_ai.agent.id"], "string");
    assert.equal(run.attributes["seam.usage.model_calls"], 1);
    assert.equal(childChat[0].attributes["gen_ai.operation.name"], "chat");
    assert.equal(childChat[0].attributes["gen_ai.request.model"], "scripted");
    assert.deepEqual(childChat[0].attributes["gen_ai.response.finish_reasons"], ["stop"]);
    assert.equal(typeof childChat[0].attributes["gen_ai.usage.input_tokens"], "number");
    assert.equal(typeof childChat[0].attributes["gen_ai.usage.output_tokens"], "number");
    assert.equal(
      run.attributes["gen_ai.usage.output_tokens"],
      childChat[0].attributes["gen_ai.usage.output_tokens"],
    );
  } finally {
    await host.scope.dispose();
    await recorded.stop();
  }
});

Deno.test("SubagentService.start() marks a failed run's span as an error", async () => {
  const recorded = recordSpans();
  const { host, subagents } = delegatingHost();
  try {
    const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
    const run = subagents.start("spawn", { prompt: "@fail the model broke", parent: main });
    const result = await run.result;
    await run.dispose();
    assert.equal(result.stopReason, "error");
    const span = recorded.one("invoke_agent spawn");
    assert.equal(span.status.code, 2); // SpanStatusCode.ERROR
    assert.equal(span.attributes["seam.stop_reason"], "error");
    assert.equal(typeof span.attributes["error.type"], "string");
    const chat = recorded.one("chat scripted");
    assert.equal(parentOf(chat), span.spanContext().spanId);
    assert.equal(chat.status.code, 2);
  } finally {
    await host.scope.dispose();
    await recorded.stop();
  }
});

Deno.test("SubagentService.start() records nothing and hands no trace context on without a tracer provider", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(host.scope);
  const seen: SubagentRequest[] = [];
  const probe: SubagentProvider = {
    name: "probe",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      seen.push(request);
      return {
        id: "r1",
        started: Promise.resolve(),
        result: Promise.resolve({ output: [], stopReason: "completed" as const }),
        cancel() {},
        dispose: () => Promise.resolve(),
      };
    },
  };
  subagents.registerProvider(probe);
  try {
    const run = subagents.start("probe", { prompt: "x", parent: { id: "p", scope: host.scope } });
    await run.result;
    await run.dispose();
    assert.equal(seen.length, 1);
    assert.equal("traceContext" in seen[0], false);
    // With a provider registered, the same start carries the run's context.
    const recorded = recordSpans();
    try {
      const traced = subagents.start("probe", {
        prompt: "x",
        parent: { id: "p", scope: host.scope },
      });
      await traced.result;
      await traced.dispose();
      assert.notEqual(seen[1].traceContext, undefined);
      assert.equal(recorded.one("invoke_agent probe").attributes["gen_ai.agent.id"], "r1");
    } finally {
      await recorded.stop();
    }
  } finally {
    await host.scope.dispose();
  }
});

Deno.test("startRunsUnder() names the parent of the runs started inside it (a relay hangs its own run under its span)", async () => {
  const recorded = recordSpans();
  const { host, subagents } = delegatingHost();
  // A provider that hands its task on to spawn, under its own run's span.
  const relay: SubagentProvider = {
    name: "relay",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      const inner = startRunsUnder(
        request.traceContext,
        () => subagents.start("spawn", { prompt: request.prompt, parent: request.parent }),
      );
      return {
        id: "relay-1",
        started: inner.started,
        result: inner.result.then((r) => ({ output: r.output, stopReason: r.stopReason })),
        cancel: (reason?: string) => inner.cancel(reason),
        dispose: () => inner.dispose(),
      };
    },
  };
  subagents.registerProvider(relay);
  const app = trace.getTracer("app").startSpan("app");
  try {
    const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
    const run = startRunsUnder(
      trace.setSpan(ROOT_CONTEXT, app),
      () => subagents.start("relay", { prompt: "@reply relayed", parent: main }),
    );
    await run.result;
    await run.dispose();
    app.end();
    const outer = recorded.one("invoke_agent relay");
    const inner = recorded.one("invoke_agent spawn");
    assert.equal(parentOf(outer), app.spanContext().spanId);
    assert.equal(parentOf(inner), outer.spanContext().spanId);
    assert.equal(parentOf(recorded.one("chat scripted")), inner.spanContext().spanId);
  } finally {
    await host.scope.dispose();
    await recorded.stop();
  }
});

/** A spawn run and one resume of it, both ended and disposed; `check` reads their spans. */
async function resumedOnce(
  check: (recorded: RecordedSpans, first: SubagentRun, second: SubagentRun) => void,
): Promise<void> {
  const recorded = recordSpans();
  const { host, subagents } = delegatingHost();
  try {
    const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });
    const first = subagents.start("spawn", { prompt: "@reply one", parent });
    assert.equal((await first.result).stopReason, "completed");
    assert.ok(first.resume, "spawn runs resume");
    const second = first.resume("@reply two");
    assert.equal((await second.result).stopReason, "completed");
    await second.dispose();
    await first.dispose();
    check(recorded, first, second);
  } finally {
    await host.scope.dispose();
    await recorded.stop();
  }
}

Deno.test("SubagentRun.resume() gives the resumed run an invoke_agent span of its own", async () => {
  await resumedOnce((recorded, first, second) => {
    const runs = recorded.spans().filter((s) => s.name === "invoke_agent spawn");
    assert.equal(runs.length, 2);
    // The same run (one id) invoked twice: two spans.
    assert.equal(second.id, first.id);
    assert.ok(runs.every((s) => s.attributes["gen_ai.agent.id"] === first.id));
    assert.notEqual(runs[0].spanContext().spanId, runs[1].spanContext().spanId);
    assert.equal(parentOf(runs[0]), parentOf(runs[1]), "both hang where the first did");
    assert.ok(runs.every((s) => s.attributes["seam.stop_reason"] === "completed"));
  });
});

Deno.test("SubagentRun.resume() hangs the resumed turn's model calls under the resumed run's span", async () => {
  await resumedOnce((recorded) => {
    const [firstRun, secondRun] = recorded.spans().filter((s) => s.name === "invoke_agent spawn");
    const chats = recorded.spans().filter((s) => s.name === "chat scripted");
    assert.equal(chats.length, 2);
    assert.equal(parentOf(chats[0]), firstRun.spanContext().spanId);
    assert.equal(parentOf(chats[1]), secondRun.spanContext().spanId, "not the first run's");
    assert.equal(chats[1].spanContext().traceId, secondRun.spanContext().traceId);
  });
});

Deno.test("SubagentRun.resume() hands the provider the resumed run's trace context, and nothing without a tracer provider", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(host.scope);
  const resumes: unknown[][] = [];
  const handle = (): SubagentRunHandle => ({
    id: "r1",
    started: Promise.resolve(),
    result: Promise.resolve({ output: [], stopReason: "completed" as const }),
    cancel() {},
    dispose: () => Promise.resolve(),
    resume(...args: unknown[]) {
      resumes.push(args);
      return handle();
    },
  });
  subagents.registerProvider({
    name: "probe",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start: handle,
  });
  try {
    const run = subagents.start("probe", { prompt: "x", parent: { id: "p", scope: host.scope } });
    await run.result;
    const untraced = run.resume!("again");
    await untraced.result;
    assert.equal(resumes[0].length, 1, "the content alone");
    const recorded = recordSpans();
    try {
      const traced = run.resume!("once more");
      await traced.result;
      const [, request] = resumes[1] as [unknown, SubagentResumeRequest];
      const span = trace.getSpan(request.traceContext as Context);
      assert.equal(
        span?.spanContext().spanId,
        recorded.one("invoke_agent probe").spanContext().spanId,
        "the resumed run's own span",
      );
      assert.ok(Object.isFrozen(request));
    } finally {
      await recorded.stop();
    }
  } finally {
    await host.scope.dispose();
  }
});

Deno.test("SubagentRun.cancel() ends the cut-short model call's span without an error, as the run's", async () => {
  const recorded = recordSpans();
  const { host, subagents } = delegatingHost();
  try {
    const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
    const run = subagents.start("spawn", { prompt: "@hang", parent: main });
    await run.started;
    // Time for the child's model call to begin (the chat span below shows it did).
    await new Promise((resolve) => setTimeout(resolve, 50));
    await run.cancel();
    const result = await run.result;
    await run.dispose();
    assert.equal(result.stopReason, "aborted");
    const span = recorded.one("invoke_agent spawn");
    assert.equal(span.status.code, 0); // SpanStatusCode.UNSET
    const chat = recorded.one("chat scripted");
    assert.equal(parentOf(chat), span.spanContext().spanId);
    assert.equal(chat.status.code, 0);
    assert.equal(chat.attributes["error.type"], undefined);
  } finally {
    await host.scope.dispose();
    await recorded.stop();
  }
});
