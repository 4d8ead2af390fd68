import assert from "node:assert/strict";
import { createRootScope, type Scope, textOf } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  SubagentError,
  type SubagentInputRequest,
  subagentInputRequired,
  subagentProgress,
  type SubagentProgressInfo,
  type SubagentRunInfo,
  type SubagentService,
  subagentStart,
} from "@seam/subagent";
import { jsonSchema, type ModelMessage, Output, streamText, tool, ToolLoopAgent } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { type AiSdkProviderOptions, createAiSdkProvider, subagentTool } from "./mod.ts";
import {
  finish,
  hangingStream,
  scriptedModel,
  streamOf,
  textParts,
  toolCall,
} from "./_test_models.ts";

interface World {
  root: Scope;
  subagents: SubagentService;
  parent: { id: string; scope: Scope };
}

async function withWorld(
  options: AiSdkProviderOptions,
  body: (world: World) => Promise<void>,
): Promise<void> {
  const root = createRootScope();
  try {
    const subagents = createSubagentService(root);
    subagents.registerProvider(createAiSdkProvider(options));
    await body({ root, subagents, parent: { id: "main", scope: root } });
  } finally {
    await root.dispose();
  }
}

/** What the model sees of a tool's outcome, as text. */
function toolOutcome(prompt: readonly { role: string; content: unknown }[]): string | undefined {
  const message = prompt.findLast((m) => m.role === "tool");
  if (!message) return undefined;
  const part = (message.content as { output: { type: string; value?: unknown; reason?: string } }[])
    .at(-1)!;
  return part.output.type === "execution-denied"
    ? `denied: ${part.output.reason ?? ""}`
    : String(part.output.value);
}

/** A model that calls deleteFile first, then reports what the tool did. */
function approvalModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: (options) => {
      const outcome = toolOutcome(options.prompt);
      return Promise.resolve(streamOf(
        outcome === undefined
          ? [
            toolCall("c1", "deleteFile", { path: "tmp.txt" }),
            finish("tool-calls", { input: 8, output: 2 }),
          ]
          : [
            ...textParts(`Result: ${outcome}`),
            finish("stop", { input: 20, output: 4, cached: 8 }),
          ],
      ));
    },
  });
}

function approvalAgent(
  deleted: string[],
): ToolLoopAgent<never, { deleteFile: ReturnType<typeof deleteTool> }> {
  return new ToolLoopAgent({
    model: approvalModel(),
    maxRetries: 0,
    tools: { deleteFile: deleteTool(deleted) },
  });
}

function deleteTool(deleted: string[]) {
  return tool({
    description: "Delete a file",
    inputSchema: jsonSchema<{ path: string }>({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    }),
    needsApproval: true,
    execute: ({ path }) => {
      deleted.push(path);
      return `deleted ${path}`;
    },
  });
}

Deno.test("createAiSdkProvider() streams progress and maps usage over the agent's steps", async () => {
  const model = scriptedModel([
    [
      toolCall("c1", "lookup", { q: "x" }),
      finish("tool-calls", { input: 10, output: 2, cached: 4 }),
    ],
    [...textParts("The answer"), finish("stop", { input: 15, output: 3, cached: 6 })],
  ]);
  const lookup = tool({
    description: "Look up",
    inputSchema: jsonSchema<{ q: string }>({
      type: "object",
      properties: { q: { type: "string" } },
    }),
    execute: ({ q }) => `found ${q}`,
  });
  await withWorld(
    { name: "kid", agent: new ToolLoopAgent({ model, maxRetries: 0, tools: { lookup } }) },
    async ({ subagents, parent, root }) => {
      const progress: SubagentProgressInfo[] = [];
      root.on(subagentProgress, (info) => progress.push(info));
      const run = subagents.start("kid", { prompt: "Find x", parent, label: "finding" });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "completed");
      assert.deepEqual(result.output, [{ type: "text", text: "The answer" }]);
      const { wallTimeMs: _, ...self } = result.usage!.self;
      assert.deepEqual(self, {
        inputTokens: 25,
        outputTokens: 5,
        cachedInputTokens: 10,
        modelCalls: 2,
        toolCalls: 1,
      });
      assert.equal(result.usage!.partial, false);
      assert.deepEqual(
        progress.map((p) => [p.kind, p.text ?? p.name]),
        [["tool-call", "lookup"], ["tool-result", "found x"], ["text", "The "], [
          "text",
          "answer",
        ]],
      );
      assert.ok(
        progress.every((p) => p.runId === run.id && p.provider === "kid" && p.label === "finding"),
      );
      // The first user message is the prompt.
      assert.equal(model.doStreamCalls[0].prompt.at(-1)?.role, "user");
    },
  );
});

