import assert from "node:assert/strict";
import {
  type Agent,
  agentCreated,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  type ModelAdapter,
  type ModelRequest,
  textOf,
} from "@seam/host";
import {
  createSubagentService,
  delegationContextKey,
  OutputSchemaError,
  SubagentDepthError,
  subagentEnd,
  subagentProgress,
  type SubagentRunEndInfo,
  type SubagentService,
  type SubagentStartRequest,
} from "@seam/subagent";
import { createForkProvider } from "@seam/subagent-fork";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { createInProcessProvider, PERSONA_SECTION, STRUCTURED_RESULT_TOOL } from "./mod.ts";

interface World {
  host: Host;
  subagents: SubagentService;
  parent: Agent;
  /** Every model request, in order, with the calling agent's system prompt. */
  requests: ModelRequest[];
  created: string[];
  dispose(): Promise<void>;
}

/** Record every request the scripted model answers. */
function recording(requests: ModelRequest[], inner: ModelAdapter): ModelAdapter {
  return {
    name: "recording",
    stream(request) {
      requests.push(request);
      return inner.stream(request);
    },
  };
}

/**
 * A host on the scripted model with spawn and fork registered, a parent
 * agent, and a `delegate` tool that starts a spawn child for the calling
 * agent (so a child can delegate again).
 */
async function world(): Promise<World> {
  const host = createHost({ logger: createMemoryLogger().logger });
  const requests: ModelRequest[] = [];
  host.models.register(host.scope, "scripted", recording(requests, createScriptedModel()));
  host.models.register(host.scope, "other", recording(requests, createScriptedModel()));
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  subagents.registerProvider(createForkProvider());
  const created: string[] = [];
  host.scope.on(agentCreated, (info) => void created.push(info.agent.id));
  host.tools.register(host.scope, {
    name: "delegate",
    description: "Delegate to a spawn child",
    parameters: {
      type: "object",
      properties: { prompt: { type: "string" }, provider: { type: "string" } },
      required: ["prompt"],
    },
    async execute(args: { prompt: string; provider?: string }, call) {
      let run;
      try {
        run = subagents.start(args.provider ?? "spawn", {
          prompt: args.prompt,
          parent: call.agent,
          signal: call.signal,
        });
      } catch (error) {
        return { content: `refused: ${(error as Error).message}`, isError: true };
      }
      try {
        const result = await run.result;
        return { content: `${result.stopReason}: ${textOf(result.output)}` };
      } finally {
        await run.dispose();
      }
    },
  });
  const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });
  return { host, subagents, parent, requests, created, dispose: () => host.scope.dispose() };
}

function start(
  w: World,
  extra: Partial<SubagentStartRequest> & { prompt: string },
  name = "spawn",
) {
  return w.subagents.start(name, { parent: w.parent, ...extra });
}

Deno.test("createInProcessProvider() runs the child one level below its parent", async (t) => {
  await t.step("depth is the parent's + 1, the model the parent's", async () => {
    const w = await world();
    const run = start(w, { prompt: "@reply hi" });
    await run.started;
    const child = w.host.agents.get(run.id)!;
    assert.equal(child.options.subagentDepth, 1);
    assert.equal(child.options.model, "scripted");
    await run.result;
    await run.dispose();
    assert.equal(w.host.agents.get(run.id), undefined, "dispose tears the child down");
    await w.dispose();
  });
  await t.step("agentOptions.model picks another model; an unknown one throws first", async () => {
    const w = await world();
    const run = start(w, { prompt: "@reply hi", agentOptions: { model: "other" } });
    await run.started;
    assert.equal(w.host.agents.get(run.id)!.options.model, "other");
    await run.dispose();
    assert.throws(() => start(w, { prompt: "x", agentOptions: { model: "nope" } }), /nope/);
    assert.deepEqual(w.created, ["parent", run.id], "nothing was created for the bad request");
    await w.dispose();
  });
  await t.step("maxDepth refuses a child above it before it exists", async () => {
    const w = await world();
    assert.throws(() => start(w, { prompt: "x", maxDepth: 0 }), (error: unknown) => {
      assert.ok(error instanceof SubagentDepthError);
      assert.equal(error.depth, 1);
      assert.equal(error.maxDepth, 0);
      return true;
    });
    assert.deepEqual(w.created, ["parent"]);
    await w.dispose();
  });
  await t.step("a cap set above holds for grandchildren that do not repeat it", async () => {
    const w = await world();
    const run = start(w, {
      prompt: '@call delegate {"prompt": "@reply too deep"}\n@reply {{results}}',
      maxDepth: 1,
    });
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.match(textOf(result.output), /refused: .*depth 2, above the maximum depth 1/);
    await run.dispose();
    const deeper = start(w, {
      prompt: '@call delegate {"prompt": "@reply deep enough"}\n@reply {{results}}',
      maxDepth: 2,
    });
    assert.equal(textOf((await deeper.result).output), "completed: deep enough");
    await deeper.dispose();
    await w.dispose();
  });
});

