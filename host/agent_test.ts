import assert from "node:assert/strict";
import {
  type Agent,
  agentCreated,
  agentDisposed,
  agentTextDelta,
  agentToolCallEnd,
  agentToolCallStart,
  agentTurnEnd,
  agentTurnStart,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  InactiveScopeError,
  type ModelAdapter,
  type ModelEvent,
  type ModelRequest,
  type SessionEvent,
  type TurnEnd,
} from "./mod.ts";

function setup(): Host {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  return host;
}

function text(end: TurnEnd): string {
  return end.output.map((block) => block.type === "text" ? block.text : "").join("");
}

function types(events: readonly SessionEvent[]): string[] {
  return events.map((event) => event.type);
}

/** A model that answers with `answer(request)`, remembering every request. */
function recordingModel(
  answer: (request: ModelRequest, index: number) => AsyncIterable<ModelEvent>,
): ModelAdapter & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: "recording",
    requests,
    stream(request) {
      requests.push(request);
      return answer(request, requests.length - 1);
    },
  };
}

async function* reply(textValue: string): AsyncGenerator<ModelEvent> {
  yield { type: "text-delta", text: textValue };
  yield { type: "finish", reason: "stop" };
}

Deno.test("AgentRegistry.create() publishes the agent after its setup window", async (t) => {
  const host = setup();
  const seen: string[] = [];
  host.scope.on(agentCreated, ({ agent }) => void seen.push(`created ${agent.id}`));
  host.scope.on(agentDisposed, ({ agentId }) => void seen.push(`disposed ${agentId}`));

  await t.step("setup runs on the unpublished agent", async () => {
    const agent = await host.agents.create({
      id: "a1",
      options: { model: "scripted" },
      setup(agent) {
        assert.equal(agent.state, "creating");
        assert.equal(host.agents.get("a1"), undefined);
        assert.deepEqual(host.agents.list(), []);
        assert.deepEqual(seen, []);
        assert.throws(() => agent.send("hi"), /still being created/);
        host.prompts.register(agent.scope, { name: "persona", text: "I am {{agentId}}" });
      },
    });
    assert.equal(agent.state, "idle");
    assert.equal(host.agents.get("a1"), agent);
    assert.deepEqual(host.agents.list(), [agent]);
    assert.deepEqual(seen, ["created a1"]);
    assert.equal(agent.scope.parent, host.scope);
    assert.equal(agent.host, host);
    assert.deepEqual(agent.options, { model: "scripted", subagentDepth: 0 });
    assert.ok(Object.isFrozen(agent.options));
    agent.send("@system");
    assert.equal(text(await agent.whenIdle()), "I am a1");
  });

  await t.step("an async setup is awaited; ids are generated when not given", async () => {
    const agent = await host.agents.create({
      options: { model: "scripted", subagentDepth: 2 },
      async setup(agent) {
        await Promise.resolve();
        host.prompts.register(agent.scope, { name: "x", text: "async" });
      },
    });
    assert.match(agent.id, /^agent-\d+$/);
    assert.equal(agent.options.subagentDepth, 2);
    agent.send("@system");
    assert.equal(text(await agent.whenIdle()), "async");
  });

  await t.step("disposing the parent scope disposes the agent", async () => {
    const parent = host.scope.child("parent");
    const agent = await host.agents.create({ parentScope: parent, options: { model: "scripted" } });
    assert.equal(agent.scope.parent, parent);
    seen.length = 0;
    await parent.dispose();
    assert.equal(agent.state, "disposed");
    assert.equal(host.agents.get(agent.id), undefined);
    assert.deepEqual(seen, [`disposed ${agent.id}`]);
    assert.throws(() => agent.send("hi"), /disposed/);
  });

  await host.scope.dispose();
  assert.deepEqual(host.agents.list(), []);
});

