import { type ContentBlock, textOf, type ToolResult } from "@seam/host";
import type { SubagentResult } from "@seam/subagent";

/** What a non-completed run's error result opens with, by stop reason. */
const HEADLINES: Readonly<Record<string, string>> = Object.freeze({
  aborted: "The subagent was cancelled before it finished; its task is not done.",
  error: "The subagent failed before finishing its task.",
  "max-tokens": "The subagent hit the token limit before finishing its task.",
  refusal: "The subagent declined the task.",
  "budget-exhausted": "The subagent ran out of its budget before finishing its task.",
});

/** Headlines for the failure codes that say more than the stop reason does. */
const FAILURE_HEADLINES: Readonly<Record<string, string>> = Object.freeze({
  START_FAILED: "The subagent could not be started; its task is not done.",
  NO_STRUCTURED_RESULT:
    "The subagent finished without submitting the structured result it was asked for.",
  INVALID_STRUCTURED_RESULT:
    "The subagent's structured result does not match the schema it was given.",
  INPUT_REQUIRED: "The subagent stopped to ask for more input; its task is not done.",
  AUTH_REQUIRED: "The subagent stopped because it needs authentication; its task is not done.",
});

/**
 * Map a run's result to what the delegating model sees.
 *
 * - `completed`: the child's output (its blocks as they are; a placeholder
 *   text when it is empty), followed by the structured value, when there is
 *   one, as pretty-printed JSON;
 * - any other stop reason: an error result (`isError: true`) saying what
 *   happened (`aborted` → cancelled, `error` → failed, `max-tokens` → hit
 *   the token limit, `refusal` → declined, `budget-exhausted` → ran out
 *   of its budget, anything else → ended
 *   abnormally; a more precise headline for the failure codes `START_FAILED`,
 *   `NO_STRUCTURED_RESULT`, `INVALID_STRUCTURED_RESULT`, `INPUT_REQUIRED`
 *   and `AUTH_REQUIRED`), then the result's `error` as
 *   `What went wrong (CODE): message` (the message clipped to 2,000
 *   characters), then the child's partial output, when it has any: the
 *   child's words and the diagnosis are never mixed.
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
 *
 * const failed = subagentResultToToolResult({
 *   output: [],
 *   stopReason: "error",
 *   error: { code: "CHILD_FAILED", message: "the model answered 503" },
 * });
 * assert.equal(
 *   failed.content,
 *   "The subagent failed before finishing its task.\n" +
 *     "What went wrong (CHILD_FAILED): the model answered 503",
 * );
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
  const error = result.error;
  const code = typeof error?.code === "string" ? error.code : undefined;
  const headline = code !== undefined && Object.hasOwn(FAILURE_HEADLINES, code)
    ? FAILURE_HEADLINES[code]
    : Object.hasOwn(HEADLINES, stopReason)
    ? HEADLINES[stopReason]
    : `The subagent ended abnormally (stop reason ${JSON.stringify(stopReason)}).`;
  let content = headline;
  if (code !== undefined && typeof error?.message === "string") {
    content += `\nWhat went wrong (${code}): ${clip(error.message)}`;
  }
  const partial = textOf(output).trim();
  if (partial !== "") content += `\n\nIts output before it stopped:\n${partial}`;
  return { content, isError: true };
}

/** At most this many characters of an error message reach the model. */
const MAX_ERROR_MESSAGE = 2_000;

function clip(message: string): string {
  return message.length <= MAX_ERROR_MESSAGE
    ? message
    : `${message.slice(0, MAX_ERROR_MESSAGE)}… (${
      message.length - MAX_ERROR_MESSAGE
    } more characters)`;
}