Deno.test("createInProcessProvider() gives a persona to its child only", async () => {
  const w = await world();
  w.host.prompts.register(w.host.scope, { name: PERSONA_SECTION, text: "You are the deployment." });
  const withPersona = start(w, { prompt: "@system", persona: "You are Ada, terse." });
  const without = start(w, { prompt: "@system" });
  const [a, b] = await Promise.all([withPersona.result, without.result]);
  assert.equal(textOf(a.output), "You are Ada, terse.");
  assert.equal(textOf(b.output), "You are the deployment.");
  assert.equal(w.host.prompts.render(w.parent.scope), "You are the deployment.");
  await withPersona.dispose();
  await without.dispose();
  await w.dispose();
});

Deno.test("createInProcessProvider() hides and refuses a denied tool", async (t) => {
  await t.step("the denied tool is not offered and a call to it fails", async () => {
    const w = await world();
    w.host.tools.register(w.host.scope, {
      name: "bash",
      description: "Run a command",
      parameters: { type: "object" },
      execute: () => ({ content: "ran" }),
    });
    const run = start(w, {
      prompt: "@call bash {}\n@reply {{results}}",
      toolFilter: { deny: ["bash"] },
    });
    const result = await run.result;
    const childRequests = w.requests.filter((r) => r.messages.length > 0);
    assert.ok(childRequests.every((r) => !r.tools.some((tool) => tool.name === "bash")));
    assert.match(textOf(result.output), /bash/);
    assert.doesNotMatch(textOf(result.output), /^ran$/);
    const session = w.host.agents.get(run.id)!.session.events();
    const toolResult = session.find((e) => e.type === "tool-result");
    assert.equal(toolResult?.type === "tool-result" && toolResult.code, "UNKNOWN_TOOL");
    await run.dispose();
    // The parent still has it.
    assert.ok(w.host.tools.visible(w.parent.scope).some((tool) => tool.name === "bash"));
    await w.dispose();
  });
  await t.step("an unknown name throws before any child exists", async () => {
    const w = await world();
    assert.throws(() => start(w, { prompt: "x", toolFilter: { allow: ["nope"] } }), /nope/);
    assert.deepEqual(w.created, ["parent"]);
    await w.dispose();
  });
});

