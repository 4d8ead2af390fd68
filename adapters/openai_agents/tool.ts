import { tool } from "@openai/agents-core";
import type { Scope } from "@seam/host";
import { createDelegation, type FrameworkToolConfig } from "@seam/adapter-kit";
import { seamParentOf } from "./_context.ts";

/** How {@linkcode subagentTool} delegates (see `FrameworkToolConfig` of `@seam/adapter-kit`). */
export type OpenAIAgentsSubagentToolConfig = FrameworkToolConfig;

/**
 * The `FunctionTool` of `@openai/agents` that {@linkcode subagentTool}
 * returns, in our own words (the framework's types stay out of this
 * package's signatures): it goes in an `Agent`'s `tools` as it is.
 */
export interface SubagentFunctionTool {
  /** Always `"function"`. */
  readonly type: "function";
  /** The tool's name. */
  readonly name: string;
  /** The tool's description, worded for the bound provider. */
  readonly description: string;
  /** `{description, prompt}`, both required strings. */
  readonly parameters: {
    readonly type: "object";
    readonly properties: Record<string, { readonly type: "string"; readonly description: string }>;
    readonly required: string[];
    readonly additionalProperties: false;
  };
  /** Always `true`: the model must give both parameters. */
  readonly strict: boolean;
  /** Runs the tool (the framework calls it). */
  // deno-lint-ignore no-explicit-any
  invoke(runContext: any, input: string, details?: any): Promise<unknown>;
  /** Never: the child's own approvals travel up the seam tree. */
  // deno-lint-ignore no-explicit-any
  needsApproval(...args: any[]): Promise<boolean>;
  /** Always enabled. */
  // deno-lint-ignore no-explicit-any
  isEnabled(...args: any[]): Promise<boolean>;
}

/**
 * A `subagent` tool for an OpenAI Agents JS agent: a `FunctionTool` (made
 * with the framework's `tool()`) that delegates the task through
 * `ctx.subagents` to any provider (spawn, ACP, a remote A2A agent, another
 * framework's agent). The model sees `@seam/tool-subagent`'s parameters
 * (`description`, `prompt`) and wording; the child's answer, or what went
 * wrong, is the tool's output. The child's input requests (approvals)
 * travel up the seam tree from `scope`; its progress reaches
 * `config.onProgress`; its usage is in the run's `subagent/end`, and rolls
 * up into the agent's own run when that agent runs under
 * `createOpenAIAgentsProvider` (the tool then delegates below that run, and
 * its depth cap and budget apply). The call's abort signal cancels the child.
 *
 * @param scope The scope whose subagent service delegates (and owns the
 * runs of a top-level agent).
 * @param config The provider to start runs on and the fields each run gets.
 * @returns The tool, to put in an `Agent`'s `tools`.
 * @throws {TypeError} naming the option for a bad config or an unregistered provider.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { subagentTool } from "@seam/openai-agents";
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
 * assert.equal(delegate.name, "subagent");
 * await root.dispose();
 * ```
 */
export function subagentTool(
  scope: Scope,
  config: OpenAIAgentsSubagentToolConfig,
): SubagentFunctionTool {
  const delegation = createDelegation(scope, config, "openai-agents");
  return tool({
    name: delegation.name,
    description: delegation.description,
    parameters: delegation.parameters as never,
    strict: true,
    execute: (args, context, details) =>
      delegation.answer(args as never, {
        parent: seamParentOf(context),
        signal: details?.signal,
      }),
  }) as SubagentFunctionTool;
}