Deno.test("createAiSdkProvider() asks a tool approval up the tree and resumes the agent with 'allow'", async () => {
  const deleted: string[] = [];
  await withWorld(
    { name: "kid", agent: approvalAgent(deleted) },
    async ({ subagents, parent, root }) => {
      const asked: SubagentInputRequest[] = [];
      handleSubagentInput(root, (request) => {
        asked.push(request);
        return { outcome: "selected", optionId: "allow" };
      });
      const run = subagents.start("kid", { prompt: "Clean up", parent });
      const result = await run.result;
      await run.dispose();
      assert.equal(asked.length, 1);
      assert.equal(asked[0].kind, "permission");
      assert.equal(asked[0].toolCall?.name, "deleteFile");
      assert.deepEqual(asked[0].toolCall?.rawInput, { path: "tmp.txt" });
      assert.deepEqual(asked[0].options?.map((o) => o.id), ["allow", "reject"]);
      assert.deepEqual(asked[0].path, [run.id]);
      assert.deepEqual(deleted, ["tmp.txt"]);
      assert.equal(result.stopReason, "completed");
      assert.deepEqual(result.output, [{ type: "text", text: "Result: deleted tmp.txt" }]);
      assert.equal(result.usage?.self.modelCalls, 2);
      assert.equal(result.usage?.self.toolCalls, 1);
    },
  );
});

Deno.test("createAiSdkProvider() tells the agent a refused approval, and the tool does not run", async () => {
  const deleted: string[] = [];
  await withWorld(
    { name: "kid", agent: approvalAgent(deleted) },
    async ({ subagents, parent, root }) => {
      handleSubagentInput(root, () => ({ outcome: "refused", reason: "not on a Friday" }));
      const run = subagents.start("kid", { prompt: "Clean up", parent });
      const result = await run.result;
      await run.dispose();
      assert.deepEqual(deleted, []);
      assert.equal(result.stopReason, "completed");
      assert.deepEqual(result.output, [{ type: "text", text: "Result: denied: not on a Friday" }]);
    },
  );
});

Deno.test("createAiSdkProvider() takes the answer through run.respond; twice or an unknown option throws", async () => {
  const deleted: string[] = [];
  await withWorld(
    { name: "kid", agent: approvalAgent(deleted) },
    async ({ subagents, parent, root }) => {
      // A handler that never answers keeps the request waiting for run.respond.
      handleSubagentInput(
        root,
        (_request, { signal }) =>
          new Promise((resolve) => signal.addEventListener("abort", () => resolve(undefined))),
      );
      const requested = Promise.withResolvers<SubagentInputRequest>();
      root.on(subagentInputRequired, (request) => requested.resolve(request));
      const run = subagents.start("kid", { prompt: "Clean up", parent });
      const request = await requested.promise;
      assert.throws(
        () => run.respond!(request.id, { outcome: "selected", optionId: "maybe" }),
        (error: Error) =>
          error instanceof RangeError &&
          /option "maybe" was not offered \(offered: allow, reject\)/.test(error.message),
      );
      assert.deepEqual(deleted, [], "a wrong answer decides nothing");
      run.respond!(request.id, { outcome: "selected", optionId: "reject" });
      assert.throws(
        () => run.respond!(request.id, { outcome: "selected", optionId: "allow" }),
        (error: Error) =>
          error instanceof RangeError && /no such request waits/.test(error.message),
      );
      const result = await run.result;
      await run.dispose();
      assert.deepEqual(deleted, []);
      assert.deepEqual(result.output, [{
        type: "text",
        text: "Result: denied: the user rejected the tool call",
      }]);
    },
  );
});