Deno.test("createInProcessProvider() captures structured output", async (t) => {
  const schema = {
    type: "object",
    properties: { answer: { type: "string" } },
    required: ["answer"],
    additionalProperties: false,
  };
  await t.step("a valid capture commits and ends the turn", async () => {
    const w = await world();
    const run = start(w, {
      prompt: `@call ${STRUCTURED_RESULT_TOOL} {"answer": "forty-two"}\n@reply never said`,
      outputSchema: schema,
    });
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.deepEqual(result.structured, { answer: "forty-two" });
    assert.doesNotMatch(textOf(result.output), /never said/);
    await run.dispose();
    await w.dispose();
  });
  await t.step("invalid arguments go back to the model, which retries", async () => {
    const w = await world();
    const run = start(w, {
      prompt: [
        `@call ${STRUCTURED_RESULT_TOOL} {"answer": 42}`,
        `@call ${STRUCTURED_RESULT_TOOL} {"answer": "fixed"}`,
      ].join("\n"),
      outputSchema: schema,
    });
    const result = await run.result;
    assert.deepEqual(result.structured, { answer: "fixed" });
    const session = w.host.agents.get(run.id)!.session.events();
    const codes = session.flatMap((e) => e.type === "tool-result" ? [e.code ?? "ok"] : []);
    assert.deepEqual(codes, ["INVALID_ARGS", "ok"]);
    await run.dispose();
    await w.dispose();
  });
  await t.step("a second capture in the same step is refused", async () => {
    const w = await world();
    const run = start(w, {
      prompt: `@calls ${
        JSON.stringify([
          { name: STRUCTURED_RESULT_TOOL, args: { answer: "first" } },
          { name: STRUCTURED_RESULT_TOOL, args: { answer: "second" } },
        ])
      }`,
      outputSchema: schema,
    });
    const result = await run.result;
    assert.deepEqual(result.structured, { answer: "first" });
    const session = w.host.agents.get(run.id)!.session.events();
    const errors = session.filter((e) => e.type === "tool-result" && e.isError);
    assert.equal(errors.length, 1);
    await run.dispose();
    await w.dispose();
  });
  await t.step("a run that never captures ends error", async () => {
    const w = await world();
    const run = start(w, { prompt: "@reply no structure here", outputSchema: schema });
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.equal(textOf(result.output), "no structure here", "the output is the child's own words");
    assert.equal(result.error?.code, "NO_STRUCTURED_RESULT");
    assert.match(result.error!.message, /without submitting a structured result/);
    await run.dispose();
    await w.dispose();
  });
  await t.step("two concurrent children each see only their own schema", async () => {
    const w = await world();
    const schemaA = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    const schemaB = { type: "object", properties: { b: { type: "integer" } }, required: ["b"] };
    const runA = start(w, {
      prompt: `@call ${STRUCTURED_RESULT_TOOL} {"a": "x"}`,
      outputSchema: schemaA,
    });
    const runB = start(w, {
      prompt: `@call ${STRUCTURED_RESULT_TOOL} {"b": 7}`,
      outputSchema: schemaB,
    });
    const [a, b] = await Promise.all([runA.result, runB.result]);
    assert.deepEqual(a.structured, { a: "x" });
    assert.deepEqual(b.structured, { b: 7 });
    const captureSpecs = w.requests.flatMap((r) =>
      r.tools.filter((tool) => tool.name === STRUCTURED_RESULT_TOOL).map((tool) =>
        JSON.stringify(tool.parameters)
      )
    );
    assert.equal(captureSpecs.length, 2, "each child was offered exactly one capture tool");
    assert.notEqual(captureSpecs[0], captureSpecs[1]);
    assert.ok(!w.host.tools.visible(w.host.scope).some((t) => t.name === STRUCTURED_RESULT_TOOL));
    assert.ok(!w.host.tools.visible(w.parent.scope).some((t) => t.name === STRUCTURED_RESULT_TOOL));
    await runA.dispose();
    await runB.dispose();
    await w.dispose();
  });
  await t.step("a malformed schema is refused before start", async () => {
    const w = await world();
    assert.throws(
      () => start(w, { prompt: "x", outputSchema: { type: "object", minProperties: "1" } }),
      OutputSchemaError,
    );
    assert.deepEqual(w.created, ["parent"]);
    await w.dispose();
  });
});

Deno.test("fork seeds the child with the parent's completed turns only", async () => {
  const w = await world();
  w.parent.send("@reply the first answer");
  await w.parent.whenIdle();
  const prefixLength = w.parent.session.completedPrefix().length;
  // Turn 2 of the parent is open (its delegate call is pending) while it forks.
  let seeded: string[] = [];
  w.host.tools.register(w.host.scope, {
    name: "fork_now",
    description: "Fork",
    parameters: { type: "object" },
    async execute(_args, call) {
      const run = w.subagents.start("fork", { prompt: "@echo", parent: call.agent });
      try {
        await run.started;
        seeded = w.host.agents.get(run.id)!.session.events().slice(0, prefixLength + 1).map((e) =>
          e.type
        );
        return { content: textOf((await run.result).output) };
      } finally {
        await run.dispose();
      }
    },
  });
  w.parent.send("@call fork_now {}\n@reply {{results}}");
  const end = await w.parent.whenIdle();
  assert.equal(end.reason, "completed");
  const parentPrefix = w.parent.session.events().slice(0, prefixLength).map((e) => e.type);
  assert.deepEqual(seeded.slice(0, prefixLength), parentPrefix);
  assert.equal(parentPrefix.at(-1), "turn-end");
  assert.equal(seeded[prefixLength], "turn-start", "the open turn was not copied");
  // The fork's model saw the parent's first answer in its conversation.
  const forkRequest = w.requests.find((r) =>
    r.messages.some((m) => m.role === "assistant" && textOf(m.content) === "the first answer") &&
    r.messages.some((m) => m.role === "user" && textOf(m.content) === "@echo")
  );
  assert.ok(forkRequest, "the fork saw the completed turn");
  assert.ok(
    !forkRequest.messages.some((m) => m.role === "user" && textOf(m.content).includes("fork_now")),
    "the fork did not see the open turn",
  );
  await w.dispose();
});