Deno.test("AgentRegistry.create() publishes nothing when creation fails", async (t) => {
  const host = setup();
  const events: string[] = [];
  host.scope.on(agentCreated, ({ agent }) => void events.push(agent.id));
  host.scope.on(agentDisposed, ({ agentId }) => void events.push(agentId));
  const assertNothing = () => {
    assert.deepEqual(host.agents.list(), []);
    assert.deepEqual(events, []);
  };

  await t.step("cancelled during an async setup", async () => {
    const controller = new AbortController();
    let undone = false;
    let scopeState = "";
    let agentRef: Agent | undefined;
    const pending = host.agents.create({
      id: "c1",
      options: { model: "scripted" },
      signal: controller.signal,
      setup: async (agent) => {
        agentRef = agent;
        agent.scope.onDispose(() => void (undone = true));
        await new Promise<void>((resolve) =>
          agent.scope.signal.addEventListener("abort", () => resolve())
        );
        scopeState = agent.scope.state;
      },
    });
    await Promise.resolve();
    controller.abort(new Error("stop creating"));
    await assert.rejects(pending, /stop creating/);
    assert.ok(undone, "the setup's registrations were undone");
    assert.equal(agentRef?.scope.state, "disposed");
    assert.equal(scopeState, "disposing");
    assert.equal(host.agents.get("c1"), undefined);
    assertNothing();
  });

  await t.step("an already aborted signal", async () => {
    let ran = false;
    await assert.rejects(
      host.agents.create({
        options: { model: "scripted" },
        signal: AbortSignal.abort(new Error("too late")),
        setup: () => void (ran = true),
      }),
      /too late/,
    );
    assert.equal(ran, false);
    assertNothing();
  });

  await t.step("its scope disposed during setup", async () => {
    const parent = host.scope.child("p");
    const pending = host.agents.create({
      parentScope: parent,
      options: { model: "scripted" },
      setup: () => new Promise<void>(() => {}),
    });
    await Promise.resolve();
    await parent.dispose();
    await assert.rejects(pending, InactiveScopeError);
    assertNothing();
  });

  await t.step("its scope disposed by a synchronous setup", async () => {
    await assert.rejects(
      host.agents.create({
        options: { model: "scripted" },
        setup: (agent) => void agent.scope.dispose(),
      }),
      InactiveScopeError,
    );
    assertNothing();
  });

  await t.step("an async setup that rejects", async () => {
    await assert.rejects(
      host.agents.create({
        options: { model: "scripted" },
        signal: new AbortController().signal,
        setup: () => Promise.reject(new Error("async bad setup")),
      }),
      /async bad setup/,
    );
    assertNothing();
  });

  await t.step("a setup that throws", async () => {
    let scope;
    await assert.rejects(
      host.agents.create({
        options: { model: "scripted" },
        setup: (agent) => {
          scope = agent.scope;
          throw new Error("bad setup");
        },
      }),
      /bad setup/,
    );
    assert.equal(scope!.state, "disposed");
    assertNothing();
  });

  await t.step("a parent scope already disposed", async () => {
    const parent = host.scope.child("gone");
    await parent.dispose();
    await assert.rejects(
      host.agents.create({ parentScope: parent, options: { model: "scripted" } }),
      InactiveScopeError,
    );
    assertNothing();
  });

  await t.step("an unknown model (after setup, which may register one)", async () => {
    await assert.rejects(
      host.agents.create({ options: { model: "nope" } }),
      (error: unknown) =>
        error instanceof RangeError && /Cannot resolve model "nope"/.test(error.message) &&
        /"scripted"/.test(error.message),
    );
    const agent = await host.agents.create({
      options: { model: "local" },
      setup: (agent) =>
        void host.models.register(agent.scope, "local", createScriptedModel({ name: "local" })),
    });
    events.length = 0;
    await agent.dispose();
    events.length = 0;
    assertNothing();
  });

  await t.step("bad options, ids and fields", async () => {
    const bad: [unknown, RegExp][] = [
      [{ options: { model: "" } }, /options\.model/],
      [{ options: {} }, /options\.model/],
      [{ options: { model: "scripted", subagentDepth: -1 } }, /subagentDepth/],
      [{ options: { model: "scripted", subagentDepth: 1.5 } }, /subagentDepth/],
      [{ options: { model: "scripted", subagentDepth: "1" } }, /subagentDepth/],
      [{ options: { model: "scripted", maxTokens: 0 } }, /maxTokens/],
      [
        { options: { model: "scripted", temperature: 1 } },
        /^Cannot create an agent: unknown option options\.temperature \(known: model, subagentDepth, maxTokens\)$/,
      ],
      [{ options: { model: "scripted", when: new Date() } }, /options\.when/],
      [{ options: { model: () => "x" } }, /options\.model/],
      [{ options: { model: "scripted" }, id: "" }, /id must be/],
      [
        { options: { model: "scripted" }, setpu: () => {} },
        /^Cannot create an agent: unknown option setpu \(known: parentScope, options, setup, session, id, signal\)$/,
      ],
      [{ options: { model: "scripted" }, setup: 1 }, /setup must be/],
      [{ options: { model: "scripted" }, parentScope: {} }, /parentScope must be a Scope/],
      [{ options: { model: "scripted" }, signal: {} }, /signal must be an AbortSignal/],
      [null, /expected an options object/],
    ];
    for (const [init, pattern] of bad) {
      await assert.rejects(
        host.agents.create(init as never),
        (error: unknown) => error instanceof Error && pattern.test(error.message),
        String(pattern),
      );
    }
    const agent = await host.agents.create({ id: "dup", options: { model: "scripted" } });
    events.length = 0;
    await assert.rejects(
      host.agents.create({ id: "dup", options: { model: "scripted" } }),
      /already exists/,
    );
    await agent.dispose();
    events.length = 0;
    assertNothing();
  });

  await host.scope.dispose();
});

