// The bounds the ACP provider keeps against an agent that sends too much:
// what it holds for a session not open yet, and how much of the agent's
// words it quotes in logs and errors.
import assert from "node:assert/strict";
import { textOf } from "@seam/host";
import { subagentInputRequired, type SubagentResult } from "@seam/subagent";
import { acpUpdate } from "@seam/subagent-acp";
import { type AcpHarness, withAcpAgent } from "./acp_support.ts";

/** What went wrong, as the result's error says it. */
const told = (result: SubagentResult): string => result.error?.message ?? "(no error)";

/** A half of a surrogate pair without the other: what a cut within a pair leaves. */
const LONE_HALF = /\p{Cs}/u;

/** Emoji after `<n>` `w`s: a cut at `<n>` + 1 characters falls within the first. */
const EMOJI = "\u{1F600}";

/** The first two words of each thought the parent saw (`early <i>`). */
function earlyThoughts(h: AcpHarness): string[] {
  const seen: string[] = [];
  h.parent.scope.on(acpUpdate, ({ update }) => {
    if (update.kind === "thought") seen.push(textOf(update.content).split(" ", 2).join(" "));
  });
  return seen;
}

Deno.test("createAcpProvider() holds at most 4 MiB of updates sent before the session/new answer", () =>
  withAcpAgent(["--early-updates=3x2000000"], {}, async (h) => {
    const seen = earlyThoughts(h);
    const result = await h.start("complete still fine").result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "still fine");
    // Two lines of about 2,000,100 bytes fit in 4,194,304; the third does not.
    assert.deepEqual(seen, ["early 1", "early 2"]);
    const warnings = h.watch.messages("warn").filter((m) => m.includes("before answering"));
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(warnings[0], /at most 256 updates or 4194304 bytes/);
  }));

Deno.test("createAcpProvider() holds at most 256 updates sent before the session/new answer", () =>
  withAcpAgent(["--early-updates=300x1"], {}, async (h) => {
    const seen = earlyThoughts(h);
    const result = await h.start("complete still fine").result;
    assert.equal(result.stopReason, "completed");
    assert.equal(seen.length, 256);
    assert.equal(seen.at(-1), "early 256");
    assert.equal(h.watch.messages("warn").filter((m) => m.includes("before answering")).length, 1);
  }));

Deno.test("createAcpProvider() cuts the lines it logs, never between the halves of a surrogate pair", () =>
  withAcpAgent([], {}, async (h) => {
    // A non-JSON line: cut at 200 characters.
    assert.equal((await h.start(`long garbage 199 ${EMOJI}`).result).stopReason, "completed");
    // JSON that is no JSON-RPC message: its first 200 characters are `{"msg":"` and 192 more.
    assert.equal((await h.start(`long json-line 191 ${EMOJI}`).result).stopReason, "completed");
    // A malformed update: `{"note":"` and 191 more.
    assert.equal((await h.start(`long update 190 ${EMOJI}`).result).stopReason, "completed");
    const warnings = h.watch.messages("warn");
    for (
      const [what, quoted] of [
        ["non-JSON line", /not a JSON-RPC message: w{199}…$/],
        ["JSON line", /not a JSON-RPC message: \{"msg":"w{191}…$/],
        ["malformed update", /ignored a malformed session\/update: \{"note":"w{190}…$/],
      ] as const
    ) {
      const line = warnings.find((m) => quoted.test(m));
      assert.ok(line, `no warning quotes the ${what}:\n${warnings.join("\n").slice(0, 4_000)}`);
      assert.ok(!LONE_HALF.test(line), `the ${what} was cut within a surrogate pair`);
    }
  }));

Deno.test("createAcpProvider() bounds the stderr it logs and quotes, never splitting a surrogate pair", () =>
  withAcpAgent([], {}, async (h) => {
    const cut = await h.start(`long stderr 399 ${EMOJI}`).result;
    assert.equal(cut.error?.code, "CONNECTION_LOST");
    assert.match(told(cut), /exited with code 7; its last stderr lines:\n(.*\n)*w{399}…$/);
    assert.ok(!LONE_HALF.test(told(cut)), "the stderr line was cut within a surrogate pair");
    const huge = await h.start("long stderr 1000000").result;
    assert.equal(huge.error?.code, "CONNECTION_LOST");
    assert.ok(told(huge).length < 4_000, `the message has ${told(huge).length} characters`);
    const logged = h.watch.messages("info").filter((m) => m.startsWith("agent stderr: w"));
    assert.ok(logged.length > 0, "the stderr lines were logged");
    for (const line of logged) {
      assert.ok(line.length <= 4_020, `a stderr line of ${line.length} characters was logged`);
    }
  }));

Deno.test("createAcpProvider() quotes a runaway stderr line once, however many reads it took", () =>
  withAcpAgent([], {}, async (h) => {
    const result = await h.start("long stderr-paced 1000000").result;
    assert.equal(result.error?.code, "CONNECTION_LOST");
    const tail = told(result).split("its last stderr lines:\n")[1] ?? "";
    // One slot of the tail for the line, cut, then the line after it.
    assert.deepEqual(tail.split("\n").filter((line) => !line.startsWith("test-agent[")), [
      `${"w".repeat(400)}…`,
      "the last line",
    ]);
    const logged = h.watch.messages("info").filter((m) => m.startsWith("agent stderr: w"));
    assert.equal(logged.length, 1, `the line was logged ${logged.length} times`);
  }));

Deno.test("createAcpProvider() quotes a stop reason it does not know to 200 characters", () =>
  withAcpAgent([], {}, async (h) => {
    const huge = await h.start("long stop 1000000").result;
    assert.equal(huge.stopReason, "error");
    assert.match(told(huge), /ended the turn with stop reason "w{200}…"$/);
    const paired = await h.start(`long stop 199 ${EMOJI}`).result;
    assert.match(told(paired), /with stop reason "w{199}…"$/);
  }));

Deno.test("createAcpProvider() bounds the session id it logs for a session never opened", () =>
  withAcpAgent([], {}, async (h) => {
    const result = await h.start("long session 1000000").result;
    assert.equal(result.stopReason, "completed", told(result));
    const unknown = h.watch.records.map((r) => r.message).filter((m) =>
      m.includes("for unknown session")
    );
    assert.equal(unknown.length, 2, unknown.join("\n").slice(0, 4_000));
    for (const line of unknown) assert.match(line, /unknown session w{200}…$/);
  }));

Deno.test("createAcpProvider() bounds the tool call an input request's message names", () =>
  withAcpAgent([], { permission: "ask" }, async (h) => {
    const messages: string[] = [];
    h.parent.scope.on(subagentInputRequired, (request) => void messages.push(request.message));
    for (const words of ["1000000", `199 ${EMOJI}`]) {
      const result = await h.start(`long permission ${words}`).result;
      assert.equal(result.stopReason, "completed", told(result));
    }
    assert.equal(messages.length, 2);
    assert.match(messages[0], /asks permission for "w{200}…" \(execute\)$/);
    assert.match(messages[1], /asks permission for "w{199}…" \(execute\)$/);
  }));

Deno.test("createAcpProvider() bounds the authentication methods it lists", () =>
  withAcpAgent(["--auth-env=SEAM_TEST_API_KEY", "--auth-name=1000000"], {
    authMethod: "sso",
  }, async (h) => {
    const result = await h.start("complete never").result;
    assert.equal(result.error?.code, "AUTH_REQUIRED");
    assert.match(told(result), /"login" \(agent: w{200}…\)/);
    assert.ok(told(result).length < 4_000, `the message has ${told(result).length} characters`);
  }));
