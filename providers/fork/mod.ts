/**
 * `fork`: an in-process child seeded with the parent's conversation up to and
 * including its last completed turn (never the open turn with its pending
 * tool call), so its prompt need state only what is new. Declares every
 * start-time capability, and runs support `sendMessage` and `resume`.
 *
 * @example
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createForkProvider } from "@seam/subagent-fork";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * const subagents = createSubagentService(host.scope);
 * subagents.registerProvider(createForkProvider());
 * const parent = await host.agents.create({ options: { model: "scripted" } });
 * parent.send("@reply the plan is ready");
 * await parent.whenIdle();
 *
 * const run = subagents.start("fork", { prompt: "@reply continuing", parent });
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

/** Options of {@linkcode createForkProvider}. */
export interface ForkProviderOptions {
  /** The name to register under. Default `"fork"`. */
  readonly name?: string;
  /** The host children run in. Default: the one provided in the parent's scope. */
  readonly host?: Host;
}

/** Create the `fork` provider: a child seeded with the parent's completed turns. */
export function createForkProvider(options: ForkProviderOptions = {}): SubagentProvider {
  return createInProcessPreset("fork", true, options);
}
