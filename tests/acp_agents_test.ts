// ACP as real agents behave (issue 14), reproduced by the test agent from
// their published wire format: authentication methods and -32000, reasons
// in `error.data`, no exit on stdin EOF, `session/close`, a refused
// permission ending the turn `cancelled`, a slow cancel, a turn that never
// ends. Every test ends with no process left.
import assert from "node:assert/strict";
import { textOf } from "@seam/host";
import type { SubagentResult } from "@seam/subagent";
import { timed, until, withAcpAgent } from "./acp_support.ts";

/** The error's details. */
function data(result: SubagentResult): Record<string, unknown> {
  return (result.error?.data ?? {}) as Record<string, unknown>;
}

/** What went wrong, as the result's error says it. */
function failure(result: SubagentResult): string {
  return result.error?.message ?? "(no error)";
}

Deno.test("createAcpProvider() authenticates with an env_var method whose variables are set", () =>
  withAcpAgent(["--auth-env=SEAM_TEST_API_KEY"], {
    env: { SEAM_TEST_API_KEY: "sk-test" },
  }, async (h) => {
    const result = await h.start("complete signed in").result;
    assert.equal(result.stopReason, "completed", failure(result));
    assert.equal(textOf(result.output), "signed in");
    // stderr is another pipe: its line may come after the result.
    await until(() => h.watch.agentLines().includes("authenticate test-key"), "authenticate");
  }));

Deno.test("createAcpProvider() lists the agent's authentication methods on -32000", () =>
  withAcpAgent(["--auth-env=SEAM_TEST_API_KEY"], {}, async (h) => {
    const run = h.start("complete never");
    await assert.rejects(run.started, /Authentication required/);
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    const told = failure(result);
    assert.match(
      told,
      /during session\/new: the ACP agent answered session\/new with error -32000/,
    );
    assert.match(told, /"test-key" \(env_var: SEAM_TEST_API_KEY \(not set\)\)/);
    assert.match(told, /"login" \(agent: Log in with a browser\)/);
    assert.match(told, /config\.authMethod/);
    assert.match(told, /refusing session\/new: not authenticated/, "the stderr tail");
    assert.equal(result.error?.code, "AUTH_REQUIRED");
    assert.deepEqual(data(result).rpcError, { code: -32000, message: "Authentication required" });
    assert.ok(!h.watch.agentLines().some((l) => l.startsWith("authenticate")));
  }));

Deno.test("createAcpProvider() authenticates with config.authMethod, and names a refusal", async (t) => {
  await t.step(
    "a method that fails says why (error.data)",
    () =>
      withAcpAgent(["--auth-env=SEAM_TEST_API_KEY"], { authMethod: "login" }, async (h) => {
        const result = await h.start("complete never").result;
        assert.equal(result.stopReason, "error");
        assert.match(
          failure(result),
          /during authenticate: the ACP agent answered authenticate \(method "login"\) with error -32603: Internal error \(no browser here\)/,
        );
      }),
  );
  await t.step(
    "a method the agent does not offer",
    () =>
      withAcpAgent(["--auth-env=SEAM_TEST_API_KEY"], { authMethod: "sso" }, async (h) => {
        const result = await h.start("complete never").result;
        assert.equal(result.stopReason, "error");
        assert.match(
          failure(result),
          /config\.authMethod is "sso", which the ACP agent does not offer/,
        );
        assert.match(failure(result), /"test-key"/);
      }),
  );
});

