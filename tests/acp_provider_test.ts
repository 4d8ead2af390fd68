// The ACP provider's features over real processes: progress events,
// permission policies, reuseProcess, resume, environment, cwd, prompt
// conversion and provider disposal. Every test ends with no process left.
import assert from "node:assert/strict";
import process from "node:process";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import { createSubagentService, subagentProgress, type SubagentProgressInfo } from "@seam/subagent";
import {
  type AcpPermissionRequest,
  type AcpProviderConfig,
  acpUpdate,
  type AcpUpdateInfo,
  createAcpProvider,
} from "@seam/subagent-acp";
import { AgentWatch, testAgentConfig, until, withAcpAgent } from "./acp_support.ts";

Deno.test("createAcpProvider() describes itself: a budget only, no parent context", () => {
  const provider = createAcpProvider({ command: "agent" });
  assert.equal(provider.name, "acp");
  assert.deepEqual(provider.capabilities, {
    outputSchema: false,
    depthLimit: false,
    toolFilter: false,
    persona: false,
    budget: true,
  });
  assert.equal(provider.inheritsParentContext, false);
  assert.equal(createAcpProvider({ command: "agent", name: "codex" }).name, "codex");
});

Deno.test("createAcpProvider() emits acp/update on the parent's scope while the run is live", () =>
  withAcpAgent([], {}, async (h) => {
    const seen: AcpUpdateInfo[] = [];
    h.parent.scope.on(acpUpdate, (info) => void seen.push(info));
    const run = h.start("progress a b");
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "a b", "thoughts, plans and tool calls are not output");
    assert.deepEqual(seen.map((s) => s.update.kind), [
      "thought",
      "plan",
      "tool-call",
      "tool-call-update",
      "other",
      "message",
      "message",
    ]);
    const [thought, plan, call, callUpdate, usage] = seen.map((s) => s.update);
    assert.ok(Object.isFrozen(seen[0]) && Object.isFrozen(thought));
    assert.equal(seen[0].runId, run.id);
    assert.equal(seen[0].provider, "acp");
    assert.equal(seen[0].parentId, "parent");
    assert.equal(seen[0].sessionId, "sess-1");
    assert.deepEqual(thought.kind === "thought" && thought.content, [
      { type: "text", text: "thinking about it" },
    ]);
    assert.deepEqual(plan.kind === "plan" && plan.entries, [
      { content: "answer", priority: "high", status: "in_progress" },
    ]);
    assert.deepEqual(call.kind === "tool-call" && call.toolCall, {
      toolCallId: "call-1",
      title: "Look something up",
      toolKind: "search",
      status: "pending",
    });
    assert.deepEqual(
      callUpdate.kind === "tool-call-update" && callUpdate.toolCall,
      { toolCallId: "call-1", status: "completed" },
    );
    assert.equal(usage.type, "usage_update");
    assert.deepEqual(usage.raw, { sessionUpdate: "usage_update", used: 10, size: 1000 });
    // ACP says the context's size and the tool calls, no per-call tokens: a partial usage.
    assert.equal(result.usage!.self.inputTokens, 10);
    assert.equal(result.usage!.self.toolCalls, 1);
    assert.equal(result.usage!.self.modelCalls, 0);
    assert.equal(result.usage!.partial, true);
  }));

Deno.test("createAcpProvider() emits subagent/progress for the updates that show progress", () =>
  withAcpAgent([], {}, async (h) => {
    const seen: SubagentProgressInfo[] = [];
    h.parent.scope.on(subagentProgress, (info) => void seen.push(info));
    const run = h.start("progress a b");
    assert.equal((await run.result).stopReason, "completed");
    assert.ok(seen.every((info) => info.runId === run.id && Object.isFrozen(info)));
    assert.ok(seen.every((info) => info.provider === "acp" && info.depth === 1), "its place");
    assert.deepEqual(seen.map(({ runId: _, provider: _p, depth: _d, ...rest }) => rest), [
      { kind: "thought", text: "thinking about it" },
      { kind: "plan", text: "[in_progress] answer" },
      { kind: "tool-call", callId: "call-1", name: "Look something up" },
      { kind: "tool-result", callId: "call-1", text: "found" },
      { kind: "text", text: "a " },
      { kind: "text", text: "b" },
    ]);
  }));

