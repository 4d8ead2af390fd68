/**
 * LangGraph.js (`@langchain/langgraph`) and seam, both ways:
 *
 * - {@linkcode createLangGraphProvider}: a compiled graph as a seam child
 *   (streamed tokens as progress, usage from the AI messages, cancel,
 *   `interrupt()` as seam input requests resumed in place with
 *   `Command({ resume })`);
 * - {@linkcode subagentTool}: the `subagent` tool as a LangChain tool, so a
 *   graph delegates through `ctx.subagents` to any provider.
 *
 * Mapping only: the run's lifecycle is `@seam/adapter-kit`'s.
 *
 * @module
 */
export { createLangGraphProvider, type LangGraphProviderOptions } from "./provider.ts";
export {
  type LangGraphSubagentToolConfig,
  type SubagentLangChainTool,
  subagentTool,
} from "./tool.ts";
