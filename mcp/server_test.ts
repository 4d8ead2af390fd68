// No `await using` here: Node 20 (`deno task test:node`) cannot parse it.
import assert from "node:assert/strict";
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { subagentToolWording } from "@seam/tool-subagent";
import { createMcpServer } from "./server.ts";
import { createTestProvider } from "./_test_provider.ts";
import { world } from "./_test_support.ts";

type Meta = Record<string, { code?: string; self?: { outputTokens: number } } & string>;
type Text = { type: string; text?: string };
const textOf = (result: object): string =>
  (result as { content: Text[] }).content.map((b) => b.text ?? "").join("");

Deno.test("createMcpServer() offers one tool per provider, worded as the subagent tool", async () => {
  const w = world();
  try {
    w.subagents.registerProvider(createTestProvider("forky", { inherits: true }));
    const client = await w.client();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t: { name: string }) => t.name), [
      "subagent_test",
      "subagent_forky",
    ]);
    assert.equal(tools[0].description, subagentToolWording(false).description);
    assert.equal(tools[1].description, subagentToolWording(true).description);
    const schema = tools[0].inputSchema as { properties: Record<string, { description?: string }> };
    assert.deepEqual(Object.keys(schema.properties), ["description", "prompt", "outputSchema"]);
    assert.equal(schema.properties.prompt.description, subagentToolWording(false).prompt);
    assert.deepEqual(tools[0].inputSchema.required, ["description", "prompt"]);
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpServer() omits outputSchema where the provider lacks it", async () => {
  const w = world();
  try {
    w.subagents.registerProvider({
      ...createTestProvider("plain"),
      capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    });
    const client = await w.client();
    const { tools } = await client.listTools();
    const plain = tools.find((t: { name: string }) => t.name === "subagent_plain")!;
    assert.deepEqual(Object.keys(plain.inputSchema.properties!), ["description", "prompt"]);
    const result = await client.callTool({
      name: "subagent_plain",
      arguments: { description: "x", prompt: "echo hi", outputSchema: { type: "object" } },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /unknown argument "outputSchema" \(known: description, prompt\)/);
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpServer() sends tools/list_changed as providers come and go", async () => {
  const w = world();
  try {
    const client = await w.client();
    let changes = 0;
    const changed = Promise.withResolvers<void>();
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
      changed.resolve();
    });
    const off = w.subagents.registerProvider(createTestProvider("extra"));
    await changed.promise;
    assert.deepEqual((await client.listTools()).tools.map((t: { name: string }) => t.name), [
      "subagent_test",
      "subagent_extra",
    ]);
    await off();
    while (changes < 2) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual((await client.listTools()).tools.map((t: { name: string }) => t.name), [
      "subagent_test",
    ]);
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpServer() offers only the chosen providers", async () => {
  const w = world({ providers: ["test"], toolName: (p) => `ask_${p}` });
  try {
    w.subagents.registerProvider(createTestProvider("hidden"));
    const client = await w.client();
    assert.deepEqual((await client.listTools()).tools.map((t: { name: string }) => t.name), [
      "ask_test",
    ]);
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("tools/call streams text as progress and returns output with usage in _meta", async () => {
  const w = world();
  try {
    const client = await w.client();
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: "subagent_test", arguments: { description: "Echo", prompt: "echo one two three" } },
      undefined,
      { onprogress: (p: { progress: number; message?: string }) => progress.push(p) },
    );
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.content, [{ type: "text", text: "one two three" }]);
    assert.equal(progress.map((p) => p.message).join(""), "one two three ");
    assert.deepEqual(progress.map((p) => p.progress), progress.map((_, i) => i + 1));
    const meta = result._meta as Meta;
    assert.equal(meta["seam/stopReason"], "completed");
    assert.equal(meta["seam/usage"].self?.outputTokens, 3);
    assert.equal(w.server.liveRuns, 0);
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("tools/call returns images, structuredContent and errors as data", async (t) => {
  const w = world();
  try {
    const client = await w.client();
    await t.step("image", async () => {
      const result = await client.callTool({
        name: "subagent_test",
        arguments: { description: "Draw", prompt: "image" },
      });
      assert.deepEqual(result.content, [{
        type: "image",
        data: "iVBORw0KGgo=",
        mimeType: "image/png",
      }]);
    });
    await t.step("structuredContent with an output schema", async () => {
      const result = await client.callTool({
        name: "subagent_test",
        arguments: {
          description: "Answer",
          prompt: "structured",
          outputSchema: {
            type: "object",
            properties: { answer: { type: "number" } },
            required: ["answer"],
          },
        },
      });
      assert.deepEqual(result.structuredContent, { answer: 42 });
    });
    await t.step("isError with what went wrong", async () => {
      const result = await client.callTool({
        name: "subagent_test",
        arguments: { description: "Fail", prompt: "fail" },
      });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /CHILD_CRASHED\): the child fell over/);
      assert.match(textOf(result), /half done/);
      const meta = result._meta as Meta;
      assert.deepEqual(meta["seam/error"], {
        code: "CHILD_CRASHED",
        message: "the child fell over",
      });
      assert.equal(meta["seam/stopReason"], "error");
    });
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("an input request becomes elicitation/create, from any depth", async (t) => {
  const w = world();
  try {
    const client = await w.client({ elicitation: true });
    const asked: { message: string; requestedSchema: unknown }[] = [];
    let action: "accept" | "decline" = "accept";
    client.setRequestHandler(ElicitRequestSchema, (request: { params: unknown }) => {
      const params = request.params as { message: string; requestedSchema: unknown };
      asked.push(params);
      const props = (params.requestedSchema as { properties: Record<string, unknown> }).properties;
      if (action === "decline") return { action: "decline" };
      return {
        action: "accept",
        content: "decision" in props ? { decision: "allow" } : { answer: "main" },
      };
    });
    const call = (prompt: string) =>
      client.callTool({ name: "subagent_test", arguments: { description: "Ask", prompt } });
    await t.step("a permission request is a choice among its options", async () => {
      assert.equal(textOf(await call("ask")), "selected allow");
      assert.match(asked[0].message, /May I delete build\/\?\nTool: rm -rf build/);
      assert.deepEqual(asked[0].requestedSchema, {
        type: "object",
        properties: {
          decision: {
            type: "string",
            title: "Decision",
            oneOf: [{ const: "allow", title: "Allow" }, { const: "reject", title: "Reject" }],
          },
        },
        required: ["decision"],
      });
    });
    await t.step("a question is answered with text", async () => {
      assert.equal(textOf(await call("question")), "answered main");
    });
    await t.step("a grandchild's request reaches the client", async () => {
      assert.equal(textOf(await call("nest ask")), "selected allow");
      assert.match(asked.at(-1)!.message, /asked by a subagent at depth 2/);
    });
    await t.step("a decline is a refusal", async () => {
      action = "decline";
      assert.equal(textOf(await call("ask")), "refused: the user declined");
    });
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("an elicitation's content is the answer's data, its answer field the words", async (t) => {
  const w = world();
  try {
    const client = await w.client({ elicitation: true });
    const content = { answer: "main", remote: "origin" };
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content }));
    const call = async () =>
      textOf(
        await client.callTool({
          name: "subagent_test",
          arguments: { description: "Ask", prompt: "question-data" },
        }),
      );
    await t.step("the form's fields are answer.data, its answer field the words", async () => {
      assert.deepEqual(JSON.parse(await call()), {
        outcome: "answered",
        text: "main",
        data: { answer: "main", remote: "origin" },
      });
    });
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("an input request is refused with a note when the client declared no elicitation", async () => {
  const w = world();
  try {
    const client = await w.client();
    const result = await client.callTool({
      name: "subagent_test",
      arguments: { description: "Ask", prompt: "nest ask" },
    });
    assert.match(textOf(result), /^refused: the MCP client did not declare the elicitation/);
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("notifications/cancelled cancels the run and its subtree", async () => {
  const w = world();
  try {
    const client = await w.client();
    const controller = new AbortController();
    const call = client.callTool(
      { name: "subagent_test", arguments: { description: "Hang", prompt: "nest hang" } },
      undefined,
      { signal: controller.signal },
    );
    while (w.provider.live.size < 2) await new Promise((r) => setTimeout(r, 5));
    controller.abort("changed my mind");
    await assert.rejects(call);
    const deadline = Date.now() + 2_000;
    while ((w.provider.live.size > 0 || w.server.liveRuns > 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(w.provider.live.size, 0, "the run and its grandchild ended");
    assert.equal(w.server.liveRuns, 0);
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("closing the connection cancels its runs", async () => {
  const w = world();
  try {
    const client = await w.client();
    const call = client.callTool({
      name: "subagent_test",
      arguments: { description: "Hang", prompt: "hang" },
    });
    while (w.provider.live.size < 1) await new Promise((r) => setTimeout(r, 5));
    await client.close();
    await assert.rejects(call);
    while (w.server.liveRuns > 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal(w.provider.live.size, 0);
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("bad input gets a clear MCP error naming what was wrong", async (t) => {
  const w = world({ limits: { maxPromptBytes: 100, maxRunsPerPrincipal: 1 } });
  try {
    const client = await w.client();
    await t.step("unknown tool: a protocol error naming the known ones", async () => {
      await assert.rejects(
        client.callTool({ name: "nope", arguments: { description: "x", prompt: "y" } }),
        (e: Error & { code?: number }) =>
          e.code === -32602 && /Unknown tool "nope" \(known: subagent_test\)/.test(e.message),
      );
    });
    const bad = async (args: unknown, pattern: RegExp) => {
      const result = await client.callTool({ name: "subagent_test", arguments: args as never });
      assert.equal(result.isError, true);
      assert.match(textOf(result), pattern);
      assert.equal((result._meta as Meta)["seam/error"].code, "INVALID_ARGUMENTS");
    };
    await t.step("malformed arguments name the field", async () => {
      await bad({ description: "x" }, /"prompt" must be a non-empty string/);
      await bad({ description: 3, prompt: "y" }, /"description" must be a non-empty string/);
      await bad({ description: "x", prompt: "y", model: "z" }, /unknown argument "model"/);
      await bad({ description: "x", prompt: "y", outputSchema: [] }, /"outputSchema" must be/);
    });
    await t.step("an oversized prompt", async () => {
      await bad(
        { description: "x", prompt: "é".repeat(60) },
        /"prompt" is 120 bytes, more than the 100/,
      );
    });
    await t.step("an output schema the service refuses", async () => {
      const result = await client.callTool({
        name: "subagent_test",
        arguments: { description: "x", prompt: "structured", outputSchema: { type: "string" } },
      });
      assert.equal(result.isError, true);
      assert.equal((result._meta as Meta)["seam/error"].code, "INVALID_OUTPUT_SCHEMA");
    });
    await t.step("too many runs of one principal; another principal is not held back", async () => {
      const controller = new AbortController();
      const first = client.callTool(
        { name: "subagent_test", arguments: { description: "Hang", prompt: "hang" } },
        undefined,
        { signal: controller.signal },
      );
      while (w.server.liveRuns < 1) await new Promise((r) => setTimeout(r, 5));
      const second = await client.callTool({
        name: "subagent_test",
        arguments: { description: "x", prompt: "echo hi" },
      });
      assert.equal(second.isError, true);
      assert.equal((second._meta as Meta)["seam/error"].code, "TOO_MANY_RUNS");
      const other = await w.client({ principal: "someone-else" });
      const theirs = await other.callTool({
        name: "subagent_test",
        arguments: { description: "x", prompt: "echo hi" },
      });
      assert.equal(textOf(theirs), "hi");
      assert.deepEqual(
        [...w.provider.started.values()],
        ["hang", "echo hi"],
        "the refused call started nothing",
      );
      controller.abort();
      await assert.rejects(first);
      while (w.server.liveRuns > 0) await new Promise((r) => setTimeout(r, 5));
    });
  } finally {
    await w[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpServer() refuses unknown options and bad limits", () => {
  assert.throws(
    () => createMcpServer({ scope: undefined as never, bogus: 1 } as never),
    /unknown option bogus \(known: scope, subagents/,
  );
  assert.throws(
    () => createMcpServer({ scope: {} as never, limits: { maxRunsPerPrincipal: 0 } }),
    /scope must be a Scope/,
  );
});

Deno.test("createMcpServer() refuses an unknown limit, naming the known ones", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  try {
    assert.throws(
      () => createMcpServer({ scope: root, limits: { maxRuns: 2 } as never }),
      new TypeError(
        "Cannot create the MCP server: unknown option limits.maxRuns (known: maxPromptBytes, maxRunsPerPrincipal, maxProgressChars, inputTimeoutMs)",
      ),
    );
  } finally {
    await root.dispose();
  }
});
