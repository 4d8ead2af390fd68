import assert from "node:assert/strict";
import { createRootScope, type Scope } from "@seam/host";
import { createSubagentService, type SubagentService } from "@seam/subagent";
import { subagentToolWording } from "@seam/tool-subagent";
import { jsonSchema, Output, ToolLoopAgent } from "ai";
import { MockLanguageModelV4, simulateReadableStream } from "ai/test";
import {
  createAiSdkProvider,
  subagentTool,
  SubagentToolError,
  type SubagentToolOutput,
} from "./mod.ts";
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
  child: MockLanguageModelV4,
  body: (world: World) => Promise<void>,
): Promise<void> {
  const root = createRootScope();
  try {
    const subagents = createSubagentService(root);
    subagents.registerProvider(
      createAiSdkProvider({
        name: "kid",
        agent: new ToolLoopAgent({ model: child, maxRetries: 0 }),
      }),
    );
    await body({ root, subagents, parent: { id: "main", scope: root } });
  } finally {
    await root.dispose();
  }
}

/** A parent model: delegate first, then say what the tool answered. */
function parentModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: (options) => {
      const tool = options.prompt.findLast((m) => m.role === "tool");
      if (!tool) {
        return Promise.resolve(streamOf([
          toolCall("d1", "subagent", { description: "Ask the kid", prompt: "What is 6*7?" }),
          finish("tool-calls", { input: 30, output: 10 }),
        ]));
      }
      const part = (tool.content as { output: { type: string; value: unknown } }[])[0];
      return Promise.resolve(
        streamOf([
          ...textParts(`${part.output.type}: ${String(part.output.value)}`),
          finish("stop"),
        ]),
      );
    },
  });
}

Deno.test("subagentTool() uses @seam/tool-subagent's schema and wording", async () => {
  await withWorld(scriptedModel([[finish("stop")]]), ({ subagents, parent }) => {
    const delegate = subagentTool(subagents, { provider: "kid", parent });
    const wording = subagentToolWording(false);
    assert.equal(delegate.description, wording.description);
    assert.deepEqual(delegate.inputSchema.jsonSchema, {
      type: "object",
      properties: {
        description: { type: "string", description: wording.label },
        prompt: { type: "string", description: wording.prompt },
      },
      required: ["description", "prompt"],
      additionalProperties: false,
    });
    return Promise.resolve();
  });
});

Deno.test("subagentTool() lets an AI SDK agent delegate: preliminary results, the answer, usage", async () => {
  // Chunks a few ms apart, so the parent sees the child's progress before its end.
  const child = new MockLanguageModelV4({
    doStream: () =>
      Promise.resolve({
        stream: simulateReadableStream({
          chunks: [...textParts("It is 42."), finish("stop", { input: 12, output: 4, cached: 2 })],
          initialDelayInMs: 0,
          chunkDelayInMs: 5,
        }),
      }),
  });
  await withWorld(child, async ({ subagents, parent }) => {
    const model = parentModel();
    const agent = new ToolLoopAgent({
      model,
      tools: { subagent: subagentTool(subagents, { provider: "kid", parent }) },
    });
    const result = await agent.stream({ prompt: "Ask the kid" });
    const outputs: { preliminary?: boolean; output: SubagentToolOutput }[] = [];
    for await (const part of result.fullStream) {
      if (part.type === "tool-result") {
        outputs.push({ preliminary: part.preliminary, output: part.output as SubagentToolOutput });
      }
    }
    assert.equal(await result.text, "text: It is 42.");
    // Every yield is a preliminary result (the last one again as the final result).
    const running = outputs.filter((o) => o.preliminary && o.output.status === "running");
    assert.ok(running.length >= 1, "the child's progress arrives as preliminary results");
    assert.equal(running.at(-1)?.output.text, "It is 42.");
    const final = outputs.at(-1)!;
    assert.equal(final.preliminary, undefined);
    assert.equal(final.output.status, "completed");
    assert.equal(final.output.text, "It is 42.");
    assert.equal(final.output.usage?.total.inputTokens, 12);
    assert.equal(final.output.usage?.total.cachedInputTokens, 2);
    // The child was given the prompt, not the label.
    const childPrompt = child.doStreamCalls[0].prompt.at(-1);
    assert.deepEqual(
      (childPrompt?.content as { text: string }[]).map((p) => p.text),
      ["What is 6*7?"],
    );
  });
});

Deno.test("subagentTool() gives the model a tool error it can read when the child fails", async () => {
  const child = new MockLanguageModelV4({
    doStream: () => Promise.reject(new Error("the child's model is down")),
  });
  await withWorld(child, async ({ subagents, parent }) => {
    const agent = new ToolLoopAgent({
      model: parentModel(),
      tools: { subagent: subagentTool(subagents, { provider: "kid", parent }) },
    });
    const result = await agent.stream({ prompt: "Ask the kid" });
    assert.match(
      await result.text,
      /^error-text: (SubagentToolError: )?The subagent failed before finishing its task\.\nWhat went wrong \(CHILD_FAILED\): .*the child's model is down/,
    );
  });
});

