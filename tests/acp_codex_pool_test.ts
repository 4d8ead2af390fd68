// The real codex-acp (npm `@zed-industries/codex-acp`) in a warm pool,
// offline: its model is the fake Responses API server written from that
// wire format (tests/mcp_fake_responses.ts). The pooled run answers, the pool
// refills, and disposing ends every process of every agent it started,
// counted by process group with `ps`. Without npm or the registry the test
// is skipped, saying so.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createAcpProvider } from "@seam/subagent-acp";
import { CODEX_ACP_DIR, codexAcp, codexAcpConfig, codexHome } from "./acp_codex.ts";
import { liveMembers, processTable, untilGone } from "./acp_support.ts";
import { startFakeResponses } from "./mcp_fake_responses.ts";

const bin = await codexAcp();

/** The process groups running codex-acp now. */
async function codexGroups(): Promise<Set<number>> {
  return new Set(
    (await processTable())
      .filter((p) => !p.stat.startsWith("Z") && p.args.includes(CODEX_ACP_DIR))
      .map((p) => p.pgid),
  );
}

Deno.test({
  name: "createAcpProvider({ pool }) runs codex-acp warm and offline, refills, ends every process",
  ignore: bin === undefined,
}, async () => {
  await using fake = startFakeResponses();
  const home = await codexHome(fake.baseUrl);
  const { logger } = createMemoryLogger();
  const root = createRootScope({ logger });
  const service = createSubagentService(root);
  const provider = createAcpProvider(codexAcpConfig(bin!, home, { pool: { size: 1 }, logger }));
  service.registerProvider(provider);
  const seen = new Set<number>();
  try {
    assert.equal(await provider.whenWarm(), 1);
    const [warm, ...others] = await codexGroups();
    assert.ok(warm !== undefined && others.length === 0, "one warm codex-acp");
    seen.add(warm);
    const run = service.start("codex", {
      prompt: "say hello",
      parent: { id: "main", scope: root.child("main") },
    });
    const result = await run.result;
    assert.equal(result.stopReason, "completed", JSON.stringify(result.error));
    // codex-acp says first that the fake model has no metadata, then the model's answer.
    assert.match(textOf(result.output), /echo: say hello$/);
    assert.ok(fake.requests >= 1, "codex asked the fake model");
    // The pool refilled beside the agent the run took.
    assert.equal(await provider.whenWarm(), 1);
    const groups = await codexGroups();
    for (const group of groups) seen.add(group);
    assert.equal(groups.size, 2, "the run's agent and a new warm one");
    await run.dispose();
    // The run had taken the warm agent: disposing it ended that one, not the new one.
    assert.deepEqual(await untilGone([warm]), [], "the run's agent outlived its run");
    assert.ok((await liveMembers(seen)).length > 0, "the refilled agent is gone too");
  } finally {
    await root.dispose(); // the provider with it
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
  assert.deepEqual(await untilGone(seen), [], "codex-acp processes outlived dispose");
  assert.deepEqual(await codexGroups(), new Set(), "a codex-acp process nobody counted");
});