Deno.test("createAiSdkProvider() refuses an approval nobody handles, never silently allowing it", async () => {
  const deleted: string[] = [];
  await withWorld({ name: "kid", agent: approvalAgent(deleted) }, async ({ subagents, parent }) => {
    const run = subagents.start("kid", { prompt: "Clean up", parent });
    const result = await run.result;
    await run.dispose();
    assert.deepEqual(deleted, []);
    assert.match(
      String((result.output[0] as { text: string }).text),
      /denied: no one handles input requests/,
    );
  });
});

Deno.test("createAiSdkProvider() cancelling while an approval waits ends aborted and refuses it", async () => {
  const deleted: string[] = [];
  await withWorld(
    { name: "kid", agent: approvalAgent(deleted) },
    async ({ subagents, parent, root }) => {
      handleSubagentInput(
        root,
        (_request, { signal }) =>
          new Promise((resolve) => signal.addEventListener("abort", () => resolve(undefined))),
      );
      const requested = Promise.withResolvers<void>();
      root.on(subagentInputRequired, () => requested.resolve());
      const run = subagents.start("kid", { prompt: "Clean up", parent });
      await requested.promise;
      run.cancel("changed my mind");
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "aborted");
      assert.deepEqual(deleted, []);
    },
  );
});

Deno.test("createAiSdkProvider() with make: structured output through the agent's output spec", async () => {
  const model = scriptedModel([[
    ...textParts('{"answer":"42"}'),
    finish("stop", { input: 3, output: 5 }),
  ]]);
  await withWorld(
    {
      name: "kid",
      capabilities: { outputSchema: true },
      make: (spec) =>
        new ToolLoopAgent({
          model,
          ...(spec.outputSchema
            ? { output: Output.object({ schema: jsonSchema(spec.outputSchema) }) }
            : {}),
        }),
    },
    async ({ subagents, parent }) => {
      const outputSchema = {
        type: "object",
        properties: { answer: { type: "string" } },
        required: ["answer"],
      };
      const run = subagents.start("kid", { prompt: "Answer", parent, outputSchema });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "completed");
      assert.deepEqual(result.structured, { answer: "42" });
      assert.equal(model.doStreamCalls[0].responseFormat?.type, "json");
    },
  );
});

Deno.test("createAiSdkProvider() with make: an agent without the output spec ends NO_STRUCTURED_RESULT", async () => {
  const model = scriptedModel([[...textParts("just words"), finish("stop")]]);
  await withWorld(
    { name: "kid", capabilities: { outputSchema: true }, make: () => new ToolLoopAgent({ model }) },
    async ({ subagents, parent }) => {
      const run = subagents.start("kid", {
        prompt: "Answer",
        parent,
        outputSchema: { type: "object", properties: { answer: { type: "string" } } },
      });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "error");
      assert.equal(result.error?.code, "NO_STRUCTURED_RESULT");
    },
  );
});

Deno.test("createAiSdkProvider() with make: persona and tool filter reach the agent, a breach does not start", async () => {
  const model = new MockLanguageModelV4({
    doStream: (options) => {
      const system = options.prompt.find((m) => m.role === "system")?.content ?? "";
      const tools = (options.tools ?? []).map((t) => t.name).join(",");
      return Promise.resolve(streamOf([...textParts(`${system}|${tools}`), finish("stop")]));
    },
  });
  const a = tool({
    description: "a",
    inputSchema: jsonSchema({ type: "object" }),
    execute: () => "a",
  });
  const b = tool({
    description: "b",
    inputSchema: jsonSchema({ type: "object" }),
    execute: () => "b",
  });
  let honest = true;
  await withWorld(
    {
      name: "kid",
      capabilities: { persona: true, toolFilter: true },
      make: (spec) =>
        new ToolLoopAgent({
          model,
          instructions: spec.instructions("Be kind."),
          tools: honest ? spec.tools({ a, b }) : { a, b },
        }),
    },
    async ({ subagents, parent }) => {
      const run = subagents.start("kid", {
        prompt: "Hi",
        parent,
        persona: "You are Ada.",
        toolFilter: { deny: ["b"] },
      });
      const result = await run.result;
      await run.dispose();
      assert.deepEqual(result.output, [{ type: "text", text: "Be kind.\n\nYou are Ada.|a" }]);
      honest = false;
      const breach = subagents.start("kid", { prompt: "Hi", parent, toolFilter: { allow: ["a"] } });
      await assert.rejects(breach.started, /tools the tool filter leaves out: b/);
      const ended = await breach.result;
      await breach.dispose();
      assert.equal(ended.stopReason, "error");
      assert.equal(ended.error?.code, "START_FAILED");
    },
  );
});

