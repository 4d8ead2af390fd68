/**
 * What the framework adapters (`@seam/openai-agents`, `@seam/langgraph`,
 * `@seam/mastra`) share, so each of them is a mapping only:
 *
 * - {@linkcode startFrameworkRun}: a framework's run as a seam run handle
 *   (readiness, cancel, idempotent dispose, the child's scope and place in
 *   the delegation tree, input requests, `subagent/progress`); the adapter
 *   gives a driver that maps its framework.
 * - {@linkcode createDelegation}: the core of a framework's `subagent` tool,
 *   with `@seam/tool-subagent`'s schema and wording; the adapter wraps it in
 *   its framework's tool type.
 * - {@linkcode createFrameworkProvider} and {@linkcode checkProviderOptions}:
 *   the provider around a driver, and the checks its options start with;
 *   {@linkcode questionOf}: a framework's request for input as a question.
 * - {@linkcode UsageTally}: a run's own usage, summed call by call.
 *
 * @example A driver that answers at once
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createDelegation, startFrameworkRun } from "@seam/adapter-kit";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * subagents.registerProvider({
 *   name: "echo",
 *   capabilities: { outputSchema: false, depthLimit: true, toolFilter: false, persona: false },
 *   inheritsParentContext: false,
 *   start: (request) =>
 *     startFrameworkRun(request, async (run) => {
 *       run.text("hello");
 *       return { output: "hello", stopReason: "completed" };
 *     }, { framework: "Echo", idPrefix: "echo" }),
 * });
 * const tool = createDelegation(root, { provider: "echo" }, "echo");
 * const outcome = await tool.delegate({ description: "Greet", prompt: "say hello" });
 * assert.deepEqual([outcome.text, outcome.isError], ["hello", false]);
 * await root.dispose();
 * ```
 *
 * @module
 */
export {
  type FrameworkDriver,
  type FrameworkProgress,
  type FrameworkRunContext,
  type FrameworkRunOptions,
  startFrameworkRun,
} from "./run.ts";
export {
  createDelegation,
  type DelegateOptions,
  type Delegation,
  type DelegationOutcome,
  type FrameworkToolConfig,
  type SubagentToolArgs,
} from "./delegation.ts";
export {
  checkProviderOptions,
  createFrameworkProvider,
  type FrameworkProviderSpec,
  type ProviderOptionsCheck,
  questionOf,
} from "./provider.ts";
export { type ModelCallUsage, UsageTally } from "./usage.ts";
