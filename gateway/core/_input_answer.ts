/**
 * A follow-up message to an interrupted task as the answer to the input
 * request it waits on: from the seam extension's `answer`, or from the
 * message's text (an option's id or label, or allow/reject words, for a
 * permission request; the text itself for a question).
 */
import { textOf } from "@seam/host";
import { checkAnswer, type SubagentInputAnswer, type SubagentInputRequest } from "@seam/subagent";
import { partsToBlocks } from "./_convert.ts";
import { invalidParams } from "./_errors.ts";
import type { A2APart } from "../types.ts";
import { stringify } from "./_builtins.ts";

const ALLOW = /^(allow|yes|y|approve|approved|ok|okay|accept)\b/i;
const REJECT = /^(reject|no|n|deny|denied|refuse|decline)\b/i;

/**
 * The request a follow-up answers: the one its `answer.requestId` names, or
 * the oldest waiting.
 *
 * @throws {GatewayError} when the id names no waiting request.
 */
export function requestAnswered(
  waiting: readonly SubagentInputRequest[],
  answer: unknown,
): SubagentInputRequest {
  const requestId = (answer as { requestId?: unknown } | undefined)?.requestId;
  if (requestId === undefined) return waiting[0];
  const found = waiting.find((r) => r.id === requestId);
  if (!found) {
    throw invalidParams(
      `the seam extension's answer.requestId ${
        stringify(String(requestId).slice(0, 100))
      } names no waiting request (waiting: ${waiting.map((r) => r.id).join(", ")})`,
    );
  }
  return found;
}

/**
 * The answer a follow-up message gives `request`: the seam extension's
 * `answer`; for a question, the message's words and its one data part (an
 * ADK `function_response` part: its `response`) as `answer.data` (words
 * that are only the data's JSON are not kept beside it); for a
 * permission request, an option named in words.
 *
 * @throws {GatewayError} `invalidParams` naming what an answer must be; the request keeps waiting.
 */
export function answerFromMessage(
  request: SubagentInputRequest,
  parts: readonly A2APart[],
  extensionAnswer: unknown,
): SubagentInputAnswer {
  let given = extensionAnswer as Record<string, unknown> | undefined;
  if (given && typeof given === "object") {
    const { requestId: _, ...rest } = given;
    rest.outcome ??= typeof rest.optionId === "string" ? "selected" : "answered";
    given = rest;
  } else if (given === undefined && request.kind !== "permission") {
    const data = parts.filter((p) => p.data !== undefined);
    const part = data[0];
    if (data.length > 1) throw invalidParams("an answer has one data part at most");
    // ADK's convention: the answer to a long-running call is its function_response.
    const value = part?.metadata?.adk_type === "function_response"
      ? (part.data as Record<string, unknown>)?.response
      : part?.data;
    let text = textOf(partsToBlocks(parts.filter((p) => p !== part))).trim();
    try {
      // Words that are the data's JSON (Mastra's client sends an object so
      // beside its data part) are the same answer, not more words.
      if (stringify(JSON.parse(text)) === stringify(value)) text = "";
    } catch { /* words */ }
    given = { outcome: "answered", text: text || undefined, data: value };
  }
  if (given !== undefined) {
    try {
      return checkAnswer(request, given as unknown as SubagentInputAnswer);
    } catch (error) {
      throw invalidParams((error as Error).message);
    }
  }
  const text = textOf(partsToBlocks(parts)).trim();
  const options = request.options!;
  const lower = text.toLowerCase();
  const named = options.find((o) =>
    o.id.toLowerCase() === lower || o.label.toLowerCase() === lower
  );
  if (named) return { outcome: "selected", optionId: named.id };
  const pick = (kind: string) => options.find((o) => o.kind.startsWith(kind));
  const chosen = ALLOW.test(text) ? pick("allow") : REJECT.test(text) ? pick("reject") : undefined;
  if (chosen) return { outcome: "selected", optionId: chosen.id };
  throw invalidParams(
    `task waits for permission ("${request.message.slice(0, 200)}"): answer with one of ${
      options.map((o) => `"${o.id}" (${o.label})`).join(", ")
    }, or allow / reject`,
  );
}
