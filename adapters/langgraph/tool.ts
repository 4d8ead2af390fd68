import { type DynamicStructuredTool, tool } from "@langchain/core/tools";
import type { Scope } from "@seam/host";
import { createDelegation, type FrameworkToolConfig } from "@seam/adapter-kit";
import { seamParentOf } from "./_context.ts";

/** How {@linkcode subagentTool} delegates (see `FrameworkToolConfig` of `@seam/adapter-kit`). */
export type LangGraphSubagentToolConfig = FrameworkToolConfig;

/** The LangChain tool {@linkcode subagentTool} returns (`DynamicStructuredTool`). */
export type SubagentLangChainTool = DynamicStructuredTool;

/**
 * A `subagent` tool for a LangGraph.js graph or a LangChain agent: a
 * LangChain tool (made with `tool()` of `@langchain/core/tools`, for a
 * `ToolNode`, `createReactAgent` or a model's `bindTools`) that delegates
 * the task through `ctx.subagents` to any provider. The model sees
 * `@seam/tool-subagent`'s parameters (`description`, `prompt`) and wording;
 * the child's answer, or what went wrong, is the tool's output. The child's
 * progress is written to the graph's `custom` stream (`config.writer`) as
 * `{subagent: progress}` and reaches `config.onProgress`; its input requests
 * travel up the seam tree from `scope`; its usage is in the run's
 * `subagent/end`, and rolls up into the graph's own run when the graph runs
 * under `createLangGraphProvider` (the tool then delegates below that run,
 * its depth cap and budget applying). The call's abort signal cancels the
 * child.
 *
 * @param scope The scope whose subagent service delegates.
 * @param config The provider to start runs on and the fields each run gets.
 * @returns The tool.
 * @throws {TypeError} naming the option for a bad config or an unregistered provider.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { subagentTool } from "@seam/langgraph";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * subagents.registerProvider({
 *   name: "echo",
 *   capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
 *   inheritsParentContext: false,
 *   start: () => ({
 *     id: "echo-1",
 *     started: Promise.resolve(),
 *     result: Promise.resolve({ output: "done", stopReason: "completed" }),
 *     cancel() {},
 *     dispose: () => Promise.resolve(),
 *   }),
 * });
 * const delegate = subagentTool(root, { provider: "echo" });
 * assert.equal(await delegate.invoke({ description: "Echo", prompt: "hi" }), "done");
 * await root.dispose();
 * ```
 */
export function subagentTool(
  scope: Scope,
  config: LangGraphSubagentToolConfig,
): SubagentLangChainTool {
  const delegation = createDelegation(scope, config, "langgraph");
  return tool((args: unknown, runConfig) => {
    const writer = (runConfig as { writer?: (chunk: unknown) => void }).writer;
    return delegation.answer(args as never, {
      parent: seamParentOf(runConfig),
      signal: runConfig?.signal,
      onProgress: writer && ((progress) => writer({ subagent: progress })),
    });
  }, {
    name: delegation.name,
    description: delegation.description,
    schema: delegation.parameters as Record<string, unknown>,
  }) as unknown as SubagentLangChainTool;
}
