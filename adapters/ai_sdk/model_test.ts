import assert from "node:assert/strict";
import { createHost, type ModelEvent, type ModelRequest } from "@seam/host";
import { MockLanguageModelV4 } from "ai/test";
import { aiSdkModel, aiSdkModelFromEnv } from "./mod.ts";
import {
  finish,
  hangingStream,
  type Part,
  scriptedModel,
  textParts,
  toolCall,
} from "./_test_models.ts";

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "m",
    system: "Be brief.",
    messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

Deno.test("aiSdkModel() streams text deltas, then finish with usage incl. cached tokens", async () => {
  const model = scriptedModel([[
    ...textParts("Hello there"),
    finish("stop", { input: 10, output: 4, cached: 6 }),
  ]]);
  const events = await collect(aiSdkModel(model).stream(request()));
  assert.deepEqual(events, [
    { type: "text-delta", text: "Hello " },
    { type: "text-delta", text: "there" },
    {
      type: "finish",
      reason: "stop",
      usage: { inputTokens: 10, outputTokens: 4, cachedInputTokens: 6 },
    },
  ]);
  const call = model.doStreamCalls[0];
  assert.deepEqual(call.prompt[0], { role: "system", content: "Be brief." });
  assert.equal(call.prompt[1].role, "user");
});

Deno.test("aiSdkModel() omits usage the model did not report", async () => {
  const model = scriptedModel([[...textParts("ok"), finish("stop")]]);
  const events = await collect(aiSdkModel(model).stream(request()));
  assert.deepEqual(events.at(-1), { type: "finish", reason: "stop" });
});

Deno.test("aiSdkModel() passes tools as JSON Schema and yields tool calls after the text", async () => {
  const model = scriptedModel([[
    toolCall("c1", "lookup", { q: "deno" }),
    ...textParts("Looking"),
    finish("tool-calls", { input: 5, output: 1 }),
  ]]);
  const parameters = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
  const events = await collect(
    aiSdkModel(model).stream(
      request({ tools: [{ name: "lookup", description: "Look up", parameters }], maxTokens: 50 }),
    ),
  );
  assert.deepEqual(events, [
    { type: "text-delta", text: "Looking" },
    { type: "tool-call", id: "c1", name: "lookup", args: { q: "deno" } },
    { type: "finish", reason: "tool-calls", usage: { inputTokens: 5, outputTokens: 1 } },
  ]);
  const call = model.doStreamCalls[0];
  assert.equal(call.maxOutputTokens, 50);
  const [spec] = call.tools ?? [];
  assert.equal(spec.type, "function");
  assert.equal(spec.name, "lookup");
  assert.deepEqual((spec as { inputSchema: unknown }).inputSchema, parameters);
});

Deno.test("aiSdkModel() maps finish reasons", async (t) => {
  for (
    const [unified, reason] of [
      ["stop", "stop"],
      ["length", "max-tokens"],
      ["content-filter", "refusal"],
      ["tool-calls", "tool-calls"],
      ["other", "stop"],
    ] as const
  ) {
    await t.step(`${unified} -> ${reason}`, async () => {
      const model = scriptedModel([[...textParts("x"), finish(unified)]]);
      const events = await collect(aiSdkModel(model).stream(request()));
      assert.deepEqual(events.at(-1), { type: "finish", reason });
    });
  }
  for (const unified of ["error", "interrupted"] as const) {
    await t.step(`${unified} throws naming the model`, async () => {
      const model = scriptedModel([[...textParts("x"), finish(unified)]]);
      await assert.rejects(
        collect(aiSdkModel(model).stream(request())),
        new RegExp(`The AI SDK model mock-provider:mock-model-id .*${unified}`),
      );
    });
  }
});

Deno.test("aiSdkModel() runs a host agent's tool loop: tool results go back to the model", async () => {
  const model = scriptedModel([
    [toolCall("c1", "add", { a: 2, b: 3 }), finish("tool-calls", { input: 7, output: 2 })],
    [...textParts("It is 5."), finish("stop", { input: 12, output: 3 })],
  ]);
  const host = createHost();
  try {
    host.models.register(host.scope, "m", aiSdkModel(model));
    host.tools.register(host.scope, {
      name: "add",
      description: "Add two numbers",
      parameters: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      execute: (args: { a: number; b: number }) => ({ content: String(args.a + args.b) }),
    });
    const agent = await host.agents.create({ options: { model: "m" } });
    agent.send("What is 2 + 3?");
    const end = await agent.whenIdle();
    assert.equal(end.reason, "completed");
    assert.equal(model.doStreamCalls.length, 2);
    const prompt = model.doStreamCalls[1].prompt;
    const assistant = prompt.find((m) => m.role === "assistant");
    const [callPart] = assistant?.content as unknown as Record<string, unknown>[];
    assert.equal(callPart.type, "tool-call");
    assert.equal(callPart.toolCallId, "c1");
    assert.equal(callPart.toolName, "add");
    assert.deepEqual(callPart.input, { a: 2, b: 3 });
    const toolMessage = prompt.find((m) => m.role === "tool");
    const result = (toolMessage?.content as { type: string; output: unknown }[])[0];
    assert.deepEqual(result.output, { type: "text", value: "5" });
  } finally {
    await host.scope.dispose();
  }
});

