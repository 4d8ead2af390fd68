/**
 * `spawn`: a fresh in-process child. It does not see the parent's
 * conversation, so its prompt must be self-contained. Declares every
 * start-time capability (`outputSchema`, `depthLimit`, `toolFilter`,
 * `persona`), and runs support `sendMessage` and `resume`.
 *
 * @example
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createSpawnProvider } from "@seam/subagent-spawn";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * const subagents = createSubagentService(host.scope);
 * subagents.registerProvider(createSpawnProvider());
 * const parent = await host.agents.create({ options: { model: "scripted" } });
 *
 * const run = subagents.start("spawn", { prompt: "@reply 42", parent });
 * try {
 *   assert.equal((await run.result).stopReason, "completed");
 * } finally {
 *   await run.dispose();
 * }
 * await host.scope.dispose();
 * ```
 *
 * @module
 */
import type { Host } from "@seam/host";
import type { SubagentProvider } from "@seam/subagent";
import { createInProcessPreset } from "@seam/subagent-in-process";

/** Options of {@linkcode createSpawnProvider}. */
export interface SpawnProviderOptions {
  /** The name to register under. Default `"spawn"`. */
  readonly name?: string;
  /** The host children run in. Default: the one provided in the parent's scope. */
  readonly host?: Host;
}

/** Create the `spawn` provider: a fresh in-process child per run. */
export function createSpawnProvider(options: SpawnProviderOptions = {}): SubagentProvider {
  return createInProcessPreset("spawn", false, options);
}