Deno.test("createAiSdkProvider() with one fixed agent refuses start-time fields before any run", async () => {
  const model = scriptedModel([[...textParts("x"), finish("stop")]]);
  await withWorld(
    { name: "kid", agent: new ToolLoopAgent({ model }) },
    ({ subagents, parent }) => {
      for (const extra of [{ persona: "p" }, { toolFilter: { allow: [] } }, { maxDepth: 2 }]) {
        assert.throws(
          () => subagents.start("kid", { prompt: "Hi", parent, ...extra }),
          (error: Error) =>
            error instanceof SubagentError && error.code === "UNSUPPORTED_CAPABILITY",
        );
      }
      assert.equal(model.doStreamCalls.length, 0);
      return Promise.resolve();
    },
  );
});

Deno.test("createAiSdkProvider() make() that throws ends START_FAILED; a model failure ends CHILD_FAILED", async () => {
  await withWorld(
    {
      name: "kid",
      make: () => {
        throw new Error("no API key");
      },
    },
    async ({ subagents, parent }) => {
      const run = subagents.start("kid", { prompt: "Hi", parent });
      await assert.rejects(run.started, /make\(\) failed: no API key/);
      const result = await run.result;
      await run.dispose();
      assert.equal(result.error?.code, "START_FAILED");
    },
  );
  const model = new MockLanguageModelV4({
    doStream: () => Promise.reject(new Error("quota exceeded")),
  });
  await withWorld({
    name: "kid",
    agent: new ToolLoopAgent({ model, maxRetries: 0, onError: () => {} } as never),
  }, async ({ subagents, parent }) => {
    const run = subagents.start("kid", { prompt: "Hi", parent });
    const result = await run.result;
    await run.dispose();
    assert.equal(result.stopReason, "error");
    assert.equal(result.error?.code, "CHILD_FAILED");
    assert.match(result.error!.message, /quota exceeded/);
  });
});

Deno.test("createAiSdkProvider() resume continues the conversation", async () => {
  const model = new MockLanguageModelV4({
    doStream: (options) => {
      const users = options.prompt.filter((m) => m.role === "user").length;
      return Promise.resolve(streamOf([...textParts(`turn ${users}`), finish("stop")]));
    },
  });
  await withWorld(
    { name: "kid", agent: new ToolLoopAgent({ model }) },
    async ({ subagents, parent }) => {
      const run = subagents.start("kid", { prompt: "One", parent });
      assert.deepEqual((await run.result).output, [{ type: "text", text: "turn 1" }]);
      const again = run.resume!("Two");
      assert.deepEqual((await again.result).output, [{ type: "text", text: "turn 2" }]);
      await again.dispose();
      await run.dispose();
    },
  );
});

Deno.test("createAiSdkProvider() cancel aborts the agent's stream", async () => {
  let signal: AbortSignal | undefined;
  const model = new MockLanguageModelV4({
    doStream: (options) => {
      signal = options.abortSignal;
      return Promise.resolve({ stream: hangingStream(options.abortSignal, textParts("busy")) });
    },
  });
  await withWorld(
    { name: "kid", agent: new ToolLoopAgent({ model }) },
    async ({ subagents, parent, root }) => {
      const text = Promise.withResolvers<void>();
      root.on(subagentProgress, () => text.resolve());
      const run = subagents.start("kid", { prompt: "Work", parent });
      await text.promise;
      run.cancel("stop");
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "aborted");
      assert.equal(signal?.aborted, true);
    },
  );
});

