/**
 * Mastra (`@mastra/core`) and seam, both ways:
 *
 * - {@linkcode createMastraProvider}: a Mastra `Agent` as a seam child
 *   (streamed text as progress, usage, cancel, tool approval and
 *   suspended tools as seam input requests resumed in place, structured
 *   output through `structuredOutput`);
 * - {@linkcode subagentTool}: the `subagent` tool as a Mastra tool
 *   (`createTool`), so an agent delegates through `ctx.subagents` to any
 *   provider.
 *
 * Mapping only: the run's lifecycle is `@seam/adapter-kit`'s.
 *
 * @module
 */
export { createMastraProvider, type MastraProviderOptions } from "./provider.ts";
export { type MastraSubagentToolConfig, type SubagentMastraTool, subagentTool } from "./tool.ts";