Deno.test("fork refuses a parent that is not an agent of the host", async () => {
  const w = await world();
  assert.throws(
    () => w.subagents.start("fork", { prompt: "x", parent: { id: "ghost", scope: w.host.scope } }),
    /not an agent of this host/,
  );
  await w.dispose();
});

Deno.test("one parent drives a spawn child and a fork child in turn", async () => {
  const w = await world();
  w.parent.send(
    '@call delegate {"prompt": "@reply from spawn"}\n' +
      '@call delegate {"prompt": "@reply from fork", "provider": "fork"}\n' +
      "@reply done",
  );
  const end = await w.parent.whenIdle();
  assert.equal(end.reason, "completed");
  const results = w.parent.session.events().flatMap((e) =>
    e.type === "tool-result" ? [textOf(e.content)] : []
  );
  assert.deepEqual(results, ["completed: from spawn", "completed: from fork"]);
  assert.deepEqual(w.host.agents.list().map((a) => a.id), ["parent"], "both children are gone");
  await w.dispose();
});

Deno.test("createInProcessProvider() ends aborted at every cancellation moment", async (t) => {
  await t.step("cancel before readiness publishes nothing", async () => {
    const w = await world();
    const run = start(w, { prompt: "@reply never" });
    run.cancel("changed my mind");
    assert.equal((await run.result).stopReason, "aborted");
    await assert.rejects(run.started);
    await run.dispose();
    assert.deepEqual(w.created, ["parent"]);
    await w.dispose();
  });
  await t.step("dispose before readiness publishes nothing", async () => {
    const w = await world();
    const run = start(w, { prompt: "@reply never" });
    await run.dispose();
    assert.equal((await run.result).stopReason, "aborted");
    assert.deepEqual(w.created, ["parent"]);
    await w.dispose();
  });
  await t.step("cancel during a model call", async () => {
    const w = await world();
    const run = start(w, { prompt: "@hang" });
    await run.started;
    run.cancel();
    assert.equal((await run.result).stopReason, "aborted");
    await run.dispose();
    await w.dispose();
  });
  await t.step("cancel during a tool call aborts the tool's signal", async () => {
    const w = await world();
    let toolSignal: AbortSignal | undefined;
    let entered!: () => void;
    const inTool = new Promise<void>((resolve) => entered = resolve);
    w.host.tools.register(w.host.scope, {
      name: "slow",
      description: "Wait until aborted",
      parameters: { type: "object" },
      execute: (_args, call) => {
        toolSignal = call.signal;
        entered();
        return new Promise((resolve) =>
          call.signal.addEventListener("abort", () => resolve({ content: "stopped" }))
        );
      },
    });
    const run = start(w, { prompt: "@call slow {}" });
    await inTool;
    run.cancel();
    assert.equal((await run.result).stopReason, "aborted");
    assert.equal(toolSignal?.aborted, true);
    await run.dispose();
    await w.dispose();
  });
  await t.step("disposing the parent agent tears down its running children", async () => {
    const w = await world();
    const run = start(w, { prompt: "@hang" });
    await run.started;
    const childId = run.id;
    await w.parent.dispose();
    assert.equal((await run.result).stopReason, "aborted");
    assert.equal(w.host.agents.get(childId), undefined);
    await run.dispose();
    await w.dispose();
  });
});