Deno.test("createAcpProvider() routes updates sent before the session/new answer", () =>
  withAcpAgent(["--updates-before-session"], {}, async (h) => {
    const seen: string[] = [];
    h.parent.scope.on(acpUpdate, ({ update }) => void seen.push(update.type));
    const run = h.start("complete hello");
    const result = await run.result;
    assert.equal(textOf(result.output), "hello", "a chunk before the prompt is not output");
    assert.deepEqual(seen.slice(0, 2), ["available_commands_update", "agent_message_chunk"]);
  }));

Deno.test("createAcpProvider() answers permission requests by policy", async (t) => {
  const cases: [string, AcpProviderConfig["permission"], string][] = [
    ["rejects by default", undefined, "permission: selected no"],
    ['allows with "allow"', "allow", "permission: selected yes"],
    ["picks the option a function returns", () => ({ optionId: "always" }), "selected always"],
    ["rejects when a function throws", () => {
      throw new Error("policy bug");
    }, "permission: selected no"],
    ['answers cancelled for "cancel"', () => "cancel", "permission: cancelled"],
    ["answers cancelled for an unknown option", () => ({ optionId: "nope" }), "cancelled"],
  ];
  for (const [name, permission, expected] of cases) {
    await t.step(
      name,
      () =>
        withAcpAgent([], permission === undefined ? {} : { permission }, async (h) => {
          const result = await h.start("permission").result;
          assert.equal(result.stopReason, "completed");
          assert.equal(
            textOf(result.output),
            expected.startsWith("permission") ? expected : `permission: ${expected}`,
          );
        }),
    );
  }
});

Deno.test("createAcpProvider() gives a permission function the request", () => {
  const requests: AcpPermissionRequest[] = [];
  return withAcpAgent([], {
    permission: (request) => {
      requests.push(request);
      return "allow";
    },
  }, async (h) => {
    const run = h.start("permission");
    await run.result;
    const [request] = requests;
    assert.equal(request.runId, run.id);
    assert.equal(request.parentId, "parent");
    assert.equal(request.sessionId, "sess-1");
    assert.deepEqual(request.toolCall, {
      toolCallId: "call-p",
      title: "Delete everything",
      toolKind: "delete",
    });
    assert.deepEqual(request.options.map((o) => o.kind), [
      "allow_once",
      "allow_always",
      "reject_once",
    ]);
    assert.equal(request.signal.aborted, true, "the signal aborts once the run ended");
  });
});

Deno.test("createAcpProvider() answers a pending permission request cancelled at cancel", () => {
  let signal: AbortSignal | undefined;
  return withAcpAgent([], {
    permission: (request) => {
      signal = request.signal;
      return new Promise(() => {}); // never decides
    },
  }, async (h) => {
    const run = h.start("permission");
    await until(() => signal !== undefined, "the permission request");
    run.cancel();
    assert.equal((await run.result).stopReason, "aborted");
    assert.equal(signal!.aborted, true);
    await until(
      () => h.watch.agentLines().includes("permission outcome: cancelled"),
      "the agent to see the cancelled outcome",
    );
  });
});

Deno.test("createAcpProvider() runs sequential sessions on one process with reuseProcess", () =>
  withAcpAgent([], { reuseProcess: true }, async (h) => {
    const replies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const run = h.start("pid");
      replies.push(textOf((await run.result).output));
      await run.dispose();
    }
    const pids = replies.map((r) => r.split(" ")[1]);
    assert.equal(new Set(pids).size, 1, replies.join("; "));
    assert.deepEqual(replies.map((r) => r.split(" ")[3]), ["1", "2", "3"]);
    assert.equal(h.watch.pids.size, 1);
    assert.equal((await h.watch.live()).length, 1, "the warm process stays");
  }));

