import { type ContentBlock, textOf, type ToolResult } from "@seam/host";
import type { SubagentResult } from "@seam/subagent";

/** What a non-completed run's error result opens with, by stop reason. */
const HEADLINES: Readonly<Record<string, string>> = Object.freeze({
  aborted: "The subagent was cancelled before it finished; its task is not done.",
  error: "The subagent failed before finishing its task.",
  "max-tokens": "The subagent hit the token limit before finishing its task.",
  refusal: "The subagent declined the task.",
});

/**
 * Map a run's result to what the delegating model sees.
 *
 * - `completed`: the child's output (its blocks as they are; a placeholder
 *   text when it is empty), followed by the structured value, when there is
 *   one, as pretty-printed JSON;
 * - any other stop reason: an error result (`isError: true`) saying what
 *   happened (`aborted` → cancelled, `error` → failed, `max-tokens` → hit
 *   the token limit, `refusal` → declined, anything else → ended
 *   abnormally), followed by the child's partial output, when it has any.
 *
 * @param result The run's (normalized) result.
 * @returns The tool result for the model.
 *
 * @example
 * ```ts
 * import { subagentResultToToolResult } from "@seam/tool-subagent";
 * import assert from "node:assert/strict";
 *
 * const ok = subagentResultToToolResult({
 *   output: [{ type: "text", text: "42" }],
 *   stopReason: "completed",
 * });
 * assert.deepEqual(ok, { content: [{ type: "text", text: "42" }] });
 *
 * const cut = subagentResultToToolResult({
 *   output: [{ type: "text", text: "The answer is" }],
 *   stopReason: "max-tokens",
 * });
 * assert.equal(cut.isError, true);
 * assert.match(String(cut.content), /token limit[^]*The answer is/);
 * ```
 */
export function subagentResultToToolResult(result: SubagentResult): ToolResult {
  const output: readonly ContentBlock[] = Array.isArray(result.output) ? result.output : [];
  const stopReason: string = result.stopReason;
  if (stopReason === "completed") {
    const content: ContentBlock[] = output.length > 0
      ? [...output]
      : result.structured === undefined
      ? [{ type: "text", text: "(the subagent finished without any output)" }]
      : [];
    if (result.structured !== undefined) {
      content.push({
        type: "text",
        text: `${content.length > 0 ? "\n\n" : ""}Structured result (JSON):\n${
          JSON.stringify(result.structured, null, 2)
        }`,
      });
    }
    return { content };
  }
  const headline = Object.hasOwn(HEADLINES, stopReason)
    ? HEADLINES[stopReason]
    : `The subagent ended abnormally (stop reason ${JSON.stringify(stopReason)}).`;
  const partial = textOf(output).trim();
  return {
    content: partial === "" ? headline : `${headline}\n\nIts output before it stopped:\n${partial}`,
    isError: true,
  };
}
