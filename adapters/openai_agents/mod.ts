/**
 * OpenAI Agents JS (`@openai/agents`) and seam, both ways:
 *
 * - {@linkcode createOpenAIAgentsProvider}: an `Agent` run through its
 *   `Runner` as a seam child (streamed text as progress, usage, cancel,
 *   `needsApproval` interruptions as seam permission requests resumed in
 *   place from the `RunState`, structured output through `outputType`);
 * - {@linkcode subagentTool}: the `subagent` tool as the framework's own
 *   `FunctionTool`, so an agent delegates through `ctx.subagents` to any
 *   provider.
 *
 * Mapping only: the run's lifecycle is `@seam/adapter-kit`'s.
 *
 * @module
 */
export { createOpenAIAgentsProvider, type OpenAIAgentsProviderOptions } from "./provider.ts";
export {
  type OpenAIAgentsSubagentToolConfig,
  type SubagentFunctionTool,
  subagentTool,
} from "./tool.ts";
