/**
 * The model-facing `subagent` tool over `ctx.subagents`: delegate a task to
 * a child agent and get its final answer back as the tool's result.
 *
 * {@linkcode installSubagentTool} binds one tool to exactly one provider by
 * name. The model sees only `{description, prompt}`; which transport runs
 * the child is config. The tool's wording says whether the child sees the
 * conversation (derived from the provider's `inheritsParentContext`), and
 * the tool exists exactly while its provider is registered. To expose more
 * than one transport, install it once per provider under distinct names.
 *
 * @example Two transports side by side
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createForkProvider } from "@seam/subagent-fork";
 * import { createSpawnProvider } from "@seam/subagent-spawn";
 * import { installSubagentTool } from "@seam/tool-subagent";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * const subagents = createSubagentService(host.scope);
 * installSubagentTool(host.scope, { provider: "spawn" }); // before its provider: it waits
 * installSubagentTool(host.scope, { provider: "fork", toolName: "subagent_fork" });
 * assert.deepEqual(host.tools.visible(host.scope).map((t) => t.name), []);
 *
 * subagents.registerProvider(createSpawnProvider());
 * subagents.registerProvider(createForkProvider());
 * const tools = host.tools.visible(host.scope);
 * assert.deepEqual(tools.map((t) => t.name), ["subagent", "subagent_fork"]);
 * assert.match(tools[0].spec.description, /does not see this conversation/);
 * assert.match(tools[1].spec.description, /already sees the completed turns/);
 * await host.scope.dispose();
 * ```
 *
 * @module
 */
export { installSubagentTool, type SubagentToolConfig } from "./install.ts";
export { subagentResultToToolResult } from "./result.ts";
export {
  type SubagentToolParameters,
  subagentToolParameters,
  type SubagentToolWording,
  subagentToolWording,
} from "./wording.ts";
