// No `await using` here: Node 20 (`deno task test:node`) cannot parse it.
import assert from "node:assert/strict";
import { createHost, createMemoryLogger } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentAnswerData,
  type SubagentInputRequest,
  subagentProgress,
} from "@seam/subagent";
import { testSubagentProvider } from "@seam/subagent/testing";
import { createMcpProvider } from "./provider.ts";
import { PidDir } from "./_test_pids.ts";
import { testServer } from "./_test_servers.ts";

const SEAM_SERVER = "stdio_server";
const PLAIN_SERVER = "plain_server";

function serverCommand(name: "stdio_server" | "plain_server", pids: PidDir) {
  return {
    ...testServer(name),
    env: { MCP_PID_DIR: pids.path },
    teardownGraceMs: 500,
  };
}

Deno.test("createMcpProvider() passes the conformance suite against a seam MCP server process", async (t) => {
  const pids = new PidDir();
  try {
    await testSubagentProvider(t, {
      createProvider: () =>
        createMcpProvider({ ...serverCommand(SEAM_SERVER, pids), tool: "subagent_test" }),
      prompts: {
        complete: "complete hello from the child",
        hang: "hang",
        fail: "fail",
        maxTokens: "max-tokens",
      },
      expectedOutput: "hello from the child",
      liveChildren: () => pids.live().length,
      timeoutMs: 20_000,
    });
    assert.ok(pids.pids().length > 3, "server processes were started");
    assert.deepEqual(pids.live(), []);
  } finally {
    await pids[Symbol.asyncDispose]();
  }
});