Deno.test("run.sendMessage() steers a running child", async () => {
  const w = await world();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  let entered!: () => void;
  const inTool = new Promise<void>((resolve) => entered = resolve);
  w.host.tools.register(w.host.scope, {
    name: "wait",
    description: "Wait for the test",
    parameters: { type: "object" },
    execute: async () => {
      entered();
      await gate;
      return { content: "waited" };
    },
  });
  const run = start(w, { prompt: "@call wait {}\n@reply not steered" });
  await inTool;
  await run.sendMessage!("@reply steered");
  release();
  const result = await run.result;
  assert.equal(textOf(result.output), "steered");
  await assert.rejects(run.sendMessage!("late"), /has finished; use resume/);
  await run.dispose();
  await w.dispose();
});

Deno.test("run.resume() continues the finished child with its context", async () => {
  const w = await world();
  const first = start(w, { prompt: "@reply one" });
  assert.throws(() => first.resume!("too early"), /has not finished/);
  assert.equal(textOf((await first.result).output), "one");
  const second = first.resume!("@reply two");
  assert.equal(second.id, first.id, "the same child");
  // Disposing the first run does not kill the child the second still holds.
  await first.dispose();
  const result = await second.result;
  assert.equal(textOf(result.output), "two");
  const turns = w.host.agents.get(second.id)!.session.events().filter((e) => e.type === "turn-end");
  assert.equal(turns.length, 2, "the child kept its first turn");
  await second.dispose();
  assert.equal(w.host.agents.get(second.id), undefined);
  assert.throws(() => first.resume!("again"), /disposed/);
  await w.dispose();
});

Deno.test("run.resume() refuses while a run resumed from it still runs: one turn at a time", async () => {
  const w = await world();
  const first = start(w, { prompt: "@reply one" });
  await first.result;
  const second = first.resume!("@hang");
  await second.started;
  assert.throws(() => first.resume!("@reply three"), /still running a run resumed from it/);
  assert.throws(() => second.resume!("@reply three"), /has not finished/);
  second.cancel("enough");
  assert.equal((await second.result).stopReason, "aborted");
  // Once it settled, the child takes the next turn, from either handle.
  const third = first.resume!("@reply three");
  assert.equal(textOf((await third.result).output), "three");
  for (const run of [first, second, third]) await run.dispose();
  await w.dispose();
});

Deno.test("createInProcessProvider() called directly still checks its input", async () => {
  const w = await world();
  const provider = createInProcessProvider({ name: "direct", inheritsParentContext: false });
  const base = { prompt: [{ type: "text" as const, text: "@reply x" }], parent: w.parent };
  assert.throws(() => provider.start({ ...base, maxDepth: -1 }), RangeError);
  assert.throws(() => provider.start({ ...base, prompt: [] }), /non-empty list/);
  assert.throws(
    () => provider.start({ ...base, parent: { id: "p", scope: createHost().scope.child() } }),
    /no model for the child/,
  );
  assert.throws(
    () => createInProcessProvider({ name: "x", inheritsParentContext: "yes" as never }),
    /inheritsParentContext/,
  );
  assert.deepEqual(w.created, ["parent"]);
  await w.dispose();
});

Deno.test("createInProcessProvider() relays the child's progress to the parent's scope", async () => {
  const w = await world();
  const progress: string[] = [];
  const places = new Set<string>();
  w.parent.scope.on(subagentProgress, (info) => {
    places.add(
      `${info.runId} ${info.provider} depth ${info.depth} under ${info.parentRunId ?? "-"}`,
    );
    progress.push(
      `${info.runId === first.id ? "child" : "grandchild"} ${info.kind} ${
        info.kind === "text" ? info.text!.trim() : info.name
      }`,
    );
  });
  const first = start(w, {
    prompt: '@call delegate {"prompt": "@reply deep words"}\n@reply got it',
  });
  const result = await first.result;
  assert.equal(textOf(result.output), "got it");
  assert.deepEqual(progress, [
    "child tool-call delegate",
    "grandchild text deep",
    "grandchild text words",
    "child tool-result delegate",
    "child text got",
    "child text it",
  ]);
  // Each progress event says where it is in the tree, like subagent/start.
  const grandchildId = [...places].find((p) => !p.startsWith(`${first.id} `))!.split(" ")[0];
  assert.deepEqual([...places], [
    `${first.id} spawn depth 1 under -`,
    `${grandchildId} spawn depth 2 under ${first.id}`,
  ]);
  await first.dispose();
  await w.dispose();
});