Deno.test("createAcpProvider() runs concurrent sessions on one process with reuseProcess", () =>
  withAcpAgent([], { reuseProcess: true }, async (h) => {
    const runs = [h.start("complete one"), h.start("complete two"), h.start("hang")];
    assert.equal(textOf((await runs[0].result).output), "one");
    assert.equal(textOf((await runs[1].result).output), "two");
    await runs[2].started;
    runs[2].cancel();
    assert.equal((await runs[2].result).stopReason, "aborted");
    assert.equal(h.watch.pids.size, 1);
  }));

Deno.test("createAcpProvider() stops a shared process whose session ignores cancel", () =>
  withAcpAgent(["--ignore-cancel"], {
    reuseProcess: true,
    disposeEofGraceMs: 300,
    disposeGraceMs: 300,
    cancelGraceMs: 300,
  }, async (h) => {
    const stuck = h.start("hang");
    const bystander = h.start("hang");
    await Promise.all([stuck.started, bystander.started]);
    stuck.cancel();
    assert.equal((await stuck.result).stopReason, "aborted");
    await stuck.dispose();
    const result = await bystander.result;
    assert.equal(result.stopReason, "error");
    assert.match(result.error?.message ?? "", /session sess-1 ignored session\/cancel/);
    assert.equal(result.error?.code, "CONNECTION_LOST");
    assert.deepEqual(await h.watch.live(), [], "the shared process was stopped");
    const next = h.start("complete again");
    assert.equal(textOf((await next.result).output), "again");
    assert.equal(h.watch.pids.size, 2, "a fresh process serves the next run");
  }));

Deno.test("createAcpProvider() ends error when a shared process answers session/new with an open session's id", () =>
  withAcpAgent(["--same-session-id"], { reuseProcess: true }, async (h) => {
    const seen: string[] = [];
    h.parent.scope.on(acpUpdate, (info) => void seen.push(info.runId));
    const first = h.start("hang");
    await first.started;
    const second = await h.start("complete mine").result;
    assert.equal(second.stopReason, "error");
    assert.equal(second.error?.code, "PROTOCOL_ERROR");
    assert.match(
      second.error?.message ?? "",
      /answered session\/new with session id "sess-1", which is already open on this process/,
    );
    // The first run keeps its session: its traffic is still its own.
    first.cancel();
    assert.equal((await first.result).stopReason, "aborted");
    assert.deepEqual([...new Set(seen)], [first.id]);
  }));

Deno.test("createAcpProvider() replaces a shared process that died", () =>
  withAcpAgent([], { reuseProcess: true }, async (h) => {
    const crash = h.start("crash");
    assert.equal((await crash.result).stopReason, "error");
    await crash.dispose();
    const next = h.start("complete alive");
    assert.equal(textOf((await next.result).output), "alive");
    assert.equal(h.watch.pids.size, 2);
  }));

Deno.test("createAcpProvider() resumes a finished run on the same session", () =>
  withAcpAgent([], {}, async (h) => {
    const first = h.start("count");
    assert.throws(() => first.resume!("count"), /has not finished/);
    assert.equal(textOf((await first.result).output), "prompts: 1");
    const second = first.resume!("count");
    assert.notEqual(second.id, first.id);
    await second.started;
    assert.equal(textOf((await second.result).output), "prompts: 2");
    await first.dispose();
    assert.throws(() => first.resume!("count"), /disposed/);
    assert.equal((await h.watch.live()).length, 1, "the resumed run still holds the process");
    const third = second.resume!("count");
    assert.equal(textOf((await third.result).output), "prompts: 3");
    await second.dispose();
    await third.dispose();
    assert.deepEqual(await h.watch.live(), []);
  }));

Deno.test("createAcpProvider() resumes after a cancel once the agent ended the turn", () =>
  withAcpAgent([], {}, async (h) => {
    const first = h.start("hang");
    await first.started;
    first.cancel();
    assert.equal((await first.result).stopReason, "aborted");
    const second = first.resume!("complete resumed");
    assert.equal(textOf((await second.result).output), "resumed");
    await second.dispose();
  }));

