import assert from "node:assert/strict";
import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";

Deno.test("installSubagentTool() whose provider never appears warns when a turn runs without it", async () => {
  const { logger, records } = createMemoryLogger();
  const host = createHost({ logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider({ name: "spwan" }));
  installSubagentTool(host.scope, { provider: "spawn" });
  const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
  const warnings = () => records.filter((r) => r.level === "warn").map((r) => r.message);
  try {
    main.send("@reply one");
    await main.whenIdle();
    main.send("@reply two");
    await main.whenIdle();
    assert.deepEqual(warnings(), [
      'Tool "subagent" is not offered to agent "main" (turn 1): subagent provider "spawn" is not registered (registered: spwan); register it on the subagent service (subagents.registerProvider) or name a registered one in config.provider',
    ], "said once per wait, at the first turn without it");
    subagents.registerProvider(createSpawnProvider());
    main.send("@reply three");
    await main.whenIdle();
    assert.equal(warnings().length, 1, "no warning once the tool is mounted");
  } finally {
    await host.scope.dispose();
  }
});
