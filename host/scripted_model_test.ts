import assert from "node:assert/strict";
import {
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type ModelAdapter,
  type ModelEvent,
  type ModelMessage,
  type ModelRequest,
  type ScriptedContext,
  type TurnEnd,
} from "./mod.ts";

function request(
  messages: ModelMessage[] | string,
  extra: Partial<ModelRequest> = {},
): ModelRequest {
  return {
    model: "scripted",
    system: "SYSTEM PROMPT",
    messages: typeof messages === "string"
      ? [{ role: "user", content: [{ type: "text", text: messages }] }]
      : messages,
    tools: [],
    signal: new AbortController().signal,
    ...extra,
  };
}

async function collect(adapter: ModelAdapter, req: ModelRequest): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of adapter.stream(req)) events.push(event);
  return events;
}

function textOf(events: ModelEvent[]): string {
  return events.map((e) => e.type === "text-delta" ? e.text : "").join("");
}

function finishOf(events: ModelEvent[]): string | undefined {
  const last = events.at(-1);
  return last?.type === "finish" ? last.reason : undefined;
}

function output(end: TurnEnd): string {
  return end.output.map((b) => b.type === "text" ? b.text : "").join("");
}

const user = (text: string): ModelMessage => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text = "", calls: string[] = []): ModelMessage => ({
  role: "assistant",
  content: text ? [{ type: "text", text }] : [],
  toolCalls: calls.map((name, i) => ({ id: `c${i}`, name, args: {} })),
});
const result = (text: string, callId = "c0"): ModelMessage => ({
  role: "tool",
  callId,
  name: "t",
  content: [{ type: "text", text }],
  isError: false,
});

Deno.test("createScriptedModel() echoes a prompt without directives", async () => {
  const model = createScriptedModel();
  assert.equal(model.name, "scripted");
  const events = await collect(model, request("Summarize the report, please @ once."));
  assert.equal(textOf(events), "Summarize the report, please @ once.");
  assert.deepEqual(events.slice(0, 2), [
    { type: "text-delta", text: "Summarize " },
    { type: "text-delta", text: "the " },
  ]);
  assert.deepEqual(events.at(-1), {
    type: "finish",
    reason: "stop",
    usage: { inputTokens: 6, outputTokens: 6 },
  });
});