Deno.test("createAcpProvider() withholds secret-looking variables from the agent", async () => {
  process.env["SEAM_ACP_TEST_TOKEN"] = "secret";
  process.env["SEAM_ACP_TEST_CLIENT_SECRET"] = "secret";
  process.env["seam_acp_test_key"] = "secret";
  process.env["SEAM_ACP_TEST_API_KEY"] = "secret";
  process.env["SEAM_ACP_TEST_PLAIN"] = "plain";
  try {
    await withAcpAgent([], { env: { SEAM_ACP_TEST_API_KEY: "given" } }, async (h) => {
      const reply = async (name: string) => textOf((await h.start(`env ${name}`).result).output);
      assert.equal(await reply("SEAM_ACP_TEST_TOKEN"), "(unset)");
      assert.equal(await reply("SEAM_ACP_TEST_CLIENT_SECRET"), "(unset)");
      assert.equal(await reply("seam_acp_test_key"), "(unset)", "any case");
      assert.equal(await reply("SEAM_ACP_TEST_API_KEY"), "given");
      assert.equal(await reply("SEAM_ACP_TEST_PLAIN"), "plain");
    });
  } finally {
    delete process.env["SEAM_ACP_TEST_TOKEN"];
    delete process.env["SEAM_ACP_TEST_CLIENT_SECRET"];
    delete process.env["seam_acp_test_key"];
    delete process.env["SEAM_ACP_TEST_API_KEY"];
    delete process.env["SEAM_ACP_TEST_PLAIN"];
  }
});

Deno.test("createAcpProvider() opens sessions in the configured cwd", () =>
  withAcpAgent([], { cwd: "/tmp/../tmp" }, async (h) => {
    assert.equal(textOf((await h.start("cwd").result).output), "/tmp");
  }));

Deno.test("createAcpProvider() converts prompt blocks to ACP content", () =>
  withAcpAgent([], {}, async (h) => {
    const result = await h.start([
      { type: "text", text: "blocks" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      { type: "resource", uri: "file:///a.txt", mediaType: "text/plain", text: "A" },
      { type: "resource", uri: "https://example.com/b" },
    ]).result;
    assert.deepEqual(JSON.parse(textOf(result.output)), [
      { type: "text", text: "blocks" },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      { type: "resource", resource: { uri: "file:///a.txt", text: "A", mimeType: "text/plain" } },
      { type: "resource_link", uri: "https://example.com/b", name: "https://example.com/b" },
    ]);
  }));

Deno.test("createAcpProvider() ends error for content the agent does not accept", () =>
  withAcpAgent(["--no-images"], {}, async (h) => {
    const run = h.start([
      { type: "text", text: "blocks" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
    ]);
    await run.started;
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.match(result.error?.message ?? "", /promptCapabilities\.image is false/);
    assert.equal(result.error?.code, "UNSUPPORTED_CONTENT");
  }));

Deno.test("createAcpProvider() dispose() aborts live runs and stops every process", async () => {
  const watch = new AgentWatch();
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const service = createSubagentService(root);
  const provider = createAcpProvider(testAgentConfig([], { logger: watch.logger }));
  service.registerProvider(provider);
  const parent = { id: "parent", scope: root };
  const runs = [
    service.start("acp", { prompt: "hang", parent }),
    service.start("acp", {
      prompt: "hang",
      parent,
    }),
  ];
  try {
    await Promise.all(runs.map((run) => run.started));
    const first = provider.dispose();
    assert.equal(provider.dispose(), first);
    await first;
    for (const run of runs) assert.equal((await run.result).stopReason, "aborted");
    assert.deepEqual(await watch.live(), []);
    assert.throws(
      () => service.start("acp", { prompt: "hang", parent }),
      /provider "acp" was disposed/,
    );
  } finally {
    for (const run of runs) await run.dispose();
    await root.dispose();
  }
});
