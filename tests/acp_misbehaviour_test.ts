// The misbehaviour matrix over real processes: for each way an ACP agent
// misbehaves, the contracted stop reason, a bounded time, and no process
// left in the agent's process group (grandchildren included).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import process from "node:process";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import { createSubagentService, subagentProgress, type SubagentResult } from "@seam/subagent";
import { type AcpProviderConfig, acpUpdate, createAcpProvider } from "@seam/subagent-acp";
import {
  type AcpHarness,
  AgentWatch,
  processTable,
  TEST_AGENT,
  testAgentConfig,
  timed,
  until,
  withAcpAgent,
} from "./acp_support.ts";

const GRACE = 400;
/** Slack for a loaded 2-core machine on top of any contracted wait. */
const SLACK = 4_000;
/** The test agent with `flags`, short teardown graces (see {@linkcode withAcpAgent}). */
const withAgent = (
  flags: readonly string[],
  extra: Partial<AcpProviderConfig>,
  body: (h: AcpHarness) => Promise<void>,
): Promise<void> =>
  withAcpAgent(flags, { disposeEofGraceMs: GRACE, disposeGraceMs: GRACE, ...extra }, body);

/** What went wrong, as the result's error says it. */
const told = (result: SubagentResult): string => result.error?.message ?? "(no error)";

Deno.test("createAcpProvider() SIGTERMs the group of an agent that ignores stdin EOF", () =>
  withAgent(["--ignore-eof"], {}, async (h) => {
    const run = h.start("complete fine");
    assert.equal((await run.result).stopReason, "completed");
    const ms = await timed(() => run.dispose());
    assert.ok(ms >= GRACE - 50 && ms < GRACE + GRACE + SLACK, `dispose took ${ms} ms`);
    assert.deepEqual(await h.watch.live(), []);
    assert.ok(h.watch.messages("info").some((m) => m.includes("sending SIGTERM")));
    assert.ok(!h.watch.messages("warn").some((m) => m.includes("SIGKILL")));
  }));

Deno.test("createAcpProvider() SIGKILLs the group of an agent that traps SIGTERM", () =>
  withAgent(["--ignore-eof", "--trap-sigterm"], {}, async (h) => {
    const run = h.start("complete fine");
    assert.equal((await run.result).stopReason, "completed");
    const ms = await timed(() => run.dispose());
    assert.ok(ms >= 2 * GRACE - 50 && ms < 2 * GRACE + SLACK, `dispose took ${ms} ms`);
    assert.deepEqual(await h.watch.live(), []);
    assert.ok(h.watch.agentLines().includes("ignoring SIGTERM"));
    assert.ok(h.watch.messages("warn").some((m) => m.includes("sending SIGKILL")));
  }));

Deno.test("createAcpProvider() kills a grandchild that would outlive the agent", () =>
  withAgent(["--grandchild"], {}, async (h) => {
    const run = h.start("complete fine");
    assert.equal((await run.result).stopReason, "completed");
    await until(() => h.watch.grandchildren.size === 1, "the grandchild's pid");
    assert.equal((await h.watch.live()).length, 2, "the agent and its grandchild run");
    // The agent exits on EOF; its grandchild (trapping SIGTERM) needs SIGKILL.
    const ms = await timed(() => run.dispose());
    assert.ok(ms < 2 * GRACE + SLACK, `dispose took ${ms} ms`);
    assert.deepEqual(await h.watch.live(), []);
  }));

