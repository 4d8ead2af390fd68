/**
 * A child's input request (from any depth) as an MCP `elicitation/create`
 * form, and the client's answer back as a seam answer. A client that did not
 * declare elicitation gets nothing: the request is refused with a note.
 */
import {
  checkAnswer,
  type SubagentAnswerData,
  type SubagentInputAnswer,
  type SubagentInputRequest,
} from "@seam/subagent";
import { isRecord } from "@seam/host";

/** The parameters of `elicitation/create` (form mode) for `request`. */
export interface ElicitForm {
  readonly mode: "form";
  readonly message: string;
  readonly requestedSchema: {
    readonly type: "object";
    readonly properties: Record<string, Record<string, unknown>>;
    readonly required: string[];
  };
}

const MAX_RAW_INPUT = 1_000;

/** Why a request is refused when the client cannot be asked. */
export const NO_ELICITATION =
  "the MCP client did not declare the elicitation capability, so nothing can be asked of it; refused rather than allowed";

/** The form that asks `request`'s question of the person behind the client. */
export function elicitFormOf(request: SubagentInputRequest): ElicitForm {
  let message = request.message;
  const call = request.toolCall;
  if (call) {
    message += `\nTool: ${call.title ?? call.name}`;
    if (call.rawInput !== undefined) {
      const raw = JSON.stringify(call.rawInput);
      message += `\nInput: ${
        raw.length > MAX_RAW_INPUT ? `${raw.slice(0, MAX_RAW_INPUT)}… (clipped)` : raw
      }`;
    }
  }
  if (request.path.length > 1) message += `\n(asked by a subagent at depth ${request.path.length})`;
  if (request.kind === "permission" && request.options && request.options.length > 0) {
    return {
      mode: "form",
      message,
      requestedSchema: {
        type: "object",
        properties: {
          decision: {
            type: "string",
            title: "Decision",
            oneOf: request.options.map((o) => ({ const: o.id, title: o.label })),
          },
        },
        required: ["decision"],
      },
    };
  }
  const url = request.authentication?.url;
  if (url) message += `\nAuthenticate at: ${url}`;
  return {
    mode: "form",
    message,
    requestedSchema: {
      type: "object",
      properties: { answer: { type: "string", title: "Answer" } },
      required: ["answer"],
    },
  };
}

/**
 * The client's elicitation result as an answer to `request`: a permission
 * request's `decision`; for a question, the form's `content` as
 * `answer.data` (bounded as any answer's data), its `answer` field as the
 * words (else the data in words).
 *
 * @throws {TypeError} for content that is not a JSON object within the bounds of `answer.data` (naming what is wrong).
 */
export function answerOf(request: SubagentInputRequest, result: unknown): SubagentInputAnswer {
  const r = (result ?? {}) as { action?: unknown; content?: unknown };
  if (r.action === "decline") return { outcome: "refused", reason: "the user declined" };
  if (r.action !== "accept") {
    return { outcome: "refused", reason: "the user dismissed the request" };
  }
  const content = r.content as Record<string, unknown> | undefined;
  if (request.kind === "permission" && request.options && request.options.length > 0) {
    const chosen = content?.decision;
    return typeof chosen === "string" && request.options.some((o) => o.id === chosen)
      ? { outcome: "selected", optionId: chosen }
      : { outcome: "refused", reason: "the client's answer named no option that was offered" };
  }
  // Nothing filled in is no answer (a form's one field left empty).
  if (content === undefined || (isRecord(content) && Object.keys(content).length === 0)) {
    return { outcome: "refused", reason: "the client's answer had no content" };
  }
  const text = content?.answer;
  return checkAnswer(request, {
    outcome: "answered",
    ...(typeof text === "string" ? { text } : {}),
    data: content as SubagentAnswerData,
  });
}
