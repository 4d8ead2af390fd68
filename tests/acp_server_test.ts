// Our ACP server as a real process (`providers/acp/serve.ts` on the scripted
// model): driven by the SDK's client over its stdio (the protocol alone on
// stdout, logs on stderr, exit on stdin EOF), and driven by our ACP provider
// (stop reasons, errors, resume, progress). Every test ends with no process
// left.
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import { createSubagentService, type SubagentRun } from "@seam/subagent";
import { acpUpdate, type AcpUpdateInfo, createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, bundledServerConfig, bundleServer, serverConfig } from "./acp_support.ts";
import { within } from "./within.ts";

/** Spawn the server with `args` (after the script), stdio piped; `clean`: no API keys. */
function spawnServer(args: readonly string[], clean = false): Deno.ChildProcess {
  const config = serverConfig();
  const base = config.args!.slice(0, config.args!.indexOf("--model"));
  return new Deno.Command(config.command, {
    args: [...base, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    ...(clean ? { clearEnv: true, env: keep("HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME") } : {}),
  }).spawn();
}

function keep(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => {
    const value = Deno.env.get(name);
    return value === undefined ? [] : [[name, value]];
  }));
}

Deno.test("serve.ts speaks ACP on stdout only, logs on stderr, and exits on stdin EOF", async () => {
  const child = spawnServer(["--model", "scripted", "--log-level", "debug"]);
  const stderr = new Response(child.stderr).text();
  const lines: string[] = [];
  const decoder = new TextDecoder();
  let pending = "";
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      const parts = pending.split("\n");
      pending = parts.pop()!;
      lines.push(...parts);
      controller.enqueue(chunk);
    },
  });
  const updates: acp.SessionNotification[] = [];
  const client = acp.client({ name: "test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params))
    .connect(acp.ndJsonStream(child.stdin, child.stdout.pipeThrough(tap)));
  try {
    const init = await within(
      client.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 }),
      "initialize",
    );
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentInfo?.name, "seam");
    assert.deepEqual(init.agentCapabilities?.sessionCapabilities, { close: {} });

    const open = () =>
      client.agent.request(acp.methods.agent.session.new, { cwd: "/tmp", mcpServers: [] });
    const [a, b] = await Promise.all([open(), open()]);
    const entries = [{ content: "Say hello", priority: "high", status: "in_progress" }];
    const [answerA, answerB] = await Promise.all([
      client.agent.request(acp.methods.agent.session.prompt, {
        sessionId: a.sessionId,
        prompt: [{ type: "text", text: `@call update_plan ${JSON.stringify({ entries })}` }],
      }),
      client.agent.request(acp.methods.agent.session.prompt, {
        sessionId: b.sessionId,
        prompt: [{ type: "text", text: "@reply hello from b" }],
      }),
    ]);
    assert.equal(answerA.stopReason, "end_turn");
    assert.equal(answerB.stopReason, "end_turn");
    const kinds = (id: string) =>
      updates.filter((u) => u.sessionId === id).map((u) => u.update.sessionUpdate);
    assert.deepEqual(kinds(a.sessionId).slice(0, 3), ["tool_call", "plan", "tool_call_update"]);
    assert.ok(kinds(b.sessionId).every((kind) => kind === "agent_message_chunk"));

    // EOF: the server disposes its agents and the process exits by itself.
    const t0 = performance.now();
    await child.stdin.close();
    const status = await within(child.status, "exit after stdin EOF", 5_000);
    assert.equal(status.code, 0);
    assert.ok(performance.now() - t0 < 5_000);
    await within(client.closed, "the client seeing EOF");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await child.status;
  }
  const log = await stderr;
  assert.match(log, /^seam-acp\[\d+\] info: serving the scripted model over stdio/m);
  assert.match(log, /debug: Opened ACP session/);
  assert.match(log, /info: stdin closed: exiting/);
  assert.ok(lines.length > 0);
  for (const line of lines) {
    assert.doesNotThrow(() => JSON.parse(line), `a non-JSON line on stdout: ${line}`);
  }
});

Deno.test("serve.ts exits 2 with the usage for bad arguments", async (t) => {
  const cases: [string, string[], RegExp][] = [
    ["an unknown option", ["--verbose"], /unknown argument "--verbose"/],
    ["a real model without an API key", ["--model", "gpt-4o"], /needs DEEPSEEK_API_KEY/],
  ];
  for (const [name, args, message] of cases) {
    await t.step(name, async () => {
      const child = spawnServer(args, true);
      await child.stdin.close();
      const [status, stdout, stderr] = await Promise.all([
        child.status,
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
      ]);
      assert.equal(status.code, 2);
      assert.equal(stdout, "");
      assert.match(stderr, message);
      assert.match(stderr, /Usage: deno run/);
    });
  }
});