Deno.test("createScriptedModel() follows the directives of the latest user message", async (t) => {
  const model = createScriptedModel();

  await t.step("@reply streams word deltas; a JSON string may hold newlines", async () => {
    const events = await collect(model, request("@reply Hello brave new world"));
    assert.deepEqual(events.filter((e) => e.type === "text-delta").length, 4);
    assert.equal(textOf(events), "Hello brave new world");
    assert.equal(finishOf(events), "stop");
    assert.equal(textOf(await collect(model, request('@reply "two\\nlines"'))), "two\nlines");
  });

  await t.step("@call and @calls; JSON may span lines", async () => {
    const one = await collect(model, request('@call lookup {"q": "x", "n": [1, 2]}'));
    assert.deepEqual(one, [
      { type: "tool-call", id: "call_0_0", name: "lookup", args: { q: "x", n: [1, 2] } },
      { type: "finish", reason: "tool-calls", usage: { inputTokens: 7, outputTokens: 1 } },
    ]);
    const bare = await collect(model, request("@call ping"));
    assert.deepEqual(bare[0], { type: "tool-call", id: "call_0_0", name: "ping", args: {} });
    const many = await collect(
      model,
      request('@calls [\n  {"name": "a", "args": {"x": 1}},\n  {"name": "b"}\n]\n@reply done'),
    );
    assert.deepEqual(
      many.filter((e) => e.type === "tool-call").map((e) =>
        e.type === "tool-call" && [e.id, e.name, e.args]
      ),
      [
        ["call_0_0", "a", { x: 1 }],
        ["call_0_1", "b", {}],
      ],
    );
  });

  await t.step("later steps follow earlier steps' tool results", async () => {
    const prompt = "@call a\n@call b\n@reply got {{results}} for {{prompt}}\nplain text";
    const history = [user(prompt), assistant("", ["a"]), result("A")];
    const second = await collect(model, request(history));
    assert.deepEqual(second[0], { type: "tool-call", id: "call_1_0", name: "b", args: {} });
    const third = await collect(
      model,
      request([...history, assistant("", ["b"]), result("B1", "c0"), result("B2", "c1")]),
    );
    assert.equal(textOf(third), "got B1\nB2 for plain text");
    // Used up: the results are replied, or the prompt echoed.
    const fourth = await collect(
      model,
      request([...history, assistant("", ["b"]), result("B"), assistant("x", ["c"]), result("C")]),
    );
    assert.equal(textOf(fourth), "C");
  });

  await t.step("a new user message starts over with its own directives", async () => {
    const events = await collect(
      model,
      request([
        user("@call a\n@reply first"),
        assistant("", ["a"]),
        result("A"),
        user("@reply steered {{results}}"),
      ]),
    );
    assert.equal(textOf(events), "steered A");
  });

  await t.step("@system, {{system}} and @echo", async () => {
    assert.equal(textOf(await collect(model, request("@system"))), "SYSTEM PROMPT");
    assert.equal(textOf(await collect(model, request("@reply [{{system}}]"))), "[SYSTEM PROMPT]");
    assert.equal(
      textOf(await collect(model, request("keep this\n@echo\nand this"))),
      "keep this\nand this",
    );
  });

  await t.step("@fail, @max-tokens, @refuse and the token cap", async () => {
    await assert.rejects(
      collect(model, request("@fail upstream said no")),
      (error: unknown) => error instanceof Error && error.message === "upstream said no",
    );
    const cut = await collect(model, request("@max-tokens half an"));
    assert.equal(textOf(cut), "half an");
    assert.equal(finishOf(cut), "max-tokens");
    const refused = await collect(model, request("@refuse Not doing that"));
    assert.equal(textOf(refused), "Not doing that");
    assert.equal(finishOf(refused), "refusal");
    const capped = await collect(model, request("@reply a b c d", { maxTokens: 3 }));
    assert.equal(textOf(capped), "a b c ");
    assert.equal(finishOf(capped), "max-tokens");
  });

  await t.step("malformed directives fail the first step, naming the problem", async () => {
    const cases: [string, RegExp][] = [
      ["@reply ok\n@shout loud", /unknown directive @shout \(line 2\)/],
      ['@call t {"a": }', /@call on line 1: invalid JSON/],
      ['@call t {"a": 1', /unterminated JSON/],
      ["@calls {}", /needs a JSON array/],
      ['@calls [{"args": {}}]', /call #0 must be an object/],
      ["@delay soon\n@reply x", /whole number of milliseconds/],
      ["@call t {} trailing", /unexpected text after the directive/],
      ["@call", /needs a tool name/],
    ];
    for (const [prompt, pattern] of cases) {
      await assert.rejects(collect(model, request(prompt)), pattern, prompt);
    }
    // An unknown @word without any directive is plain text.
    assert.equal(textOf(await collect(model, request("@alice hello"))), "@alice hello");
  });
});

Deno.test("createScriptedModel() hangs and delays honouring the signal", async (t) => {
  const model = createScriptedModel();

  await t.step("@hang waits until the signal aborts", async () => {
    const controller = new AbortController();
    const pending = collect(model, request("@hang", { signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error("stop hanging"));
    await assert.rejects(pending, /stop hanging/);
    await assert.rejects(
      collect(model, request("@hang", { signal: AbortSignal.abort(new Error("already")) })),
      /already/,
    );
  });

  await t.step("@delay waits, and an abort clears its timer", async () => {
    const started = performance.now();
    const events = await collect(model, request("@delay 30\n@reply late"));
    assert.ok(performance.now() - started >= 25);
    assert.equal(textOf(events), "late");
    const controller = new AbortController();
    const pending = collect(
      model,
      request("@delay 60000\n@reply never", { signal: controller.signal }),
    );
    controller.abort(new Error("no wait"));
    await assert.rejects(pending, /no wait/);
  });

  await t.step("the delayMs option delays every step", async () => {
    const slow = createScriptedModel({ delayMs: 20 });
    const started = performance.now();
    await collect(slow, request("hi"));
    assert.ok(performance.now() - started >= 15);
  });
});

Deno.test("createScriptedModel() runs a code script", async (t) => {
  await t.step(
    "a list answers the n-th call of the conversation, then directives answer",
    async () => {
      const model = createScriptedModel({
        script: [
          { calls: [{ name: "look", args: { q: 1 }, id: "mine" }], reply: "Looking" },
          { reply: "found {{results}}" },
        ],
      });
      const first = await collect(model, request("@reply from the prompt"));
      assert.deepEqual(first.map((e) => e.type), ["text-delta", "tool-call", "finish"]);
      assert.deepEqual(first[1], { type: "tool-call", id: "mine", name: "look", args: { q: 1 } });
      const second = await collect(
        model,
        request([user("x"), assistant("", ["look"]), result("it")]),
      );
      assert.equal(textOf(second), "found it");
      const third = await collect(
        model,
        request([
          user("x"),
          assistant(),
          result("it"),
          assistant("found it"),
          user("@reply from the prompt"),
        ]),
      );
      assert.equal(textOf(third), "from the prompt");
    },
  );

  await t.step("a function sees the call's context", async () => {
    const seen: Omit<ScriptedContext, "request">[] = [];
    const model = createScriptedModel({
      script: ({ request: _request, ...context }) => {
        seen.push(context);
        return context.step === 0 ? { system: true } : undefined;
      },
    });
    assert.equal(textOf(await collect(model, request("hi"))), "SYSTEM PROMPT");
    await collect(
      model,
      request([user("one"), assistant(), user("@reply p"), assistant("", ["t"]), result("R")]),
    );
    assert.deepEqual(seen, [
      { call: 0, step: 0, prompt: "hi", results: [] },
      { call: 2, step: 1, prompt: "@reply p", results: ["R"] },
    ]);
  });

  await t.step("every kind of step, and a malformed one", async () => {
    const run = (step: object) => collect(createScriptedModel({ script: [step] }), request("x"));
    assert.equal(finishOf(await run({ refuse: "no" })), "refusal");
    assert.equal(finishOf(await run({ maxTokens: "cut" })), "max-tokens");
    await assert.rejects(run({ fail: "bad" }), /bad/);
    await assert.rejects(run({}), /has none of reply, calls/);
    const controller = new AbortController();
    const hanging = collect(
      createScriptedModel({ script: [{ hang: true }] }),
      request("x", { signal: controller.signal }),
    );
    controller.abort(new Error("done"));
    await assert.rejects(hanging, /done/);
  });

  await t.step("bad options are rejected", () => {
    assert.throws(() => createScriptedModel({ script: "x" as never }), /script must be/);
    assert.throws(() => createScriptedModel({ delayMs: -1 }), /delayMs/);
  });
});

Deno.test("createScriptedModel() directives nest: a parent's call carries a child's prompt", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  host.tools.register(host.scope, {
    name: "shout",
    description: "Upper-case",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }: { text: string }) => ({ content: text.toUpperCase() }),
  });
  host.tools.register(host.scope, {
    name: "delegate",
    description: "Run a child agent",
    parameters: {
      type: "object",
      properties: { prompt: { type: "string" } },
      required: ["prompt"],
    },
    async execute({ prompt }: { prompt: string }, call) {
      const child = await host.agents.create({
        parentScope: call.agent.scope,
        options: { model: "scripted", subagentDepth: call.agent.options.subagentDepth + 1 },
      });
      try {
        child.send(prompt);
        const end = await child.whenIdle();
        return { content: end.output, isError: end.reason !== "completed" };
      } finally {
        await child.dispose();
      }
    },
  });
  const grandchild = '@call shout {"text": "deep"}\n@reply grandchild: {{results}}';
  const child = `@call delegate ${
    JSON.stringify({ prompt: grandchild })
  }\n@reply child: {{results}}`;
  const parent = `@call delegate ${JSON.stringify({ prompt: child })}\n@reply parent: {{results}}`;
  const agent = await host.agents.create({ options: { model: "scripted" } });
  agent.send(parent);
  const end = await agent.whenIdle();
  assert.equal(end.reason, "completed");
  assert.equal(output(end), "parent: child: grandchild: DEEP");
  await host.scope.dispose();
});

Deno.test("createScriptedModel() refuses an unknown option, naming the known ones", () => {
  assert.throws(
    () => createScriptedModel({ delay: 5 } as never),
    {
      name: "TypeError",
      message:
        "Cannot create the scripted model: unknown option delay (known: name, script, delayMs)",
    },
  );
});