Deno.test("createAcpProvider() keeps the reason an agent gives in error.data", () =>
  withAcpAgent([], {}, async (h) => {
    const result = await h.start("fail-data").result;
    assert.equal(result.stopReason, "error");
    assert.equal(textOf(result.output.slice(0, 1)), "about to fail", "the child's own words stay");
    assert.match(
      failure(result),
      /session\/prompt with error -32603: Internal error \(We're currently experiencing high demand/,
    );
    assert.equal(result.error?.code, "CHILD_FAILED");
    assert.deepEqual(data(result).rpcError, {
      code: -32603,
      message: "Internal error",
      data: {
        message: "We're currently experiencing high demand, which may cause temporary errors.",
        codex_error_info: "server_overloaded",
      },
    });
    const big = await h.start("fail-data 100000").result;
    assert.ok(failure(big).length < 2_000, `a bounded note: ${failure(big).length} chars`);
    const kept = (data(big).rpcError as { data: unknown }).data;
    assert.ok(typeof kept === "string" && kept.length <= 4_001, "bounded data");
  }));

Deno.test("createAcpProvider() quotes the agent's stderr when session/new fails", () =>
  withAcpAgent(["--fail-session-new"], {}, async (h) => {
    const result = await h.start("complete never").result;
    assert.equal(result.stopReason, "error");
    const told = failure(result);
    assert.match(told, /Internal error \(No model configured\. Run \/model to pick one\.\)/);
    assert.match(told, /its last stderr lines:\n[^]*cannot open a session: no model is configured/);
    assert.equal(result.error?.code, "START_FAILED");
    assert.match(String(data(result).stderr), /cannot open a session/);
  }));

Deno.test("createAcpProvider() closes the session before EOF, and waits briefly for an agent that ignores EOF", () =>
  withAcpAgent(["--ignore-eof"], { disposeEofGraceMs: undefined }, async (h) => {
    const run = h.start("complete fine");
    assert.equal((await run.result).stopReason, "completed");
    const ms = await timed(() => run.dispose());
    const lines = h.watch.agentLines();
    const close = lines.indexOf("session/close sess-1");
    const eof = lines.indexOf("stdin closed"); // absent if SIGTERM came first (a loaded machine)
    assert.ok(close !== -1 && (eof === -1 || close < eof), lines.join("\n"));
    // The default EOF grace is short: SIGTERM follows within ~200 ms, not a second.
    assert.ok(h.watch.messages("info").some((m) => m.includes("200 ms after its stdin closed")));
    assert.ok(ms < 2_000, `dispose took ${ms} ms`);
  }));

Deno.test("createAcpProvider() says a refused permission ended the turn, not a cancel", () =>
  withAcpAgent(["--cancel-on-reject"], { permission: "reject" }, async (h) => {
    const result = await h.start("permission").result;
    assert.equal(result.stopReason, "aborted");
    assert.match(
      failure(result),
      /stopped its turn after a permission request was refused: "Delete everything" \(tool call call-p, answered "no"\)/,
    );
    assert.equal(result.error?.code, "PERMISSION_REFUSED");
    assert.deepEqual(data(result).refused, [
      { toolCallId: "call-p", title: "Delete everything", toolKind: "delete", answer: "no" },
    ]);
    const own = h.start("hang");
    await own.started;
    own.cancel();
    const cancelled = await own.result;
    assert.equal(cancelled.stopReason, "aborted");
    assert.equal(cancelled.error, undefined, "a cancel of our own says nothing more");
  }));

Deno.test("createAcpProvider() gives a permission function the whole tool call", () => {
  let raw: unknown;
  return withAcpAgent([], {
    permission: (request) => {
      raw = request.raw;
      return "allow";
    },
  }, async (h) => {
    await h.start("permission").result;
    assert.deepEqual(raw, { toolCallId: "call-p", title: "Delete everything", kind: "delete" });
    assert.ok(Object.isFrozen(raw));
  });
});

for (const reuseProcess of [false, true]) {
  Deno.test(`createAcpProvider() resumes after a slow cancel within cancelGraceMs (reuseProcess ${reuseProcess})`, () =>
    withAcpAgent(["--slow-cancel=700"], {
      reuseProcess,
      cancelGraceMs: 3_000,
      disposeGraceMs: 300,
    }, async (h) => {
      const first = h.start("hang");
      await first.started;
      first.cancel();
      assert.equal((await first.result).stopReason, "aborted");
      const second = first.resume!("complete resumed");
      const result = await second.result;
      assert.equal(result.stopReason, "completed", failure(result));
      assert.equal(textOf(result.output), "resumed");
      await second.dispose();
      assert.equal(h.watch.pids.size, 1, "the process was kept");
    }));
}

Deno.test("createAcpProvider() ends a turn that never ends after turnTimeoutMs", () =>
  withAcpAgent([], { turnTimeoutMs: 400 }, async (h) => {
    const run = h.start("retry-forever");
    const result = await run.result;
    assert.equal(result.stopReason, "error");
    assert.match(failure(result), /did not end its turn within 400 ms \(turnTimeoutMs\)/);
    assert.equal(result.error?.code, "TIMEOUT");
    await until(() => h.watch.agentLines().includes("retry-forever cancelled"), "the cancel");
    const next = await run.resume!("complete again").result;
    assert.equal(textOf(next.output), "again", "the session is still usable");
  }));

Deno.test("createAcpProvider() does not count a permission function's wait against turnTimeoutMs", () =>
  withAcpAgent([], {
    turnTimeoutMs: 300,
    permission: () => new Promise((resolve) => setTimeout(() => resolve("allow"), 600)),
  }, async (h) => {
    const result = await h.start("permission").result;
    assert.equal(result.stopReason, "completed", failure(result));
    assert.equal(textOf(result.output), "permission: selected yes");
  }));
