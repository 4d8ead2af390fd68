// A command that is no ACP agent (`cat`, a program that prints text and
// exits, one that says nothing) is named as such in the run's error: what
// was started, that it did not answer initialize as an ACP agent, what it
// printed (bounded), and what to check.
import assert from "node:assert/strict";
import process from "node:process";
import type { SubagentResult } from "@seam/subagent";
import { IS_DENO, withAcpAgent } from "./acp_support.ts";

const CHECK =
  /Check that the command starts an ACP agent speaking JSON-RPC on its stdin and stdout/;

/** The run's error, which must exist. */
function failure(result: SubagentResult): { message: string; data: Record<string, unknown> } {
  assert.equal(result.stopReason, "error");
  assert.ok(result.error, "the run ended without an error");
  return { message: result.error.message, data: (result.error.data ?? {}) as never };
}

Deno.test("createAcpProvider() names `cat` as no ACP agent: it echoes initialize back", () =>
  withAcpAgent([], { command: "cat", args: [], startupTimeoutMs: 20_000 }, async (h) => {
    const { message, data } = failure(await h.start("hello").result);
    assert.match(
      message,
      /^The ACP run failed during initialize: `cat` did not answer initialize as an ACP agent/,
    );
    assert.match(
      message,
      /echoed back the initialize request this client sent it \(as `cat` does\)/,
    );
    assert.match(message, /its first lines on stdout: "\{\\"jsonrpc\\"/);
    assert.match(message, CHECK);
    assert.deepEqual((data.notAnAcpAgent as { command: string }).command, "cat");
  }));

Deno.test("createAcpProvider() names a program that prints text and exits as no ACP agent", () => {
  const script = 'for (let i = 0; i < 10; i++) console.log(`Usage line ${i}: ` + "x".repeat(500))';
  return withAcpAgent([], {
    command: process.execPath,
    args: IS_DENO ? ["eval", script] : ["-e", script],
  }, async (h) => {
    const { message, data } = failure(await h.start("hello").result);
    assert.match(message, /`\S+ (?:eval|-e) '[^']*'` did not answer initialize as an ACP agent/);
    // What it printed, bounded: the first 3 lines, each cut to 200 characters.
    assert.match(
      message,
      /its first lines on stdout: "Usage line 0: x{186}…", "Usage line 1: x+…", "Usage line 2: x+…"\)/,
    );
    assert.doesNotMatch(message, /Usage line 3/);
    assert.match(message, /exited with code 0/);
    assert.match(message, CHECK);
    const told = data.notAnAcpAgent as { stdout: string[] };
    assert.equal(told.stdout.length, 3);
  });
});

Deno.test("createAcpProvider() names a silent command that never answers as no ACP agent", () =>
  withAcpAgent([], { command: "sleep", args: ["30"], startupTimeoutMs: 300 }, async (h) => {
    const { message } = failure(await h.start("hello").result);
    assert.match(
      message,
      /`sleep 30` did not answer initialize as an ACP agent \(it printed nothing on stdout\)/,
    );
    assert.match(message, /within 300 ms \(startupTimeoutMs\)/);
    assert.match(message, CHECK);
  }));

Deno.test("createAcpProvider() does not call an ACP agent that failed initialize no agent", () =>
  withAcpAgent(["--exit-on-session-new"], {}, async (h) => {
    const { message } = failure(await h.start("hello").result);
    assert.match(message, /during session\/new/);
    assert.doesNotMatch(message, /did not answer initialize as an ACP agent/);
    assert.doesNotMatch(message, CHECK);
  }));