Deno.test("Agent.send() runs a turn and records the session", async () => {
  const host = setup();
  const agent = await host.agents.create({ id: "s", options: { model: "scripted" } });
  const deltas: string[] = [];
  const turns: string[] = [];
  agent.scope.on(agentTextDelta, ({ agentId, text }) => {
    assert.equal(agentId, "s");
    deltas.push(text);
  });
  host.scope.on(agentTurnStart, ({ turn }) => void turns.push(`start ${turn}`));
  host.scope.on(agentTurnEnd, ({ turn, end }) => void turns.push(`end ${turn} ${end.reason}`));
  assert.equal(agent.state, "idle");
  await assert.rejects(agent.whenIdle(), /has not run a turn/);
  agent.send("@reply Hello there, world");
  assert.equal(agent.state, "running");
  const end = await agent.whenIdle();
  assert.equal(agent.state, "idle");
  assert.equal(end.reason, "completed");
  assert.equal(text(end), "Hello there, world");
  assert.deepEqual(deltas, ["Hello ", "there, ", "world"]);
  assert.ok(Object.isFrozen(end));
  assert.deepEqual(end.usage, { inputTokens: 4, outputTokens: 3 });
  assert.deepEqual(end.counts, { modelCalls: 1, unreportedModelCalls: 0, toolCalls: 0 });
  assert.equal(await agent.whenIdle(), end);
  const events = agent.session.events();
  assert.deepEqual(types(events), ["turn-start", "user-message", "assistant-message", "turn-end"]);
  events.forEach((event, i) => {
    assert.equal(event.seq, i);
    assert.ok(Object.isFrozen(event));
  });
  assert.deepEqual(events[3], { seq: 3, type: "turn-end", turn: 1, reason: "completed" });

  agent.send([{ type: "text", text: "second" }]);
  const second = await agent.whenIdle();
  assert.equal(text(second), "second");
  assert.equal(agent.session.length, 8);
  assert.deepEqual(turns, ["start 1", "end 1 completed", "start 2", "end 2 completed"]);

  assert.throws(() => agent.send(""), TypeError);
  assert.throws(() => agent.send([{ type: "bogus" }] as never), /Invalid content\[0\]\.type/);
  await host.scope.dispose();
});