Deno.test("createAiSdkProvider() refuses bad options naming them", () => {
  const model = scriptedModel([[finish("stop")]]);
  const agent = new ToolLoopAgent({ model });
  for (
    const [options, pattern] of [
      [{ name: "x" }, /give agent .* or make .*, not both/],
      [{ name: "x", agent, make: () => agent }, /not both/],
      [{ name: "", agent }, /name must be a non-empty string/],
      [
        { name: "x", agent: model },
        /version "agent-v1".*a language model\? wrap it: new ToolLoopAgent\(\{ model \}\)/,
      ],
      [{ name: "x", agent: "researcher" }, /agent must be an AI SDK agent .* got a string/],
      [
        { name: "x", agent, colour: "red" },
        /unknown option colour \(known: name, agent, make, capabilities\)/,
      ],
      [
        { name: "x", agent, capabilities: { persona: true } },
        /one fixed agent cannot change per run; use make/,
      ],
      [
        { name: "x", make: () => agent, capabilities: { budget: true } },
        /unknown option capabilities\.budget \(known: outputSchema, /,
      ],
      [{ name: "x", make: "agent" }, /make must be a function/],
    ] as const
  ) {
    assert.throws(
      () => createAiSdkProvider(options as never),
      (error: Error) =>
        error instanceof TypeError &&
        error.message.startsWith("Cannot create the AI SDK provider") &&
        pattern.test(error.message),
      String(pattern),
    );
  }
});

Deno.test("createAiSdkProvider() runs your own streamText loop given as an Agent", async () => {
  const model = scriptedModel([[
    ...textParts("from my loop"),
    finish("stop", { input: 2, output: 3 }),
  ]]);
  const mine = {
    version: "agent-v1",
    id: "mine",
    tools: {},
    stream: (options: { prompt?: string; messages?: ModelMessage[]; abortSignal?: AbortSignal }) =>
      Promise.resolve(
        streamText({
          model,
          system: "My loop.",
          ...(options.messages ? { messages: options.messages } : { prompt: options.prompt ?? "" }),
          abortSignal: options.abortSignal,
        }),
      ),
    generate: () => Promise.reject(new Error("not used")),
  };
  await withWorld({ name: "kid", agent: mine }, async ({ subagents, parent }) => {
    const run = subagents.start("kid", { prompt: "Go", parent });
    const result = await run.result;
    await run.dispose();
    assert.deepEqual(result.output, [{ type: "text", text: "from my loop" }]);
    assert.equal(result.usage?.self.outputTokens, 3);
    assert.deepEqual(model.doStreamCalls[0].prompt[0], { role: "system", content: "My loop." });
  });
});

Deno.test("createAiSdkProvider() ends CHILD_FAILED when the model throws mid-stream, keeping what it said", async () => {
  let pulls = 0;
  const model = new MockLanguageModelV4({
    doStream: () =>
      Promise.resolve({
        stream: new ReadableStream({
          pull(controller) {
            if (pulls++ === 0) {
              for (const part of textParts("Half an answer")) controller.enqueue(part);
            } else controller.error(new Error("connection reset"));
          },
        }),
      }),
  });
  await withWorld(
    { name: "kid", agent: new ToolLoopAgent({ model, maxRetries: 0, onError: () => {} } as never) },
    async ({ subagents, parent }) => {
      const run = subagents.start("kid", { prompt: "Go", parent });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "error");
      assert.equal(result.error?.code, "CHILD_FAILED");
      assert.match(result.error!.message, /connection reset/);
      assert.deepEqual(result.output, [{ type: "text", text: "Half an answer" }]);
    },
  );
});

