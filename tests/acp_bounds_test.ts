// The bounds the ACP provider keeps against an agent that sends too much:
// what it holds for a session not open yet, and how much of the agent's
// words it quotes in logs and errors.
import assert from "node:assert/strict";
import { textOf } from "@seam/host";
import { acpUpdate } from "@seam/subagent-acp";
import { withAcpAgent } from "./acp_support.ts";

/** The first two words of each thought the parent saw (`early <i>`). */
function earlyThoughts(h: Parameters<Parameters<typeof withAcpAgent>[2]>[0]): string[] {
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