Deno.test("createAcpProvider() against our server maps every turn end", async (t) => {
  const watch = new AgentWatch();
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const service = createSubagentService(root);
  const provider = createAcpProvider(serverConfig({ logger: watch.logger }));
  service.registerProvider(provider);
  const parent = { id: "parent", scope: root.child("parent") };
  const runs: SubagentRun[] = [];
  const start = (prompt: string) => {
    const run = service.start(provider.name, { prompt, parent });
    runs.push(run);
    return run;
  };
  try {
    await t.step("a failed turn ends error with the agent's message", async () => {
      const result = await within(start("@fail boom").result, "@fail");
      assert.equal(result.stopReason, "error");
      assert.match(
        result.error?.message ?? "",
        /session\/prompt with error -32603: The agent's turn failed: .*boom/,
      );
      assert.equal(result.error?.code, "CHILD_FAILED");
    });

    await t.step("max-tokens keeps the partial output; refusal maps", async () => {
      const max = await within(start("@max-tokens partial words").result, "@max-tokens");
      assert.equal(max.stopReason, "max-tokens");
      assert.equal(textOf(max.output), "partial words");
      const refused = await within(start("@refuse no thanks").result, "@refuse");
      assert.equal(refused.stopReason, "refusal");
      assert.equal(textOf(refused.output), "no thanks");
    });

    await t.step("tool calls and plans arrive as progress, not output", async () => {
      const seen: AcpUpdateInfo[] = [];
      const off = parent.scope.on(acpUpdate, (info) => void seen.push(info));
      const entries = [{ content: "Plan it", priority: "low", status: "pending" }];
      const run = start(`@call update_plan ${JSON.stringify({ entries })}\n@reply done`);
      const result = await within(run.result, "plan run");
      await off();
      assert.equal(result.stopReason, "completed");
      assert.equal(textOf(result.output), "done");
      const mine = seen.filter((s) => s.runId === run.id).map((s) => s.update);
      assert.deepEqual(mine.map((u) => u.kind).slice(0, 3), [
        "tool-call",
        "plan",
        "tool-call-update",
      ]);
      const [call, plan, done] = mine;
      assert.deepEqual(call.kind === "tool-call" && call.toolCall, {
        toolCallId: (call as { toolCall: { toolCallId: string } }).toolCall.toolCallId,
        title: "update_plan",
        status: "in_progress",
      });
      assert.deepEqual(plan.kind === "plan" && plan.entries, entries);
      assert.equal(done.kind === "tool-call-update" && done.toolCall.status, "completed");
    });

    await t.step("resume continues the same session after a cancel", async () => {
      const run = start("@hang");
      await within(run.started, "started");
      run.cancel("enough");
      assert.equal((await within(run.result, "cancelled run")).stopReason, "aborted");
      const next = run.resume!("@reply resumed");
      runs.push(next);
      const result = await within(next.result, "resumed run");
      assert.equal(result.stopReason, "completed");
      assert.equal(textOf(result.output), "resumed");
    });
  } finally {
    for (const run of runs) await run.dispose();
    await provider.dispose();
    await root.dispose();
  }
  assert.ok(watch.pids.size > 0, "no server process was seen");
  assert.deepEqual(await watch.live(), [], "processes were left behind");
  // Every process left on stdin EOF, without a signal.
  assert.deepEqual(watch.messages("info").filter((m) => /SIGTERM/.test(m)), []);
});

Deno.test("serve.ts bundled into one module (deno bundle) serves runs, one process each", async () => {
  const bundle = await bundleServer();
  const watch = new AgentWatch();
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const service = createSubagentService(root);
  const provider = createAcpProvider(bundledServerConfig(bundle.path, { logger: watch.logger }));
  service.registerProvider(provider);
  const parent = { id: "parent", scope: root.child("parent") };
  try {
    for (const text of ["first", "second"]) {
      const run = service.start(provider.name, { prompt: `@reply ${text}`, parent });
      try {
        const result = await within(run.result, `the ${text} run`);
        assert.equal(result.stopReason, "completed");
        assert.equal(textOf(result.output), text);
      } finally {
        await run.dispose();
      }
    }
  } finally {
    await provider.dispose();
    await root.dispose();
    await bundle.remove();
  }
  assert.equal(watch.pids.size, 2, "each cold run starts its own server process");
  assert.deepEqual(await watch.live(), [], "processes were left behind");
});

Deno.test("serve.ts serves an OpenAI-compatible model when OPENAI_API_KEY is set", async () => {
  const requests: { auth: string | null; body: { model: string; messages: unknown[] } }[] = [];
  const api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    requests.push({ auth: req.headers.get("authorization"), body: await req.json() });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    return new Response(
      chunk({ content: "Hello " }, null) + chunk({ content: "from the API" }, null) +
        chunk({}, "stop") + "data: [DONE]\n\n",
      { headers: { "content-type": "text/event-stream" } },
    );
  });
  const watch = new AgentWatch();
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const service = createSubagentService(root);
  const base = serverConfig({ logger: watch.logger });
  const args = base.args!.slice(0, base.args!.indexOf("--model"));
  const provider = createAcpProvider({
    ...base,
    args: [...args.slice(0, 1), "--allow-net=127.0.0.1", ...args.slice(1), "--log-level", "info"],
    env: {
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: `http://127.0.0.1:${api.addr.port}/v1`,
      SEAM_MODEL: "test-model",
    },
  });
  service.registerProvider(provider);
  const run = service.start(provider.name, {
    prompt: "Say hello",
    parent: { id: "parent", scope: root.child("parent") },
  });
  try {
    const result = await within(run.result, "the API run");
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "Hello from the API");
    assert.equal(requests.length, 1);
    assert.equal(requests[0].auth, "Bearer sk-test");
    assert.equal(requests[0].body.model, "test-model");
    assert.ok(
      watch.agentLines().some((line) => line.includes("serving test-model at http://127.0.0.1")),
    );
  } finally {
    await run.dispose();
    await provider.dispose();
    await root.dispose();
    await api.shutdown();
  }
  assert.deepEqual(await watch.live(), [], "processes were left behind");
});