function canRun(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const LAUNCHERS = { perl: canRun("perl", ["-e", "1"]), direct: true };

for (const launcher of ["perl", "direct"] as const) {
  Deno.test({
    name: `createAcpProvider() kills a grandchild with launcher "${launcher}"`,
    ignore: !LAUNCHERS[launcher],
  }, () =>
    withAgent(["--grandchild", "--ignore-eof"], { launcher }, async (h) => {
      const run = h.start("complete fine");
      assert.equal((await run.result).stopReason, "completed");
      await until(() => h.watch.grandchildren.size === 1, "the grandchild's pid");
      await run.dispose();
      assert.deepEqual(await h.watch.live(), []);
    }));
}

Deno.test("createAcpProvider() stops an agent that ignores cancel, EOF and SIGTERM, grandchild included", () =>
  withAgent(
    ["--ignore-cancel", "--ignore-eof", "--trap-sigterm", "--grandchild"],
    {},
    async (h) => {
      const run = h.start("hang");
      await run.started;
      await until(() => h.watch.grandchildren.size === 1, "the grandchild's pid");
      run.cancel();
      assert.equal((await run.result).stopReason, "aborted");
      const ms = await timed(() => run.dispose());
      assert.ok(ms >= 2 * GRACE - 50 && ms < 2 * GRACE + SLACK, `dispose took ${ms} ms`);
      assert.deepEqual(await h.watch.live(), []);
    },
  ));

Deno.test("createAcpProvider() ends aborted at once when the agent ignores cancel", () =>
  withAgent(["--ignore-cancel"], {}, async (h) => {
    const run = h.start("hang");
    await run.started;
    const ms = await timed(async () => {
      run.cancel("test");
      assert.equal((await run.result).stopReason, "aborted");
    });
    assert.ok(ms < 100, `the run took ${ms} ms to end after cancel`);
    await until(() => h.watch.agentLines().some((l) => l.startsWith("session/cancel")), "cancel");
  }));

Deno.test("createAcpProvider() sends a cancel right after started behind the prompt", () =>
  withAgent([], { reuseProcess: true }, async (h) => {
    // Five at once on the shared process, so writes queue behind each other.
    await Promise.all([0, 1, 2, 3, 4].map(async () => {
      const run = h.start("hang");
      await run.started;
      run.cancel();
      assert.equal((await run.result).stopReason, "aborted");
    }));
    // Each prompt reached the agent before its cancel, so every turn ended:
    // the shared process is free for the next run at once.
    await until(
      () => h.watch.agentLines().filter((l) => l.startsWith("session/cancel")).length === 5,
      "five cancels",
    );
    const order = h.watch.agentLines().filter((l) => /^session\/(prompt|cancel) /.test(l));
    for (const line of order.filter((l) => l.startsWith("session/cancel"))) {
      const session = line.split(" ")[1];
      assert.ok(
        order.indexOf(`session/prompt ${session}`) < order.indexOf(line),
        `the cancel of ${session} came before its prompt:\n${order.join("\n")}`,
      );
    }
    const next = await h.start("complete still free").result;
    assert.equal(next.stopReason, "completed");
  }));

Deno.test("createAcpProvider() ends aborted when the agent answers end_turn after a cancel", () =>
  withAgent(["--end-turn-after-cancel"], {}, async (h) => {
    const run = h.start("hang");
    await run.started;
    run.cancel();
    const result = await run.result;
    assert.equal(result.stopReason, "aborted");
    assert.ok(!textOf(result.output).includes("done anyway"));
  }));

Deno.test("createAcpProvider() tolerates non-JSON lines on the agent's stdout", () =>
  withAgent(["--garbage"], {}, async (h) => {
    const run = h.start("garbage hello there");
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "hello there");
    const ignored = h.watch.messages("warn").filter((m) => m.includes("not a JSON-RPC message"));
    assert.ok(ignored.some((m) => m.includes("garbage line one")), ignored.join("\n"));
    assert.ok(ignored.some((m) => m.endsWith("[1,2,3]")), "a JSON array is not a message");
  }));

Deno.test("createAcpProvider() ends error with the partial output when the agent crashes mid-turn", () =>
  withAgent([], {}, async (h) => {
    const run = h.start("crash");
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.equal(textOf(result.output.slice(0, 1)), "partial before the crash");
    assert.equal(textOf(result.output), "partial before the crash", "output: the child's words");
    assert.equal(result.error?.code, "CONNECTION_LOST");
    assert.match(told(result), /exited with code 7/);
    assert.match(told(result), /crashing mid-turn on purpose/);
  }));

Deno.test("createAcpProvider() ends error when the agent dies before answering initialize", () =>
  withAgent(["--exit-at-start"], {}, async (h) => {
    const run = h.start("complete never");
    await assert.rejects(run.started, /exited with code 3/);
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.equal(result.error?.code, "CONNECTION_LOST");
    assert.match(told(result), /during initialize: .*exited with code 3/);
    assert.match(told(result), /exiting at start on purpose/);
  }));

