// A real agent CLI from npm as an MCP child: `codex mcp-server` (@openai/codex
// 0.140.0, the last line checked here that still has the subcommand) driven by
// createMcpProvider, offline against a fake Responses API model server
// (tests/mcp_fake_responses.ts). Codex is installed with npm into tests/.out
// on first use (tests/npm_bin.ts); without npm or the registry the test is
// skipped, saying so.
import assert from "node:assert/strict";
import { createHost, createMemoryLogger } from "@seam/host";
import { createSubagentService, subagentProgress } from "@seam/subagent";
import { createMcpProvider } from "@seam/mcp";
import { startFakeResponses } from "./mcp_fake_responses.ts";
import { codexHome } from "./acp_codex.ts";
import { npmBin } from "./npm_bin.ts";

const CODEX = "@openai/codex@0.140.0";
const bin = await npmBin(CODEX, "codex", "codex");

/** Processes whose environment names `home` (the run's own CODEX_HOME), by `ps`: pid, group, state, name. */
async function processesWith(home: string): Promise<string[]> {
  const { stdout } = await new Deno.Command("ps", {
    args: ["-e", "e", "-ww", "-o", "pid=,ppid=,pgid=,sid=,stat=,comm=,args="],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(stdout).split("\n")
    .filter((line) => line.includes(`CODEX_HOME=${home}`) && !line.includes(" ps "))
    .map((line) => line.trim().split(/\s+/).slice(0, 9).join(" ")); // pid ppid pgid sid stat command args
}

Deno.test({
  name: "createMcpProvider() runs codex mcp-server's codex tool as a child, offline",
  ignore: bin === undefined,
}, async () => {
  await using fake = startFakeResponses();
  const home = await codexHome(fake.baseUrl);
  const host = createHost({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(
    createMcpProvider({
      name: "codex",
      command: bin!,
      args: ["mcp-server"],
      // HOME too: codex snapshots a login shell, and a profile's background jobs (pyenv's
      // rehash here) start sessions of their own that nothing can tie to the run.
      env: { CODEX_HOME: home, HOME: home, RUST_LOG: "error" },
      tool: "codex",
      teardownGraceMs: 1_000,
    }),
  );
  const kinds: string[] = [];
  host.scope.on(subagentProgress, (info) => void kinds.push(info.kind));
  try {
    const run = subagents.start("codex", {
      prompt: "say hello",
      parent: { id: "main", scope: host.scope },
    });
    await run.started;
    assert.ok((await processesWith(home)).length > 0, "codex runs while the run does");
    const result = await run.result;
    assert.equal(result.stopReason, "completed", JSON.stringify(result.error));
    assert.deepEqual(result.output, [{ type: "text", text: "echo: say hello" }]);
    assert.ok(fake.requests >= 1, "codex asked the fake model");
    await run.dispose();
    assert.deepEqual(
      await processesWith(home),
      [],
      "nothing of codex is left once the run is disposed",
    );
  } finally {
    await host.scope.dispose();
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