Deno.test("createAiSdkProvider() asks every approval of a step, and the agent's toolApproval too", async () => {
  const deleted: string[] = [];
  const model = new MockLanguageModelV4({
    doStream: (options) => {
      const outcome = toolOutcome(options.prompt);
      return Promise.resolve(streamOf(
        outcome === undefined
          ? [
            toolCall("c1", "deleteFile", { path: "a.txt" }),
            toolCall("c2", "wipe", { path: "b.txt" }),
            finish("tool-calls"),
          ]
          : [...textParts("done"), finish("stop")],
      ));
    },
  });
  const wipe = tool({
    description: "Wipe a file",
    inputSchema: jsonSchema<{ path: string }>({
      type: "object",
      properties: { path: { type: "string" } },
    }),
    execute: ({ path }) => {
      deleted.push(`wiped ${path}`);
      return "wiped";
    },
  });
  const agent = new ToolLoopAgent({
    model,
    tools: { deleteFile: deleteTool(deleted), wipe },
    toolApproval: { wipe: "user-approval" },
  });
  await withWorld({ name: "kid", agent }, async ({ subagents, parent, root }) => {
    const asked: string[] = [];
    handleSubagentInput(root, (request) => {
      asked.push(request.toolCall!.name);
      return request.toolCall!.name === "wipe"
        ? { outcome: "selected", optionId: "reject" }
        : { outcome: "selected", optionId: "allow" };
    });
    const run = subagents.start("kid", { prompt: "Clean", parent });
    const result = await run.result;
    await run.dispose();
    assert.deepEqual(asked.sort(), ["deleteFile", "wipe"]);
    assert.deepEqual(deleted, ["a.txt"]);
    assert.equal(result.stopReason, "completed");
  });
});

Deno.test("createAiSdkProvider() with make: a made agent delegates below its run, within maxDepth", async () => {
  // The middle agent calls its subagent tool once, then says what it got.
  const middleModel = new MockLanguageModelV4({
    doStream: (options) => {
      const outcome = options.prompt.findLast((m) => m.role === "tool");
      if (!outcome) {
        return Promise.resolve(streamOf([
          toolCall("m1", "subagent", { description: "Ask the leaf", prompt: "leaf task" }),
          finish("tool-calls"),
        ]));
      }
      const output = (outcome.content as { output: { type: string; value: unknown } }[])[0].output;
      return Promise.resolve(
        streamOf([...textParts(`${output.type}: ${String(output.value)}`), finish("stop")]),
      );
    },
  });
  const leafModel = scriptedModel([[...textParts("leaf says hi"), finish("stop")]]);
  const root = createRootScope();
  try {
    const subagents = createSubagentService(root);
    subagents.registerProvider(
      createAiSdkProvider({ name: "leaf", agent: new ToolLoopAgent({ model: leafModel }) }),
    );
    subagents.registerProvider(createAiSdkProvider({
      name: "middle",
      capabilities: { depthLimit: true },
      make: (spec) =>
        new ToolLoopAgent({
          model: middleModel,
          tools: { subagent: subagentTool(subagents, { provider: "leaf", parent: spec.parent }) },
        }),
    }));
    const starts: SubagentRunInfo[] = [];
    root.on(subagentStart, (info) => void starts.push(info));
    const parent = { id: "main", scope: root };

    const run = subagents.start("middle", { prompt: "Delegate", parent });
    const result = await run.result;
    await run.dispose();
    assert.deepEqual(result.output, [{ type: "text", text: "text: leaf says hi" }]);
    const leaf = starts.find((s) => s.provider === "leaf")!;
    assert.equal(leaf.depth, 2);
    assert.equal(leaf.parentRunId, run.id);
    assert.equal(result.usage?.total.modelCalls, 3, "the leaf's model call is in the total");

    const capped = subagents.start("middle", { prompt: "Delegate", parent, maxDepth: 1 });
    const refused = await capped.result;
    await capped.dispose();
    assert.match(
      textOf(refused.output),
      /^error-text: .*could not be started: .*depth 2, above the maximum depth 1/,
    );
    assert.equal(leafModel.doStreamCalls.length, 1, "no leaf ran under the cap");
  } finally {
    await root.dispose();
  }
});