for (const method of ["initialize", "session/new"]) {
  const flag = method === "initialize" ? "--no-initialize" : "--no-session-new";
  Deno.test(`createAcpProvider() ends error when the agent never answers ${method}`, () =>
    // Long enough for a Deno agent to start on a loaded machine.
    withAgent([flag], { startupTimeoutMs: 1_500 }, async (h) => {
      const run = h.start("complete never");
      const ms = await timed(async () => {
        await assert.rejects(run.started, new RegExp(`${method} within 1500 ms`));
        assert.equal((await run.result).stopReason, "error");
      });
      assert.ok(ms >= 1_450 && ms < 1_500 + SLACK, `the run took ${ms} ms`);
      assert.ok(h.watch.agentLines().includes(`not answering ${method}`));
    }));

  Deno.test(`createAcpProvider() ends aborted when cancelled while waiting for ${method}`, () =>
    withAgent([flag], {}, async (h) => {
      const run = h.start("complete never");
      await until(() => h.watch.agentLines().some((l) => l.startsWith("not answering")), method);
      run.cancel();
      await assert.rejects(run.started);
      assert.equal((await run.result).stopReason, "aborted");
    }));
}

Deno.test("createAcpProvider() ends error when session/new is answered without a session id", () =>
  withAgent(["--bad-session-new"], {}, async (h) => {
    const run = h.start("complete never");
    await assert.rejects(run.started, /answered session\/new without a session id/);
    assert.equal((await run.result).stopReason, "error");
  }));

Deno.test("createAcpProvider() ignores malformed session/update notifications", () =>
  withAgent(["--bad-updates"], {}, async (h) => {
    const result = await h.start("complete still fine").result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "still fine");
    const warnings = h.watch.messages("warn");
    assert.ok(warnings.some((m) => m.includes("malformed session/update from the ACP agent")));
    assert.equal(
      warnings.filter((m) => m.includes("ignored a malformed session/update")).length,
      3,
    );
  }));

Deno.test("createAcpProvider() skips an update nested too deep to emit, keeping the connection", () =>
  withAgent([], {}, async (h) => {
    const kinds: string[] = [];
    h.parent.scope.on(acpUpdate, ({ update }) => void kinds.push(update.kind));
    const result = await h.start("deep 20000").result;
    assert.equal(result.stopReason, "completed", told(result));
    assert.equal(textOf(result.output), "after deep");
    assert.deepEqual(kinds, ["message", "message"]);
    assert.ok(h.watch.messages("warn").some((m) => m.includes("cannot freeze")));
  }));

Deno.test("createAcpProvider() cuts an agent's error message, never between the halves of a surrogate pair", () =>
  withAgent([], {}, async (h) => {
    // 599 characters, then emoji: a cut at 600 would keep the first half of one.
    const answered = await h.start("fail-long 599 \u{1F600}").result;
    assert.equal(answered.error?.code, "CHILD_FAILED");
    assert.match(told(answered), /with error -32603: m{599}…$/);
    const rpcError = (answered.error?.data as { rpcError: { message: string } }).rpcError;
    assert.equal(rpcError.message, `${"m".repeat(599)}…`);
    const stray = await h.start("stray-long 599 \u{1F600}").result;
    assert.equal(stray.error?.code, "PROTOCOL_ERROR");
    assert.match(told(stray), /never sent \(id 4242\): s{599}…$/);
  }));

Deno.test("createAcpProvider() cuts the message of an answer to no request to 600 characters", () =>
  withAgent([], {}, async (h) => {
    const result = await h.start("stray-long 1000000").result;
    assert.equal(result.stopReason, "error");
    assert.equal(result.error?.code, "PROTOCOL_ERROR");
    assert.match(told(result), /never sent \(id 4242\): s{600}…$/);
  }));

Deno.test("createAcpProvider() keeps 20 refusals of an agent that asks thousands of times", () =>
  withAgent([], {}, async (h) => {
    const result = await h.start("permission-flood 2000").result;
    assert.equal(result.stopReason, "aborted");
    assert.equal(result.error?.code, "PERMISSION_REFUSED");
    assert.equal((result.error?.data as { refused: unknown[] }).refused.length, 20);
    assert.match(told(result), /"Flood 19" \(tool call flood-19, answered "no"\); and 1980 more$/);
    assert.ok(told(result).length < 4_000, `the message has ${told(result).length} characters`);
  }));