Deno.test("Agent runs a step's tool calls in parallel and feeds the results back", async () => {
  const host = setup();
  const started: string[] = [];
  const gates = new Map<string, PromiseWithResolvers<void>>();
  for (const name of ["a", "b"]) gates.set(name, Promise.withResolvers<void>());
  host.tools.register(host.scope, {
    name: "wait",
    description: "Wait for a gate",
    parameters: { type: "object", properties: { gate: { type: "string" } }, required: ["gate"] },
    async execute({ gate }: { gate: string }, call) {
      started.push(`${gate} ${call.callId} ${call.agent.id}`);
      await gates.get(gate)!.promise;
      return { content: `gate ${gate} open` };
    },
  });
  const agent = await host.agents.create({ id: "p", options: { model: "scripted" } });
  const toolEvents: string[] = [];
  agent.scope.on(agentToolCallStart, ({ name, args }) => {
    toolEvents.push(`start ${name} ${JSON.stringify(args)}`);
  });
  agent.scope.on(agentToolCallEnd, ({ callId, isError }) => {
    toolEvents.push(`end ${callId} ${isError}`);
  });
  agent.send([
    '@calls [{"name": "wait", "args": {"gate": "a"}}, {"name": "wait", "args": {"gate": "b"}}]',
    "@reply Both: {{results}}",
  ].join("\n"));
  while (started.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
  assert.deepEqual(started, ["a call_0_0 p", "b call_0_1 p"], "both calls run at once");
  gates.get("b")!.resolve();
  gates.get("a")!.resolve();
  const end = await agent.whenIdle();
  assert.equal(text(end), "Both: gate a open\ngate b open");
  assert.deepEqual(end.counts, { modelCalls: 2, unreportedModelCalls: 0, toolCalls: 2 });
  assert.deepEqual(toolEvents, [
    'start wait {"gate":"a"}',
    'start wait {"gate":"b"}',
    "end call_0_1 false",
    "end call_0_0 false",
  ]);
  assert.deepEqual(types(agent.session.events()), [
    "turn-start",
    "user-message",
    "assistant-message",
    "tool-call",
    "tool-call",
    "tool-result",
    "tool-result",
    "assistant-message",
    "turn-end",
  ]);
  await host.scope.dispose();
});

Deno.test("Agent.send() while running steers the turn at its next model step", async (t) => {
  await t.step("a message sent during a tool call joins after the results", async () => {
    const host = setup();
    const gate = Promise.withResolvers<void>();
    host.tools.register(host.scope, {
      name: "slow",
      description: "Slow",
      parameters: { type: "object" },
      execute: async () => {
        await gate.promise;
        return { content: "slow done" };
      },
    });
    const agent = await host.agents.create({ options: { model: "scripted" } });
    const started = Promise.withResolvers<void>();
    agent.scope.on(agentToolCallStart, () => started.resolve());
    agent.send("@call slow\n@reply not this");
    await started.promise;
    agent.send("@reply steered after {{results}}");
    gate.resolve();
    const end = await agent.whenIdle();
    assert.equal(text(end), "steered after slow done");
    const events = agent.session.events();
    assert.deepEqual(types(events), [
      "turn-start",
      "user-message",
      "assistant-message",
      "tool-call",
      "tool-result",
      "user-message",
      "assistant-message",
      "turn-end",
    ]);
    await host.scope.dispose();
  });

  await t.step("a message sent while the model answers keeps the turn going", async () => {
    const host = setup();
    const gate = Promise.withResolvers<void>();
    const model = recordingModel(async function* (request, index) {
      if (index === 0) {
        yield { type: "text-delta", text: "first answer" };
        await gate.promise;
        yield { type: "finish", reason: "stop" };
      } else {
        const last = request.messages.at(-1)!;
        yield* reply(
          `answering: ${
            last.role === "user" && last.content[0].type === "text" && last.content[0].text
          }`,
        );
      }
    });
    host.models.register(host.scope, "gated", model);
    const agent = await host.agents.create({ options: { model: "gated" } });
    const delta = Promise.withResolvers<void>();
    agent.scope.on(agentTextDelta, () => delta.resolve());
    agent.send("hi");
    await delta.promise;
    agent.send("and more");
    gate.resolve();
    const end = await agent.whenIdle();
    assert.equal(text(end), "answering: and more");
    assert.equal(model.requests.length, 2);
    assert.deepEqual(model.requests[1].messages.map((m) => m.role), ["user", "assistant", "user"]);
    assert.equal(
      agent.session.events().filter((e) => e.type === "turn-start").length,
      1,
      "still one turn",
    );
    await host.scope.dispose();
  });
});

Deno.test("Agent.cancel() aborts the running turn", async (t) => {
  await t.step("mid model call", async () => {
    const host = setup();
    const agent = await host.agents.create({ options: { model: "scripted" } });
    agent.cancel(); // idle: a no-op
    let signal: AbortSignal | undefined;
    host.models.register(
      agent.scope,
      "scripted",
      createScriptedModel({
        script: (context) => {
          signal = context.request.signal;
          return undefined;
        },
      }),
    );
    agent.send("@hang");
    await Promise.resolve();
    agent.cancel("user pressed stop");
    const end = await agent.whenIdle();
    assert.equal(end.reason, "aborted");
    assert.deepEqual(end.output, []);
    assert.equal(signal?.aborted, true);
    assert.match(String(signal?.reason), /user pressed stop/);
    assert.deepEqual(types(agent.session.events()), ["turn-start", "user-message", "turn-end"]);
    agent.send("@reply fine again");
    assert.equal(text(await agent.whenIdle()), "fine again");
    await host.scope.dispose();
  });

  await t.step("mid tool call, even when a tool ignores its signal", async () => {
    const host = setup();
    const entered = Promise.withResolvers<void>();
    let toolSignal: AbortSignal | undefined;
    host.tools.register(host.scope, {
      name: "polite",
      description: "Stops when aborted",
      parameters: { type: "object" },
      execute: (_args, call) =>
        new Promise((_, reject) => {
          toolSignal = call.signal;
          entered.resolve();
          call.signal.addEventListener("abort", () => reject(call.signal.reason));
        }),
    });
    const stubborn = Promise.withResolvers<{ content: string }>();
    host.tools.register(host.scope, {
      name: "stubborn",
      description: "Ignores its signal",
      parameters: { type: "object" },
      execute: () => stubborn.promise,
    });
    const agent = await host.agents.create({ options: { model: "scripted" } });
    const steered: string[] = [];
    agent.send('@calls [{"name": "polite"}, {"name": "stubborn"}]\n@reply unreachable');
    await entered.promise;
    agent.send("queued while cancelling");
    agent.cancel();
    const end = await agent.whenIdle();
    assert.equal(end.reason, "aborted");
    assert.equal(toolSignal?.aborted, true);
    const events = agent.session.events();
    const results = events.filter((e) => e.type === "tool-result");
    assert.deepEqual(
      results.map((e) => e.type === "tool-result" && [e.name, e.isError, e.code]),
      [["polite", true, "ABORTED"], ["stubborn", true, "ABORTED"]],
    );
    assert.deepEqual(types(events).slice(-2), ["user-message", "turn-end"], "steering kept");
    stubborn.resolve({ content: "too late" });
    await Promise.resolve();
    assert.equal(agent.session.length, events.length, "a late result changes nothing");
    assert.deepEqual(steered, []);
    await host.scope.dispose();
  });
});

Deno.test("Agent.dispose() aborts the turn, waits for the loop and leaves no timer", async () => {
  const host = setup();
  const agent = await host.agents.create({ options: { model: "scripted" } });
  const order: string[] = [];
  agent.scope.on(agentTurnEnd, ({ end }) => void order.push(`turn-end ${end.reason}`));
  host.scope.on(agentDisposed, () => void order.push("disposed"));
  agent.send("@delay 10000\n@reply never");
  const idle = agent.whenIdle();
  const disposal = agent.dispose();
  assert.equal(agent.dispose(), disposal);
  await disposal;
  assert.equal(agent.state, "disposed");
  assert.equal((await idle).reason, "aborted");
  assert.deepEqual(order, ["turn-end aborted", "disposed"]);
  assert.equal((await agent.whenIdle()).reason, "aborted");
  await host.scope.dispose();
});

Deno.test("Agent ends turns with the model's stop reasons", async (t) => {
  const host = setup();
  const run = async (prompt: string, maxTokens?: number) => {
    const agent = await host.agents.create({
      options: maxTokens ? { model: "scripted", maxTokens } : { model: "scripted" },
    });
    agent.send(prompt);
    const end = await agent.whenIdle();
    await agent.dispose();
    return end;
  };

  await t.step("a model failure ends the turn with error and its message", async () => {
    const end = await run("@fail the upstream exploded");
    assert.equal(end.reason, "error");
    assert.equal(end.error, "the upstream exploded");
  });

  await t.step("max-tokens, from the directive or the option", async () => {
    const direct = await run("@max-tokens partial answer");
    assert.equal(direct.reason, "max-tokens");
    assert.equal(text(direct), "partial answer");
    const capped = await run("@reply one two three four five", 2);
    assert.equal(capped.reason, "max-tokens");
    assert.equal(text(capped), "one two ");
  });

  await t.step("refusal", async () => {
    const end = await run("@refuse I will not");
    assert.equal(end.reason, "refusal");
    assert.equal(text(end), "I will not");
  });

  await t.step("a malformed adapter is an error, never a rejection", async () => {
    const bad: [string, ModelAdapter][] = [
      ["throws", {
        name: "throws",
        stream() {
          throw new Error("sync boom");
        },
      }],
      ["unknown event", {
        name: "unknown",
        async *stream() {
          yield { type: "reasoning" } as unknown as ModelEvent;
        },
      }],
      ["bad delta", {
        name: "delta",
        async *stream() {
          yield { type: "text-delta", text: 1 } as unknown as ModelEvent;
        },
      }],
      ["bad finish", {
        name: "finish",
        async *stream() {
          yield { type: "finish", reason: "eof" } as unknown as ModelEvent;
        },
      }],
      ["bad tool call", {
        name: "call",
        async *stream() {
          yield { type: "tool-call", id: "", name: "x", args: {} };
        },
      }],
      ["non-JSON args", {
        name: "args",
        async *stream() {
          yield { type: "tool-call", id: "c", name: "x", args: NaN } as unknown as ModelEvent;
        },
      }],
    ];
    for (const [label, adapter] of bad) {
      host.models.register(host.scope, label, adapter);
      const agent = await host.agents.create({ options: { model: label } });
      agent.send("go");
      const end = await agent.whenIdle();
      assert.equal(end.reason, "error", label);
      assert.ok(end.error, label);
      await agent.dispose();
    }
  });

  await t.step("a stream ending without finish counts as stop", async () => {
    host.models.register(host.scope, "nofinish", {
      name: "nofinish",
      async *stream() {
        yield { type: "text-delta", text: "ok" };
      },
    });
    const agent = await host.agents.create({ options: { model: "nofinish" } });
    agent.send("go");
    const end = await agent.whenIdle();
    assert.equal(end.reason, "completed");
    assert.equal(text(end), "ok");
  });

  await host.scope.dispose();
});

Deno.test("Agent ends the turn after a step whose tool result has stopTurn", async () => {
  const host = setup();
  const model = recordingModel(async function* (_request, index) {
    if (index === 0) {
      yield { type: "tool-call", id: "c1", name: "capture", args: { value: 42 } };
      yield { type: "finish", reason: "tool-calls" };
    } else yield* reply("should not be asked");
  });
  host.models.register(host.scope, "m", model);
  host.tools.register(host.scope, {
    name: "capture",
    description: "Capture",
    parameters: { type: "object", properties: { value: { type: "number" } } },
    execute: () => ({ content: "captured", stopTurn: true }),
  });
  const agent = await host.agents.create({ options: { model: "m" } });
  agent.send("go");
  const end = await agent.whenIdle();
  assert.equal(end.reason, "completed");
  assert.equal(model.requests.length, 1);
  assert.deepEqual(types(agent.session.events()).slice(-2), ["tool-result", "turn-end"]);
  await host.scope.dispose();
});

Deno.test("Agent gives the model its rendered system prompt and visible tools", async () => {
  const host = setup();
  const model = recordingModel(() => reply("ok"));
  host.models.register(host.scope, "m", model);
  host.prompts.register(host.scope, {
    name: "persona",
    text: "You are {{agentId}} on {{model}} at depth {{subagentDepth}}.",
  });
  host.tools.register(host.scope, {
    name: "t1",
    description: "one",
    parameters: { type: "object" },
    execute: () => ({ content: "" }),
  });
  const agent = await host.agents.create({
    id: "x",
    options: { model: "m", subagentDepth: 1, maxTokens: 99 },
  });
  agent.send("hi");
  await agent.whenIdle();
  const request = model.requests[0];
  assert.equal(request.system, "You are x on m at depth 1.");
  assert.deepEqual(request.tools.map((tool) => tool.name), ["t1"]);
  assert.equal(request.maxTokens, 99);
  assert.equal(request.model, "m");
  assert.deepEqual(request.messages, [{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  await host.scope.dispose();
});

Deno.test("Session.completedPrefix() never includes the open turn", async () => {
  const host = setup();
  const gate = Promise.withResolvers<{ content: string }>();
  const entered = Promise.withResolvers<void>();
  host.tools.register(host.scope, {
    name: "block",
    description: "Blocks",
    parameters: { type: "object" },
    execute: () => {
      entered.resolve();
      return gate.promise;
    },
  });
  const agent = await host.agents.create({ options: { model: "scripted" } });
  assert.deepEqual(agent.session.completedPrefix(), []);
  agent.send("@reply one");
  await agent.whenIdle();
  const closed = agent.session.completedPrefix();
  assert.equal(closed.length, 4);
  agent.send("@call block\n@reply two");
  await entered.promise;
  assert.equal(agent.session.events().at(-1)?.type, "tool-call", "a pending tool call is open");
  assert.deepEqual(agent.session.completedPrefix(), closed);
  gate.resolve({ content: "unblocked" });
  await agent.whenIdle();
  assert.deepEqual(agent.session.completedPrefix(), agent.session.events());
  await host.scope.dispose();
});

Deno.test("AgentRegistry.create() seeds a fork's session", async (t) => {
  const host = setup();
  host.tools.register(host.scope, {
    name: "echo",
    description: "Echo",
    parameters: { type: "object" },
    execute: (args) => ({ content: JSON.stringify(args) }),
  });
  const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });
  parent.send('@call echo {"n": 1}\n@reply parent done');
  await parent.whenIdle();
  const prefix = parent.session.completedPrefix();

  await t.step("the child sees the parent's completed turns and continues them", async () => {
    const model = recordingModel(() => reply("child done"));
    const child = await host.agents.create({
      options: { model: "child-model" },
      session: prefix,
      setup: (agent) => void host.models.register(agent.scope, "child-model", model),
    });
    assert.deepEqual(child.session.events(), prefix);
    assert.equal(child.session.events()[0], prefix[0], "our own frozen events are shared");
    child.send("now you");
    await child.whenIdle();
    assert.deepEqual(model.requests[0].messages.map((m) => m.role), [
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    const assistant = model.requests[0].messages[1];
    assert.equal(assistant.role === "assistant" && assistant.toolCalls[0].name, "echo");
    const events = child.session.events();
    assert.deepEqual(events.at(-1), {
      seq: events.length - 1,
      type: "turn-end",
      turn: 2,
      reason: "completed",
    });
    assert.equal(parent.session.length, prefix.length, "the parent is untouched");
    await child.dispose();
  });

  await t.step("foreign events are checked and renumbered", async () => {
    const child = await host.agents.create({
      options: { model: "scripted" },
      session: [
        { seq: 10, type: "turn-start", turn: 3 },
        { seq: 11, type: "user-message", content: [{ type: "text", text: "old" }] },
        { seq: 12, type: "turn-end", turn: 3, reason: "completed" },
      ],
    });
    assert.deepEqual(child.session.events().map((e) => e.seq), [0, 1, 2]);
    child.send("new");
    await child.whenIdle();
    assert.deepEqual(child.session.events()[3], { seq: 3, type: "turn-start", turn: 4 });
    await child.dispose();
  });

  await t.step("an open turn, an unanswered call or a malformed event is rejected", async () => {
    const start = { seq: 0, type: "turn-start", turn: 1 } as const;
    const bad: [unknown[], RegExp][] = [
      [[start], /ends inside an open turn/],
      [[start, { seq: 1, type: "assistant-message", content: [] }, {
        seq: 2,
        type: "tool-call",
        callId: "c",
        name: "x",
        args: {},
      }, { seq: 3, type: "turn-end", turn: 1, reason: "completed" }], /unanswered tool call "c"/],
      [[{ seq: 0, type: "user-message", content: "x" }], /outside a turn/],
      [[start, { seq: 1, type: "shout" }], /unknown session event type/],
      [
        [start, { seq: 1, type: "user-message", content: [{ type: "x" }] }],
        /session\[1\]\.content/,
      ],
      [[start, { seq: 1, type: "turn-end", turn: 1, reason: "bored" }], /reason/],
    ];
    for (const [session, pattern] of bad) {
      await assert.rejects(
        host.agents.create({
          options: { model: "scripted" },
          session: session as SessionEvent[],
        }),
        pattern,
      );
    }
    assert.deepEqual(host.agents.list(), [parent]);
  });

  await host.scope.dispose();
});

Deno.test("Agent reports unknown tools and invalid arguments to the model", async () => {
  const host = setup();
  host.tools.register(host.scope, {
    name: "add",
    description: "Add",
    parameters: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
    execute: ({ a, b }: { a: number; b: number }) => ({ content: String(a + b) }),
  });
  const agent = await host.agents.create({ options: { model: "scripted" } });
  agent.send([
    '@call nope {"x": 1}',
    '@call add {"a": "1"}',
    '@call add {"a": 1, "b": 2}',
    "@reply {{results}}",
  ].join("\n"));
  const end = await agent.whenIdle();
  assert.equal(end.reason, "completed");
  assert.equal(text(end), "3");
  const results = agent.session.events().filter((e) => e.type === "tool-result");
  assert.deepEqual(results.map((e) => e.type === "tool-result" && e.code), [
    "UNKNOWN_TOOL",
    "INVALID_ARGS",
    undefined,
  ]);
  const invalid = results[1].type === "tool-result" && results[1].content[0];
  assert.ok(invalid && invalid.type === "text");
  assert.match(invalid.text, /args\.a: expected number, got string/);
  assert.match(invalid.text, /args\.b: is required/);
  await host.scope.dispose();
});

Deno.test("Agent.send() after cancel() opens the next turn once the cancelled one ends", async () => {
  const host = setup();
  const agent = await host.agents.create({ options: { model: "scripted" } });
  const ends: string[] = [];
  agent.scope.on(agentTurnEnd, ({ turn, end }) => void ends.push(`${turn} ${end.reason}`));
  agent.send("@hang");
  agent.cancel();
  agent.send("@reply fresh start");
  agent.send("@reply and a steer");
  const end = await agent.whenIdle();
  assert.equal(text(end), "and a steer");
  assert.deepEqual(ends, ["1 aborted", "2 completed"]);
  assert.deepEqual(types(agent.session.events()), [
    "turn-start",
    "user-message",
    "turn-end",
    "turn-start",
    "user-message",
    "assistant-message",
    "user-message",
    "assistant-message",
    "turn-end",
  ]);
  await host.scope.dispose();
});

Deno.test("Agent.send() counts a step's token figures only when they are non-negative safe integers", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  // A server's garbage: negative, huge (two of 1e308 add up to Infinity), fractional.
  const reports = [
    { inputTokens: -5, outputTokens: 1e308, cachedInputTokens: -1 },
    { inputTokens: 3, outputTokens: 1e308, cachedInputTokens: 1.5 },
    { inputTokens: 4, outputTokens: 2, cachedInputTokens: 1 },
  ];
  let step = 0;
  host.models.register(host.scope, "garbage", {
    name: "garbage",
    async *stream() {
      const usage = reports[step++];
      if (step < reports.length) {
        yield { type: "tool-call", id: `c${step}`, name: "nothing", args: {} };
        yield { type: "finish", reason: "tool-calls", usage };
      } else {
        yield { type: "text-delta", text: "done" };
        yield { type: "finish", reason: "stop", usage };
      }
    },
  } as never);
  const agent = await host.agents.create({ id: "g", options: { model: "garbage" } });
  agent.send("go");
  const end = await agent.whenIdle();
  assert.equal(text(end), "done");
  assert.deepEqual(end.usage, { inputTokens: 7, outputTokens: 2, cachedInputTokens: 1 });
  await host.scope.dispose();
});