/** A host with the provider for the plain server registered. */
function plainWorld(pids: PidDir, tool: string) {
  const host = createHost({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(
    createMcpProvider({ ...serverCommand(PLAIN_SERVER, pids), name: "plain", tool }),
  );
  const parent = { id: "parent", scope: host.scope };
  return { host, subagents, parent };
}

Deno.test("createMcpProvider() turns a plain SDK server's progress into subagent/progress", async () => {
  const pids = new PidDir();
  try {
    const { host, subagents, parent } = plainWorld(pids, "slow");
    const progress: string[] = [];
    host.scope.on(subagentProgress, (info) => void progress.push(info.text ?? ""));
    const run = subagents.start("plain", { prompt: "the task", parent });
    const result = await run.result;
    await run.dispose();
    assert.equal(result.stopReason, "completed");
    assert.deepEqual(result.output, [{ type: "text", text: "done: the task" }]);
    assert.deepEqual(progress, ["step 1", "step 2", "step 3"]);
    assert.equal(result.usage?.partial, true);
    await host.scope.dispose();
    assert.deepEqual(pids.live(), []);
  } finally {
    await pids[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpProvider() asks the server's elicitations up the tree", async (t) => {
  const pids = new PidDir();
  try {
    await t.step("a confirmation is a permission request", async () => {
      const { host, subagents, parent } = plainWorld(pids, "confirm");
      const asked: SubagentInputRequest[] = [];
      handleSubagentInput(host.scope, (request) => {
        asked.push(request);
        return { outcome: "selected", optionId: "accept" };
      });
      const run = subagents.start("plain", { prompt: "rm -rf build", parent });
      const result = await run.result;
      await run.dispose();
      assert.deepEqual(result.output, [{ type: "text", text: "confirm: accept" }]);
      assert.equal(asked[0].kind, "permission");
      assert.equal(asked[0].message, "Run rm -rf build?");
      assert.deepEqual(asked[0].options?.map((o) => o.id), ["accept", "decline"]);
      await host.scope.dispose();
    });
    await t.step("no handler anywhere: refused, and the server hears a decline", async () => {
      const { host, subagents, parent } = plainWorld(pids, "confirm");
      const run = subagents.start("plain", { prompt: "x", parent });
      const result = await run.result;
      await run.dispose();
      assert.deepEqual(result.output, [{ type: "text", text: "confirm: decline" }]);
      await host.scope.dispose();
    });
    await t.step("a one-field form is a question its text answers", async () => {
      const { host, subagents, parent } = plainWorld(pids, "ask_name");
      handleSubagentInput(host.scope, () => ({ outcome: "answered", text: "Ada" }));
      const run = subagents.start("plain", { prompt: "x", parent });
      const result = await run.result;
      await run.dispose();
      assert.deepEqual(result.output, [{ type: "text", text: "hello Ada" }]);
      await host.scope.dispose();
    });
    await t.step("an answer with data fills the form: one field, or all of them", async () => {
      for (
        const [prompt, data, said] of [
          ["x", { name: "Ada" }, "hello Ada"],
          ["and age", { name: "Ada", age: 36 }, 'hello {"name":"Ada","age":36}'],
        ] as [string, SubagentAnswerData, string][]
      ) {
        const { host, subagents, parent } = plainWorld(pids, "ask_name");
        handleSubagentInput(host.scope, () => ({ outcome: "answered", data }));
        const run = subagents.start("plain", { prompt, parent });
        const result = await run.result;
        await run.dispose();
        assert.deepEqual(result.output, [{ type: "text", text: said }]);
        await host.scope.dispose();
      }
    });
    assert.deepEqual(pids.live(), []);
  } finally {
    await pids[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpProvider() cancels with notifications/cancelled and tears the process down", async () => {
  const pids = new PidDir();
  try {
    const { host, subagents, parent } = plainWorld(pids, "wait");
    const run = subagents.start("plain", { prompt: "x", parent });
    await run.started;
    while (!pids.has("waiting")) await new Promise((r) => setTimeout(r, 10));
    run.cancel();
    const result = await run.result;
    assert.equal(result.stopReason, "aborted");
    // The server heard the cancel (it notes it) before its process was torn down.
    for (let i = 0; i < 200 && !pids.has("cancelled"); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(pids.has("cancelled"), "the server's handler saw notifications/cancelled");
    await run.dispose();
    assert.deepEqual(pids.live(), []);
    await host.scope.dispose();
  } finally {
    await pids[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpProvider() returns errors as data", async (t) => {
  const pids = new PidDir();
  try {
    await t.step("a tool error is stopReason error, CHILD_FAILED", async () => {
      const { host, subagents, parent } = plainWorld(pids, "boom");
      const run = subagents.start("plain", { prompt: "x", parent });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "error");
      assert.equal(result.error?.code, "CHILD_FAILED");
      assert.match(result.error!.message, /the tool blew up/);
      await host.scope.dispose();
    });
    await t.step("a tool the server lacks fails the start, naming the tools it has", async () => {
      const { host, subagents, parent } = plainWorld(pids, "nope");
      const run = subagents.start("plain", { prompt: "x", parent });
      await assert.rejects(run.started);
      const result = await run.result;
      await run.dispose();
      assert.equal(result.error?.code, "START_FAILED");
      assert.match(
        result.error!.message,
        /no tool "nope" \(it has: slow, confirm, ask_name, wait, boom\)/,
      );
      await host.scope.dispose();
    });
    await t.step("a program that is no MCP server fails the start", async () => {
      const host = createHost({ logger: createMemoryLogger().logger });
      const subagents = createSubagentService(host.scope);
      subagents.registerProvider(
        createMcpProvider({ command: "true", tool: "x", startTimeoutMs: 5_000 }),
      );
      const run = subagents.start("mcp", { prompt: "x", parent: { id: "p", scope: host.scope } });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "error");
      assert.equal(result.error?.code, "START_FAILED");
      await host.scope.dispose();
    });
    assert.deepEqual(pids.live(), []);
  } finally {
    await pids[Symbol.asyncDispose]();
  }
});

Deno.test("createMcpProvider() refuses bad options by name", () => {
  assert.throws(() => createMcpProvider({ tool: "x" }), /exactly one of command .* and url/);
  assert.throws(
    () => createMcpProvider({ tool: "x", command: "a", url: "http://b" }),
    /exactly one of command/,
  );
  assert.throws(() => createMcpProvider({ command: "a" } as never), /tool must name/);
  assert.throws(
    () => createMcpProvider({ tool: "x", command: "a", bogus: 1 } as never),
    /unknown option bogus \(known: name, tool/,
  );
  assert.throws(() => createMcpProvider({ tool: "x", url: "ftp://x" }), /url must be http/);
});