Deno.test("createAcpProvider() cuts the message of an error answer to 600 characters", () =>
  withAgent([], {}, async (h) => {
    const result = await h.start("fail-long 1000000").result;
    assert.equal(result.stopReason, "error");
    assert.equal(result.error?.code, "CHILD_FAILED");
    assert.match(told(result), /with error -32603: m{600}…$/);
    const rpcError = (result.error?.data as { rpcError: { message: string } }).rpcError;
    assert.equal(rpcError.message, `${"m".repeat(600)}…`);
  }));

Deno.test("createAcpProvider() ends error on an oversized message", () =>
  withAgent([], { maxMessageBytes: 64 * 1024 }, async (h) => {
    const run = h.start("oversized 200000");
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.equal(result.error?.code, "PROTOCOL_ERROR");
    assert.match(told(result), /larger than 65536 bytes/);
  }));

Deno.test("createAcpProvider() skips JSON lines that are not JSON-RPC, and errors tied to no request", () =>
  withAgent(["--json-logs", "--null-id-error"], {}, async (h) => {
    const result = await h.start("complete still fine").result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "still fine");
    const warnings = h.watch.messages("warn");
    assert.ok(warnings.some((m) => m.includes('{"level":30,"msg":"about to send"}')));
    assert.ok(warnings.some((m) => m.includes("error tied to no request: Parse error (a notice)")));
  }));

/** Protocol faults before the first prompt: each ends the run `error`, saying what was wrong. */
const PROTOCOL_FAULTS: readonly [string, string, RegExp][] = [
  [
    "speaks another protocol version",
    "--protocol-version=2",
    /protocol version 2; this client speaks version 1/,
  ],
  [
    "answers initialize with a non-object",
    "--bad-initialize",
    /during initialize: the ACP agent answered initialize with "ready, I guess", not an object/,
  ],
  [
    "answers a request never sent",
    "--stray-response",
    /the ACP agent answered a request this client never sent \(id 4242\)/,
  ],
];

for (const [what, flag, message] of PROTOCOL_FAULTS) {
  Deno.test(`createAcpProvider() ends error when the agent ${what}`, () =>
    withAgent([flag], {}, async (h) => {
      const result = await h.start("complete never").result;
      assert.equal(result.stopReason, "error");
      assert.equal(result.error?.code, "PROTOCOL_ERROR");
      assert.match(told(result), message);
    }));
}

Deno.test("createAcpProvider() maps the agent's own stop reasons, keeping partial output", () =>
  withAgent([], {}, async (h) => {
    for (
      const [verb, stopReason] of [
        ["self-cancel", "aborted"],
        ["max-turn-requests", "error"],
        ["odd-stop", "error"],
      ] as const
    ) {
      const result = await h.start(verb).result;
      assert.equal(result.stopReason, stopReason, verb);
      assert.equal(textOf(result.output.slice(0, 1)), "partial", verb);
    }
  }));

Deno.test("createAcpProvider() runs the agent in a process group of its own", () =>
  withAgent([], {}, async (h) => {
    const run = h.start("hang");
    await run.started;
    const [pid] = h.watch.pids;
    const row = (await processTable()).find((p) => p.pid === pid);
    assert.ok(row, `agent ${pid} is not running`);
    assert.equal(row.pgid, pid, "the agent leads its own process group");
    assert.notEqual(row.pgid, (await processTable()).find((p) => p.pid === process.pid)?.pgid);
    run.cancel();
    assert.equal((await run.result).stopReason, "aborted");
  }));

Deno.test("createAcpProvider() shows the agent's updates while the run is live", () =>
  withAgent([], {}, async (h) => {
    const seen: string[] = [];
    const off = h.parent.scope.on(subagentProgress, (info) => {
      if (info.kind === "text" && info.text) seen.push(info.text);
    });
    const run = h.start("hang");
    let settled = false;
    run.result.then(() => settled = true);
    await until(() => seen.includes("working"), "the first chunk");
    assert.equal(settled, false, "the chunk arrived only after the run ended");
    run.cancel();
    assert.equal((await run.result).stopReason, "aborted");
    await off();
  }));

