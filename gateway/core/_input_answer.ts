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
 * The answer a follow-up message gives `request`.
 *
 * @throws {GatewayError} `invalidParams` naming what an answer must be; the request keeps waiting.
 */
export function answerFromMessage(
  request: SubagentInputRequest,
  parts: readonly A2APart[],
  extensionAnswer: unknown,
): SubagentInputAnswer {
  if (extensionAnswer !== undefined) {
    if (extensionAnswer === null || typeof extensionAnswer !== "object") {
      throw invalidParams("the seam extension's answer must be an object");
    }
    const { requestId: _, ...given } = extensionAnswer as Record<string, unknown>;
    if (given.outcome === undefined) {
      if (typeof given.optionId === "string") given.outcome = "selected";
      else if (typeof given.text === "string") given.outcome = "answered";
    }
    try {
      return checkAnswer(request, given as unknown as SubagentInputAnswer);
    } catch (error) {
      throw invalidParams((error as Error).message);
    }
  }
  const text = textOf(partsToBlocks(parts)).trim();
  if (request.kind !== "permission") {
    if (text === "") {
      throw invalidParams(
        `task waits for an answer to "${request.message.slice(0, 200)}" (in text)`,
      );
    }
    return { outcome: "answered", text };
  }
  const options = request.options!;
  const lower = text.toLowerCase();
  const named = options.find((o) =>
    o.id.toLowerCase() === lower || o.label.toLowerCase() === lower
  );
  if (named) return { outcome: "selected", optionId: named.id };
  const pick = (kinds: string[]) => options.find((o) => kinds.includes(o.kind));
  const chosen = ALLOW.test(text)
    ? pick(["allow_once", "allow_always"])
    : REJECT.test(text)
    ? pick(["reject_once", "reject_always"])
    : undefined;
  if (chosen) return { outcome: "selected", optionId: chosen.id };
  throw invalidParams(
    `task waits for permission ("${request.message.slice(0, 200)}"): answer with one of ${
      options.map((o) => `"${o.id}" (${o.label})`).join(", ")
    }, or allow / reject`,
  );
}
