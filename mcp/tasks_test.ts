// No `await using` here: Node 20 (`deno task test:node`) cannot parse it.
import assert from "node:assert/strict";
import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import { STATUS_MESSAGE_CHARS } from "./_task.ts";
import { createHost, createMemoryLogger } from "@seam/host";
import { createSubagentService, handleSubagentInput } from "@seam/subagent";
import { testSubagentProvider } from "@seam/subagent/testing";
import { createMcpProvider } from "./provider.ts";
import { tasksWorld } from "./_test_tasks.ts";

type Text = { type: string; text: string };
const args = (prompt: string) => ({ description: "Task", prompt });
const until = async (done: () => boolean, what: string) => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(done(), what);
};

Deno.test("tools/call answers a task handle at once, and tasks/get polls it to its result", async () => {
  const t = await tasksWorld();
  try {
    const session = await t.session("alice");
    const execution = await session.callTool("subagent_test", args("echo one two"));
    assert.equal(execution.kind, "task");
    const { outcome } = await execution.settle();
    assert.equal(outcome.status, "completed");
    const result = resultFromTaskOutcome(outcome) as {
      content: Text[];
      _meta: Record<string, unknown>;
    };
    assert.deepEqual(result.content, [{ type: "text", text: "one two" }]);
    assert.equal(result._meta["seam/stopReason"], "completed");
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("the task handle comes back while the child still runs", async () => {
  const t = await tasksWorld();
  try {
    const session = await t.session("alice");
    const execution = await session.callTool("subagent_test", args("hang"));
    assert.equal(execution.kind, "task");
    await until(
      () => t.world.provider.live.size === 1,
      "the child runs after the handle came back",
    );
    const got = await t.raw("alice", "tasks/get", { taskId: execution.handle!.taskId });
    assert.equal(got.result?.status, "working");
    await execution.cancel();
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("an input request from any depth is input_required, answered with tasks/update", async () => {
  const t = await tasksWorld();
  try {
    const asked: unknown[] = [];
    const session = await t.session("alice", (request) => {
      asked.push(request);
      return { action: "accept", content: { decision: "allow" } };
    });
    const execution = await session.callTool("subagent_test", args("nest ask"));
    const { outcome } = await execution.settle();
    const result = resultFromTaskOutcome(outcome) as { content: Text[] };
    assert.deepEqual(result.content, [{ type: "text", text: "selected allow" }]);
    assert.equal(asked.length, 1);
    assert.match(JSON.stringify(asked[0]), /May I delete build/);
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("tasks/cancel ends the run and its whole subtree", async () => {
  const t = await tasksWorld();
  try {
    const session = await t.session("alice");
    const execution = await session.callTool("subagent_test", args("nest hang"));
    await until(() => t.world.provider.live.size === 2, "the child and its grandchild run");
    await execution.cancel();
    await until(() => t.world.provider.live.size === 0, "the subtree ended");
    const got = await t.raw("alice", "tasks/get", { taskId: execution.handle!.taskId });
    assert.equal(got.result?.status, "cancelled");
    assert.equal(t.world.server.liveRuns, 0);
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("tasks/update's content is the answer's data; content of the wrong shape is refused, naming it, and the request waits", async () => {
  const t = await tasksWorld();
  try {
    const call = await t.raw("alice", "tools/call", {
      name: "subagent_test",
      arguments: args("question-data"),
    });
    const taskId = call.result!.taskId as string;
    let task: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && task?.status !== "input_required"; i++) {
      task = (await t.raw("alice", "tasks/get", { taskId })).result;
      await new Promise((r) => setTimeout(r, 10));
    }
    const [key] = Object.keys(task!.inputRequests as object);
    for (
      const content of [["main"], "main", { deep: JSON.parse("[".repeat(40) + "]".repeat(40)) }]
    ) {
      const wrong = await t.raw("alice", "tasks/update", {
        taskId,
        inputResponses: { [key]: { action: "accept", content } },
      });
      assert.equal(wrong.error?.code, -32602, JSON.stringify(wrong));
      assert.match(wrong.error!.message, /answer\.data must be a JSON object of at most 32 levels/);
    }
    assert.equal((await t.raw("alice", "tasks/get", { taskId })).result?.status, "input_required");
    const ok = await t.raw("alice", "tasks/update", {
      taskId,
      inputResponses: { [key]: { action: "accept", content: { branch: "main" } } },
    });
    assert.equal(ok.error, undefined);
    let done: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && done?.status !== "completed"; i++) {
      done = (await t.raw("alice", "tasks/get", { taskId })).result;
      await new Promise((r) => setTimeout(r, 10));
    }
    const [said] = (done!.result as { content: Text[] }).content;
    assert.deepEqual(JSON.parse(said.text), {
      outcome: "answered",
      text: '{"branch":"main"}',
      data: { branch: "main" },
    });
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("a stale or mistyped tasks/update is an error naming the key; nothing is applied", async () => {
  const t = await tasksWorld();
  try {
    const call = await t.raw("alice", "tools/call", {
      name: "subagent_test",
      arguments: args("ask"),
    });
    assert.equal(call.result?.resultType, "task", JSON.stringify(call));
    const taskId = call.result!.taskId as string;
    let task: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && task?.status !== "input_required"; i++) {
      task = (await t.raw("alice", "tasks/get", { taskId })).result;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(task?.status, "input_required");
    const [key] = Object.keys(task!.inputRequests as object);
    const wrong = await t.raw("alice", "tasks/update", {
      taskId,
      inputResponses: {
        [key]: { action: "accept", content: { decision: "allow" } },
        "not-a-key": { action: "accept" },
      },
    });
    assert.equal(wrong.error?.code, -32602);
    assert.match(wrong.error!.message, /input key "not-a-key" is not waiting/);
    const malformed = await t.raw("alice", "tasks/update", {
      taskId,
      inputResponses: { [key]: { answer: "yes" } },
    });
    assert.match(malformed.error!.message, /must be an elicitation result/);
    // The good response in the refused update was not applied: the request still waits.
    assert.equal((await t.raw("alice", "tasks/get", { taskId })).result?.status, "input_required");
    const ok = await t.raw("alice", "tasks/update", {
      taskId,
      inputResponses: { [key]: { action: "accept", content: { decision: "reject" } } },
    });
    assert.equal(ok.error, undefined);
    const stale = await t.raw("alice", "tasks/update", {
      taskId,
      inputResponses: { [key]: { action: "accept", content: { decision: "allow" } } },
    });
    assert.match(stale.error!.message, /is not waiting/);
    let done: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && done?.status !== "completed"; i++) {
      done = (await t.raw("alice", "tasks/get", { taskId })).result;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual((done!.result as { content: Text[] }).content, [
      { type: "text", text: "selected reject" },
    ]);
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("one principal never sees, answers or cancels another's task", async () => {
  const t = await tasksWorld();
  try {
    const session = await t.session("alice");
    const execution = await session.callTool("subagent_test", args("hang"));
    const taskId = execution.handle!.taskId;
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const answer = await t.raw("bob", method, { taskId });
      assert.equal(answer.error?.code, -32602);
      assert.match(answer.error!.message, /Unknown task/);
    }
    const update = await t.raw("bob", "tasks/update", { taskId, inputResponses: { x: {} } });
    assert.match(update.error!.message, /Unknown task/);
    assert.equal((await t.raw("alice", "tasks/get", { taskId })).result?.status, "working");
    await execution.cancel();
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("a client without Tasks gets the result inline", async () => {
  const t = await tasksWorld();
  try {
    const answer = await t.raw("alice", "tools/call", {
      name: "subagent_test",
      arguments: args("echo inline"),
      _meta: { "io.modelcontextprotocol/clientCapabilities": {} },
    });
    assert.equal(answer.result?.resultType, "complete");
    assert.deepEqual(answer.result?.content, [{ type: "text", text: "inline" }]);
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpProvider({protocol: '2026-07-28'}) passes the conformance suite over Tasks", async (t) => {
  const remote = await tasksWorld();
  try {
    await testSubagentProvider(t, {
      createProvider: () =>
        createMcpProvider({
          url: remote.url,
          protocol: "2026-07-28",
          tool: "subagent_test",
          headers: { "x-principal": "caller" },
        }),
      prompts: {
        complete: "complete hello from the child",
        hang: "hang",
        fail: "fail",
        maxTokens: "max-tokens",
      },
      expectedOutput: "hello from the child",
      liveChildren: async () => {
        // A cancelled task's run ends just after tasks/cancel answered.
        for (let i = 0; i < 100 && remote.world.provider.live.size > 0; i++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        return remote.world.provider.live.size;
      },
      timeoutMs: 20_000,
    });
  } finally {
    await remote[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpProvider({url}) finds the Tasks line and asks input_required up the tree", async () => {
  const remote = await tasksWorld();
  try {
    const host = createHost({ logger: createMemoryLogger().logger });
    const subagents = createSubagentService(host.scope);
    subagents.registerProvider(
      // No protocol: this endpoint refuses 2025-era requests, so only detection reaches it.
      createMcpProvider({ url: remote.url, tool: "subagent_test" }),
    );
    const asked: string[] = [];
    handleSubagentInput(host.scope, (request) => {
      asked.push(request.message);
      return { outcome: "answered", text: "main" };
    });
    try {
      const run = subagents.start("mcp", {
        prompt: "nest question",
        parent: { id: "p", scope: host.scope },
      });
      const result = await run.result;
      await run.dispose();
      assert.deepEqual(result.output, [{ type: "text", text: "answered main" }]);
      assert.match(asked[0], /Which branch\?/);
    } finally {
      await host.scope.dispose();
    }
  } finally {
    await remote[Symbol.asyncDispose]();
  }
});

Deno.test("tasks/get shows the child's latest progress as the task's statusMessage", async () => {
  const t = await tasksWorld();
  try {
    const session = await t.session("alice");
    // 2,000 characters streamed, word by word, then the child runs on.
    const words = Array.from({ length: 400 }, (_, i) => `w${i % 10}xx`);
    const execution = await session.callTool("subagent_test", args(`say ${words.join(" ")} last`));
    assert.equal(execution.kind, "task");
    const seen: string[] = [];
    // Polled through the client's own update stream, for 10 s at most.
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), 10_000);
    try {
      for await (const event of execution.updates(stop.signal)) {
        if (event.type !== "task") break;
        if (event.task.statusMessage !== undefined) seen.push(event.task.statusMessage);
        if (event.task.statusMessage?.endsWith("last ")) break;
      }
    } catch (error) {
      if (!stop.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
    }
    const latest = seen.at(-1) ?? "";
    // The official client saw the text as it came: growing, the latest characters kept.
    assert.ok(seen.length >= 1, "the client saw a statusMessage while the task was working");
    assert.ok(latest.endsWith("w9xx last "), `the latest progress: ${latest.slice(-40)}`);
    assert.equal(latest.length, STATUS_MESSAGE_CHARS, "only the latest characters are kept");
    const got = await t.raw("alice", "tasks/get", { taskId: execution.handle!.taskId });
    assert.equal(got.result?.status, "working");
    assert.equal(got.result?.statusMessage, latest);
    await execution.cancel();
  } finally {
    await t[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpTasksHandler() writes no warning to the console", async () => {
  const warnings: unknown[][] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args);
  try {
    const t = await tasksWorld();
    await t[Symbol.asyncDispose]();
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(warnings, []);
});