Deno.test("createInProcessProvider() takes the deeper of the agent's and the scope's depth", async () => {
  const w = await world();
  // A gateway serving a remote caller at depth 2 runs the task under the
  // parent agent's id, in a scope that carries the caller's place.
  const taskScope = w.parent.scope.child("task");
  taskScope.provide(delegationContextKey, { depth: 2, maxDepth: 3 });
  const run = w.subagents.start("spawn", {
    prompt: "@reply hi",
    parent: { id: w.parent.id, scope: taskScope },
  });
  await run.started;
  assert.equal(w.host.agents.get(run.id)!.options.subagentDepth, 3);
  await run.dispose();
  const deeper = { depth: 3, maxDepth: 3 };
  const capped = w.parent.scope.child("capped");
  capped.provide(delegationContextKey, deeper);
  assert.throws(
    () => w.subagents.start("spawn", { prompt: "x", parent: { id: w.parent.id, scope: capped } }),
    SubagentDepthError,
  );
  await w.dispose();
});

Deno.test("createInProcessProvider() reports a failure as result.error, not as output", async (t) => {
  await t.step("a model failure after a tool step keeps the child's words", async () => {
    const w = await world();
    const run = start(w, {
      prompt: '@call delegate {"prompt": "@reply inner"}\n@fail the model broke',
    });
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.deepEqual(result.error, { code: "CHILD_FAILED", message: "the model broke" });
    assert.doesNotMatch(textOf(result.output), /model broke|\[error\]/);
    await run.dispose();
    await w.dispose();
  });
  await t.step("a child whose creation fails is START_FAILED with empty output", async () => {
    const w = await world();
    w.host.agents.create = () => Promise.reject(new Error("no room for agents"));
    const run = start(w, { prompt: "@reply never" });
    const result = await run.result;
    await assert.rejects(run.started, /no room for agents/);
    assert.equal(result.stopReason, "error");
    assert.deepEqual(result.output, []);
    assert.equal(result.error?.code, "START_FAILED");
    assert.match(result.error!.message, /could not start: no room for agents/);
    await run.dispose();
    await w.dispose();
  });
});

Deno.test("createInProcessProvider() reports the child's usage, rolled up over its descendants", async (t) => {
  await t.step("the scripted model's figures, the grandchild's added to the total", async () => {
    const w = await world();
    const ends: SubagentRunEndInfo[] = [];
    w.parent.scope.on(subagentEnd, (info) => void ends.push(info));
    const run = start(w, {
      prompt: '@call delegate {"prompt": "@reply deep words"}\n@reply got it',
    });
    const usage = (await run.result).usage!;
    const grandchild = ends.find((e) => e.runId !== run.id)!.usage;
    assert.equal(grandchild.self.modelCalls, 1);
    assert.equal(grandchild.self.toolCalls, 0);
    assert.equal(grandchild.self.outputTokens, 2, "the scripted model counts the words it said");
    assert.equal(usage.self.modelCalls, 2, "a tool step and the reply");
    assert.equal(usage.self.toolCalls, 1);
    assert.ok(usage.self.inputTokens > 0);
    for (const key of ["inputTokens", "outputTokens", "modelCalls", "toolCalls"] as const) {
      assert.equal(usage.total[key], usage.self[key] + grandchild.total[key], key);
    }
    assert.equal(usage.partial, false);
    await run.dispose();
    await w.dispose();
  });
  await t.step("a model that reports no usage makes it partial", async () => {
    const w = await world();
    w.host.models.register(w.host.scope, "silent", {
      name: "silent",
      async *stream() {
        yield { type: "text-delta", text: "quiet" };
        yield { type: "finish", reason: "stop" };
      },
    });
    const run = start(w, { prompt: "anything", agentOptions: { model: "silent" } });
    const usage = (await run.result).usage!;
    assert.equal(usage.partial, true);
    assert.equal(usage.self.modelCalls, 1);
    assert.equal(usage.self.inputTokens, 0);
    await run.dispose();
    await w.dispose();
  });
});
