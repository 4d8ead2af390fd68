import type { ContentBlock, ToolResult } from "@seam/host";
import type { SubagentUsage } from "@seam/subagent";

/**
 * The run's usage as one line for the parent model, e.g.
 * `[usage: 1200 input tokens (300 cached), 80 output, 3 model calls, 1 tool call, 2.4 s; partial]`.
 */
export function usageLine(usage: SubagentUsage): string {
  const t = usage.total;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `[usage: ${t.inputTokens} input tokens${
    t.cachedInputTokens > 0 ? ` (${t.cachedInputTokens} cached)` : ""
  }, ${t.outputTokens} output, ${plural(t.modelCalls, "model call")}, ${
    plural(t.toolCalls, "tool call")
  }, ${(t.wallTimeMs / 1000).toFixed(1)} s${usage.partial ? "; partial" : ""}]`;
}

/** `result` with the usage line appended as its last text. */
export function withUsageLine(result: ToolResult, usage: SubagentUsage): ToolResult {
  const line = usageLine(usage);
  const content: ContentBlock[] = typeof result.content === "string"
    ? [{ type: "text", text: result.content }]
    : [...result.content];
  content.push({ type: "text", text: `${content.length > 0 ? "\n\n" : ""}${line}` });
  return { ...result, content };
}