Deno.test("aiSdkModel() aborts the model call with the request's signal", async () => {
  let seen: AbortSignal | undefined;
  const model = new MockLanguageModelV4({
    doStream: (options) => {
      seen = options.abortSignal;
      return Promise.resolve({ stream: hangingStream(options.abortSignal, textParts("Thinking")) });
    },
  });
  const controller = new AbortController();
  const events: ModelEvent[] = [];
  const run = (async () => {
    for await (const event of aiSdkModel(model).stream(request({ signal: controller.signal }))) {
      events.push(event);
      if (event.type === "text-delta") controller.abort(new Error("stop now"));
    }
  })();
  await assert.rejects(run, /stop now/);
  assert.equal(seen?.aborted, true);
  assert.deepEqual(events, [{ type: "text-delta", text: "Thinking" }]);
});

Deno.test("aiSdkModel() throws at once for an already-aborted signal, calling no model", async () => {
  const model = scriptedModel([[...textParts("x"), finish("stop")]]);
  const controller = new AbortController();
  controller.abort(new Error("too late"));
  await assert.rejects(
    collect(aiSdkModel(model).stream(request({ signal: controller.signal }))),
    /too late/,
  );
  assert.equal(model.doStreamCalls.length, 0);
});

Deno.test("aiSdkModel() turns a model that throws mid-stream into an error naming the model", async () => {
  let sent = 0;
  const model = new MockLanguageModelV4({
    doStream: () =>
      Promise.resolve({
        stream: new ReadableStream<Part>({
          pull(controller) {
            if (sent++ === 0) {
              controller.enqueue({ type: "text-start", id: "t" });
              controller.enqueue({ type: "text-delta", id: "t", delta: "Half" });
            } else controller.error(new Error("connection reset by peer"));
          },
        }),
      }),
  });
  const events: ModelEvent[] = [];
  await assert.rejects(
    (async () => {
      for await (const event of aiSdkModel(model).stream(request())) events.push(event);
    })(),
    /The AI SDK model mock-provider:mock-model-id failed: connection reset by peer/,
  );
  assert.deepEqual(events, [{ type: "text-delta", text: "Half" }]);
});

Deno.test("aiSdkModel() turns an error part and a failing doStream into errors naming the model", async () => {
  const errorPart = scriptedModel([[{ type: "error", error: new Error("overloaded") }]]);
  await assert.rejects(collect(aiSdkModel(errorPart).stream(request())), /failed: overloaded/);
  const throwing = new MockLanguageModelV4({
    doStream: () => Promise.reject(new Error("invalid api key")),
  });
  await assert.rejects(
    collect(aiSdkModel(throwing, { maxRetries: 0 }).stream(request())),
    /The AI SDK model mock-provider:mock-model-id failed: invalid api key/,
  );
});

Deno.test("aiSdkModel() ends a host agent's turn 'error' when the model fails", async () => {
  const host = createHost();
  try {
    const model = new MockLanguageModelV4({
      doStream: () => Promise.reject(new Error("model gone")),
    });
    host.models.register(host.scope, "m", aiSdkModel(model, { maxRetries: 0 }));
    const agent = await host.agents.create({ options: { model: "m" } });
    agent.send("Hi");
    const end = await agent.whenIdle();
    assert.equal(end.reason, "error");
  } finally {
    await host.scope.dispose();
  }
});

Deno.test("aiSdkModel() refuses what is not a language model, and bad options", () => {
  const model = scriptedModel([[finish("stop")]]);
  for (
    const [input, pattern] of [
      ["openai/gpt-4o", /got the string "openai\/gpt-4o": pass a model object/],
      [null, /expected an AI SDK LanguageModel .* got null/],
      [{}, /with specificationVersion undefined/],
      [{ specificationVersion: "v1", provider: "p", modelId: "m" }, /specificationVersion "v1"/],
      [
        { specificationVersion: "v4", provider: "p", modelId: "m" },
        /without doStream and doGenerate/,
      ],
    ] as const
  ) {
    assert.throws(
      () => aiSdkModel(input as never),
      (error: Error) =>
        error instanceof TypeError &&
        /^Cannot create the AI SDK model adapter: /.test(error.message) &&
        pattern.test(error.message),
    );
  }
  assert.throws(
    () => aiSdkModel(model, { temperature: 1 } as never),
    /unknown option temperature \(known: name, maxRetries, providerOptions\)/,
  );
  assert.throws(() => aiSdkModel(model, { maxRetries: 11 }), RangeError);
  assert.throws(() => aiSdkModel(model, { name: "" }), /name must be a non-empty string/);
  assert.equal(aiSdkModel(model).name, "ai-sdk:mock-provider:mock-model-id");
  assert.equal(aiSdkModel(model, { name: "mine" }).name, "mine");
});

Deno.test("aiSdkModelFromEnv() refuses an unknown option, even with no provider in the environment", async () => {
  await assert.rejects(
    aiSdkModelFromEnv(() => undefined, { importer: (name: string) => import(name) } as never),
    new TypeError(
      "Cannot choose the AI SDK model from the environment: unknown option importer (known: import)",
    ),
  );
});
