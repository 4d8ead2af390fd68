/**
 * The in-process driver shared by the `spawn` and `fork` providers: a child
 * agent of the same host, composed in a scope nested in its parent's, with
 * every start-time capability (persona, tool filter, structured output,
 * depth) and ownership that reaches the whole subtree.
 *
 * @example A provider of your own name, with a persona for one child
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel, textOf } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createInProcessProvider, PERSONA_SECTION } from "@seam/subagent-in-process";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * host.prompts.register(host.scope, { name: PERSONA_SECTION, text: "You are a general assistant." });
 * const subagents = createSubagentService(host.scope);
 * subagents.registerProvider(
 *   createInProcessProvider({ name: "reviewer", inheritsParentContext: false }),
 * );
 * const parent = await host.agents.create({ id: "main", options: { model: "scripted" } });
 *
 * // `@system`: the scripted child answers with its own system prompt.
 * const run = subagents.start("reviewer", { prompt: "@system", parent, persona: "You review code." });
 * try {
 *   const system = textOf((await run.result).output);
 *   assert.match(system, /You review code\./);
 *   assert.doesNotMatch(system, /general assistant/); // the persona replaced it, for this child only
 * } finally {
 *   await run.dispose();
 * }
 * await host.scope.dispose();
 * ```
 *
 * @module
 */
export {
  createInProcessPreset,
  createInProcessProvider,
  type InProcessPresetOptions,
  type InProcessProviderOptions,
  PERSONA_SECTION,
} from "./driver.ts";
export { STRUCTURED_RESULT_TOOL } from "./_structured.ts";
