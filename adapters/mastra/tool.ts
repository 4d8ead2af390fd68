import { createTool } from "@mastra/core/tools";
import type { Scope } from "@seam/host";
import { createDelegation, type FrameworkToolConfig } from "@seam/adapter-kit";
import { seamParentOf } from "./_context.ts";

/** How {@linkcode subagentTool} delegates (see `FrameworkToolConfig` of `@seam/adapter-kit`). */
export type MastraSubagentToolConfig = FrameworkToolConfig;

/**
 * The Mastra tool {@linkcode subagentTool} returns (a `Tool` of
 * `@mastra/core/tools`), in our own words (the framework's types stay out of
 * this package's signatures): it goes in an `Agent`'s `tools` as it is.
 */
export interface SubagentMastraTool {
  /** The tool's name. */
  readonly id: string;
  /** The tool's description, worded for the bound provider. */
  readonly description: string;
  /** `{description, prompt}`, both required strings, as JSON Schema. */
  readonly inputSchema?: unknown;
  /** Runs the tool (Mastra calls it). */
  // deno-lint-ignore no-explicit-any
  readonly execute?: (input: any, context: any) => Promise<any>;
}

/**
 * A `subagent` tool for a Mastra agent: a Mastra tool (made with
 * `createTool`) that delegates the task through `ctx.subagents` to any
 * provider. The model sees `@seam/tool-subagent`'s parameters
 * (`description`, `prompt`) and wording; the child's answer, or what went
 * wrong, is the tool's output. The child's progress is written to the
 * tool's stream (`context.writer`) as `{type: "subagent-progress",
 * progress}` and reaches `config.onProgress`; its input requests travel up
 * the seam tree from `scope`; its usage is in the run's `subagent/end`, and
 * rolls up into the agent's own run when the agent runs under
 * `createMastraProvider` (the tool then delegates below that run, its depth
 * cap and budget applying). The call's abort signal cancels the child.
 *
 * @param scope The scope whose subagent service delegates.
 * @param config The provider to start runs on and the fields each run gets.
 * @returns The tool, for an `Agent`'s `tools`.
 * @throws {TypeError} naming the option for a bad config or an unregistered provider.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { subagentTool } from "@seam/mastra";
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
 * assert.equal(delegate.id, "subagent");
 * await root.dispose();
 * ```
 */
export function subagentTool(scope: Scope, config: MastraSubagentToolConfig): SubagentMastraTool {
  const delegation = createDelegation(scope, config, "mastra");
  return createTool({
    id: delegation.name,
    description: delegation.description,
    inputSchema: delegation.parameters as never,
    execute: (input: unknown, context) => {
      const writer = context?.writer;
      return delegation.answer(input as never, {
        parent: seamParentOf(context?.requestContext),
        signal: context?.abortSignal,
        onProgress: writer &&
          ((progress) => writer.write({ type: "subagent-progress", progress })?.catch(() => {})),
      });
    },
  }) as unknown as SubagentMastraTool;
}