Deno.test("subagentTool() throws SubagentToolError with the result (and usage) for a run that did not complete", async () => {
  const child = scriptedModel([[
    ...textParts("partial"),
    finish("length", { input: 5, output: 9 }),
  ]]);
  await withWorld(child, async ({ subagents, parent }) => {
    const delegate = subagentTool(subagents, { provider: "kid", parent });
    const error = await (async () => {
      try {
        for await (
          const _ of delegate.execute({ description: "x", prompt: "go" }, { toolCallId: "c" })
        ) {
          // preliminary outputs
        }
      } catch (error) {
        return error;
      }
    })();
    assert.ok(error instanceof SubagentToolError);
    assert.equal(error.code, "SUBAGENT_NOT_COMPLETED");
    assert.match(error.message, /token limit[^]*partial/);
    assert.equal(error.result?.usage?.self.outputTokens, 9);
  });
});

Deno.test("subagentTool() cancels the child when the AI SDK aborts the call", async () => {
  let childSignal: AbortSignal | undefined;
  const child = new MockLanguageModelV4({
    doStream: (options) => {
      childSignal = options.abortSignal;
      return Promise.resolve({ stream: hangingStream(options.abortSignal, textParts("thinking")) });
    },
  });
  await withWorld(child, async ({ subagents, parent }) => {
    const delegate = subagentTool(subagents, { provider: "kid", parent });
    const controller = new AbortController();
    const error = await (async () => {
      try {
        for await (
          const output of delegate.execute({ description: "x", prompt: "go" }, {
            toolCallId: "c",
            abortSignal: controller.signal,
          })
        ) {
          if (output.text === "thinking") controller.abort(new Error("user pressed stop"));
        }
      } catch (error) {
        return error;
      }
    })();
    assert.ok(error instanceof SubagentToolError);
    assert.match(error.message, /cancelled/);
    assert.equal(childSignal?.aborted, true);
  });
});

Deno.test("subagentTool() refuses bad options naming them", async () => {
  await withWorld(scriptedModel([[finish("stop")]]), ({ subagents, parent }) => {
    for (
      const [options, pattern] of [
        [
          { provider: "kid", parent, colour: 1 },
          /unknown option colour \(known: provider, parent/,
        ],
        [
          { provider: "nobody", parent },
          /no provider named "nobody" is registered \(registered: kid\)/,
        ],
        [{ provider: "kid" }, /parent must be an AgentRef/],
        [{ provider: "", parent }, /provider must be a non-empty provider name/],
        [{ provider: "kid", parent, persona: "" }, /persona must be a non-empty string/],
        [
          { provider: "kid", parent, agentOptions: { modle: "m" } },
          /unknown option agentOptions\.modle \(known: model\)$/,
        ],
      ] as const
    ) {
      assert.throws(
        () => subagentTool(subagents, options as never),
        (error: Error) =>
          error instanceof TypeError &&
          error.message.startsWith("Cannot create the AI SDK subagent tool") &&
          pattern.test(error.message),
        String(pattern),
      );
    }
    assert.throws(
      () => subagentTool({} as never, { provider: "kid", parent }),
      /service must be a SubagentService/,
    );
    return Promise.resolve();
  });
});

Deno.test("subagentTool() asks for a structured value and shows it to the model", async () => {
  const root = createRootScope();
  try {
    const subagents = createSubagentService(root);
    const child = scriptedModel([[...textParts('{"answer":"42"}'), finish("stop")]]);
    subagents.registerProvider(createAiSdkProvider({
      name: "kid",
      capabilities: { outputSchema: true },
      make: (spec) =>
        new ToolLoopAgent({
          model: child,
          ...(spec.outputSchema
            ? { output: Output.object({ schema: jsonSchema(spec.outputSchema) }) }
            : {}),
        }),
    }));
    const delegate = subagentTool(subagents, {
      provider: "kid",
      parent: { id: "main", scope: root },
      outputSchema: {
        type: "object",
        properties: { answer: { type: "string" } },
        required: ["answer"],
      },
    });
    let last: SubagentToolOutput | undefined;
    for await (
      const output of delegate.execute({ description: "x", prompt: "go" }, { toolCallId: "c" })
    ) {
      last = output;
    }
    assert.deepEqual(last?.structured, { answer: "42" });
    assert.match(
      delegate.toModelOutput({ output: last! }).value,
      /Structured result \(JSON\):\n\{\n {2}"answer": "42"\n\}/,
    );
  } finally {
    await root.dispose();
  }
});
