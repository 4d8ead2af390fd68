// A descendant's input request asked of the ACP client: a permission request
// as `session/request_permission`, a question as a form elicitation
// (`elicitation/create`, ACP's unstable schema) when the client declared
// `clientCapabilities.elicitation.form`. Anything else is not the client's
// to answer here: it passes up the scope chain as before.
// @ts-types="@agentclientprotocol/sdk"
import type * as acp from "../_acp_sdk.bundle.js";
import { isRecord, type Logger } from "@seam/host";
import type { SubagentInputAnswer, SubagentInputRequest } from "@seam/subagent";
import { cut } from "../_failure.ts";

/** The longest question sent to the client, in characters (a child's words). */
const MAX_QUESTION = 4_000;

/** The parameters of `elicitation/create` the server sends (form mode, session-scoped). */
export interface QuestionForm {
  readonly sessionId: string;
  readonly mode: "form";
  readonly message: string;
  readonly requestedSchema: {
    readonly type: "object";
    readonly properties: { readonly answer: { readonly type: "string"; readonly title: string } };
    readonly required: readonly ["answer"];
  };
}

/** How the server reaches its client. */
export interface ClientQuestions {
  /** Whether the client declared `clientCapabilities.elicitation.form`. */
  elicitation(): boolean;
  /** Ask the client `session/request_permission`. */
  requestPermission(
    params: acp.RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<acp.RequestPermissionResponse>;
  /** Ask the client `elicitation/create`; its answer unchecked. */
  elicit(params: QuestionForm, signal: AbortSignal): Promise<unknown>;
}

/**
 * Ask the client `request` on `sessionId` (the asking child's session, else
 * the session's own); `undefined` when the client is not the one to ask.
 */
export async function askClient(
  client: ClientQuestions,
  logger: Logger,
  request: SubagentInputRequest,
  sessionId: string,
  signal: AbortSignal,
): Promise<SubagentInputAnswer | undefined> {
  const question = request.kind === "question" && client.elicitation();
  if (!question && (request.kind !== "permission" || !request.options?.length)) return undefined;
  try {
    return question
      ? answerOf(await client.elicit(formOf(request, sessionId), signal))
      : chosen(await client.requestPermission(permissionOf(request, sessionId), signal));
  } catch (error) {
    // A request withdrawn because its run was cancelled is no failure worth a warning.
    const what = `Asking the ACP client for ${request.runId}'s ${request.kind} failed`;
    if (signal.aborted) logger.debug(what, error);
    else logger.warn(what, error);
    return { outcome: "refused", reason: `the ACP client did not answer the ${request.kind}` };
  }
}

function permissionOf(
  request: SubagentInputRequest,
  sessionId: string,
): acp.RequestPermissionRequest {
  const toolCall = request.toolCall;
  return {
    sessionId,
    toolCall: {
      toolCallId: request.id.startsWith(request.runId)
        ? request.id
        : `${request.runId}/${request.id}`,
      title: toolCall?.title ?? toolCall?.name ?? cut(request.message, 200),
      ...(toolCall?.rawInput === undefined ? {} : { rawInput: toolCall.rawInput }),
    },
    options: request.options!.map((option) => ({
      optionId: option.id,
      name: option.label,
      kind: option.kind,
    })),
  };
}

function chosen(answer: acp.RequestPermissionResponse): SubagentInputAnswer {
  const outcome = answer.outcome;
  if (outcome.outcome === "selected") return { outcome: "selected", optionId: outcome.optionId };
  return { outcome: "refused", reason: "the ACP client cancelled the permission request" };
}

/** A question as one free-text field. */
function formOf(request: SubagentInputRequest, sessionId: string): QuestionForm {
  return {
    sessionId,
    mode: "form",
    message: cut(request.message, MAX_QUESTION),
    requestedSchema: {
      type: "object",
      properties: { answer: { type: "string", title: "Answer" } },
      required: ["answer"],
    },
  };
}

/** The client's elicitation answer (untrusted) as the question's answer. */
function answerOf(result: unknown): SubagentInputAnswer {
  const answer = isRecord(result) ? result : {};
  const action = answer.action;
  if (action === "accept") {
    const text = isRecord(answer.content) ? answer.content.answer : undefined;
    return typeof text === "string"
      ? { outcome: "answered", text }
      : { outcome: "refused", reason: "the ACP client accepted the question with no answer" };
  }
  return {
    outcome: "refused",
    reason: action === "decline"
      ? "the ACP client declined the question"
      : "the ACP client dismissed the question",
  };
}