Deno.test("createAcpProvider() ends error when the agent dies between initialize and session/new", () =>
  withAgent(["--exit-on-session-new"], {}, async (h) => {
    const run = h.start("complete never");
    const ms = await timed(async () => {
      await assert.rejects(run.started, /exited with code 4/);
      const result = await run.result;
      assert.equal(result.stopReason, "error");
      assert.match(told(result), /during session\/new: .*exited with code 4/);
      assert.match(told(result), /exiting on session\/new on purpose/);
    });
    assert.ok(ms < SLACK, `the run took ${ms} ms`);
  }));

Deno.test("createAcpProvider() ends error at once for a command that prints only non-JSON", () =>
  withAgent(["--garbage-only"], {}, async (h) => {
    const run = h.start("complete never");
    const ms = await timed(async () => {
      const result = await run.result;
      assert.equal(result.stopReason, "error");
      assert.match(
        told(result),
        /does not speak ACP: its first 101 lines on stdout were not JSON-RPC messages \(the first: "line 0 of some other program"\)/,
      );
    });
    // Long before the default 30 s startup timeout.
    assert.ok(ms < SLACK, `the run took ${ms} ms`);
  }));

Deno.test("createAcpProvider() names the non-JSON an agent printed when it never answers", () =>
  withAgent(["--garbage", "--no-initialize"], { startupTimeoutMs: 1_500 }, async (h) => {
    const result = await h.start("complete never").result;
    assert.equal(result.stopReason, "error");
    assert.match(
      told(result),
      /initialize within 1500 ms \(startupTimeoutMs\); it printed 1 line on stdout that is not JSON-RPC \(the first: "banner: test agent starting"\)/,
    );
  }));

Deno.test("createAcpProvider() with reuseProcess stops a stubborn agent and its grandchild on dispose", () =>
  withAgent(
    ["--ignore-eof", "--trap-sigterm", "--grandchild"],
    { reuseProcess: true },
    async (h) => {
      const runs = [h.start("complete hi"), h.start("complete hi")];
      for (const run of runs) assert.equal((await run.result).stopReason, "completed");
      await until(() => h.watch.grandchildren.size === 1, "the grandchild");
      assert.equal(h.watch.pids.size, 1, "both runs shared one process");
      for (const run of runs) await run.dispose();
      const ms = await timed(() => h.provider.dispose());
      assert.ok(ms < 2 * GRACE + SLACK, `dispose took ${ms} ms`);
    },
  ));

for (const launcher of ["auto", "direct"] as const) {
  Deno.test(`createAcpProvider() ends error naming a missing binary (launcher "${launcher}")`, async () => {
    const watch = new AgentWatch();
    const root = createRootScope({ logger: createMemoryLogger().logger });
    const provider = createAcpProvider({
      command: "/nonexistent/acp-agent",
      logger: watch.logger,
      launcher,
    });
    const service = createSubagentService(root);
    service.registerProvider(provider);
    const run = service.start("acp", { prompt: "hi", parent: { id: "p", scope: root } });
    try {
      const result = await run.result;
      assert.equal(result.stopReason, "error");
      assert.equal(result.error?.code, "START_FAILED");
      assert.match(told(result), /\/nonexistent\/acp-agent/);
      assert.match(told(result), /No such file or directory/);
      await assert.rejects(run.started, /No such file or directory/);
    } finally {
      await run.dispose();
      await provider.dispose();
      await root.dispose();
    }
  });
}

Deno.test("createAcpProvider() ends error naming a cwd that does not exist, not the binary", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const provider = createAcpProvider(testAgentConfig([], { cwd: "/nonexistent/acp-cwd" }));
  const service = createSubagentService(root);
  service.registerProvider(provider);
  const run = service.start("acp", { prompt: "complete hi", parent: { id: "p", scope: root } });
  try {
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.equal(result.error?.code, "START_FAILED");
    assert.match(told(result), /its cwd "\/nonexistent\/acp-cwd" is not a directory \(ENOENT\)/);
  } finally {
    await run.dispose();
    await provider.dispose();
    await root.dispose();
  }
});

Deno.test("createAcpProvider() ends error naming a binary that is not executable", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const provider = createAcpProvider({ command: TEST_AGENT });
  const service = createSubagentService(root);
  service.registerProvider(provider);
  const run = service.start("acp", { prompt: "hi", parent: { id: "p", scope: root } });
  try {
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.match(told(result), /Permission denied/);
  } finally {
    await run.dispose();
    await provider.dispose();
    await root.dispose();
  }
});
