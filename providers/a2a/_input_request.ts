// What an interrupted remote task asks, as an input request for the run's
// parent, and the message that answers it. Pure: `_run.ts` asks and sends.
import type { JsonValue } from "@seam/host";
import type { SubagentInputAnswer, SubagentInputAsk, SubagentInputRelay } from "@seam/subagent";
import type { Message } from "@a2a-js/sdk";
import { RemoteProtocolError } from "./_async.ts";
import { SEAM_EXTENSION_URI } from "./_extension.ts";
import {
  blocksToParts,
  dataPart,
  type Piece,
  TaskStates,
  textOfPieces,
  userMessage,
} from "./_wire.ts";

/** What the remote task asks: the request, where it comes from, the remote request's id. */
export interface RemoteAsk {
  readonly ask: SubagentInputAsk;
  /** The run ids below this run (a seam gateway's request). */
  readonly relay?: SubagentInputRelay;
  /** The id a seam gateway's answer names. */
  readonly remoteId?: string;
  /**
   * The tool call the remote waits on, answered in the remote's convention:
   * ADK's long-running call by its `function_response`; with `approval`,
   * Mastra's tool needing approval by `{approved}`.
   */
  readonly functionCall?: { readonly id?: string; readonly name: string; readonly approval?: true };
}

/** The choices of a Mastra tool's approval: what its server resumes with as `{approved}`. */
const APPROVAL = [
  { id: "approve", label: "Approve", kind: "allow_once" },
  { id: "decline", label: "Decline", kind: "reject_once" },
] as const;

/** At most this much of a question's data is put into its words. */
const MAX_DATA_WORDS = 500;

const clip = (text: string): string =>
  text.length > MAX_DATA_WORDS ? `${text.slice(0, MAX_DATA_WORDS)}…` : text;

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The input request of an interrupted task, from its status message: a seam
 * gateway's structured request (the data part under the seam extension:
 * kind, message, toolCall, options, authentication, its run path), else a
 * question (INPUT_REQUIRED) or an authentication request (AUTH_REQUIRED) in
 * the message's words. `ownPath` is this run's path (the prefix a seam
 * gateway's path repeats).
 *
 * @throws {RemoteProtocolError} for a seam request that is not an object or has no id.
 */
export function remoteAskOf(
  pieces: readonly Piece[],
  state: number,
  taskId: string | undefined,
  ownPath: readonly string[],
): RemoteAsk {
  for (const piece of pieces) {
    if (piece.type !== "data" || !isRecord(piece.data)) continue;
    const ext = piece.data[SEAM_EXTENSION_URI];
    if (!isRecord(ext) || ext.inputRequest === undefined) continue;
    return seamAsk(ext.inputRequest, ownPath);
  }
  const said = textOfPieces(pieces).trim();
  const data = pieces.find((p) => p.type === "data") as { data: JsonValue } | undefined;
  const mastra = data && state === TaskStates.INPUT_REQUIRED
    ? mastraAsk(data.data, said, taskId)
    : undefined;
  if (mastra) return mastra;
  if (said === "" && data && state === TaskStates.INPUT_REQUIRED) return dataAsk(data.data, taskId);
  const auth = state === TaskStates.AUTH_REQUIRED;
  const fallback = auth
    ? `The remote agent needs authentication to go on (task "${taskId}")`
    : `The remote agent needs more input to go on (task "${taskId}")`;
  return { ask: { kind: auth ? "authentication" : "question", message: said || fallback } };
}

/**
 * A question that holds only data, put into words: a function call (ADK's
 * long-running call, `{name, args, id}`) says what it calls with which
 * arguments and carries them as the request's `toolCall`; other data is
 * quoted.
 */
function dataAsk(data: JsonValue, taskId: string | undefined): RemoteAsk {
  const task = `task "${taskId}"`;
  if (isRecord(data) && typeof data.name === "string" && data.name !== "") {
    const args = data.args ?? {};
    const id = typeof data.id === "string" ? data.id : undefined;
    return {
      ask: {
        kind: "question",
        message: `The remote agent calls "${data.name}" with ${
          clip(JSON.stringify(args))
        } and waits for its result (${task}); answer with the result`,
        toolCall: { name: data.name, kind: "function_call", rawInput: args },
      },
      functionCall: { id, name: data.name },
    };
  }
  return {
    ask: {
      kind: "question",
      message: `The remote agent needs more input to go on (${task}); it sent ${
        clip(JSON.stringify(data))
      }`,
    },
  };
}

/**
 * Mastra's suspended tool call (its A2A server's data part
 * `{suspendPayload: {toolCallId, toolName, args}}`, beside generic words):
 * a tool needing approval (no `suspendPayload` of its own) is a permission
 * request naming the tool and its arguments; a tool that suspended itself
 * asks a question about that call, in Mastra's words (the tool's own
 * message). Undefined for any other data.
 */
function mastraAsk(
  data: JsonValue,
  said: string,
  taskId: string | undefined,
): RemoteAsk | undefined {
  const payload = isRecord(data) ? data.suspendPayload : undefined;
  if (!isRecord(payload)) return undefined;
  const { toolName: name, toolCallId: id, args = {} } = payload;
  if (typeof name !== "string" || name === "" || typeof id !== "string") return undefined;
  const toolCall = { name, rawInput: args };
  if (payload.suspendPayload !== undefined) {
    return { ask: { kind: "question", message: said, toolCall } };
  }
  return {
    ask: {
      kind: "permission",
      message: `The remote agent asks to call "${name}" with ${
        clip(JSON.stringify(args))
      } (task "${taskId}")`,
      toolCall,
      options: APPROVAL,
    },
    functionCall: { id, name, approval: true },
  };
}

function seamAsk(value: JsonValue, ownPath: readonly string[]): RemoteAsk {
  if (!isRecord(value)) {
    throw new RemoteProtocolError("the seam gateway sent an input request that is not an object");
  }
  const { id, runId, path, kind, message, toolCall, options, authentication } = value;
  if (typeof id !== "string" || id === "") {
    throw new RemoteProtocolError("the seam gateway sent an input request with no id");
  }
  const ask: Record<string, unknown> = { kind, message };
  if (toolCall !== undefined) ask.toolCall = toolCall;
  if (options !== undefined) ask.options = options;
  if (authentication !== undefined) ask.authentication = authentication;
  // Its path repeats this run's (the gateway was given it); what follows is below.
  let below: unknown[] | undefined;
  if (Array.isArray(path)) {
    const repeats = path.length > ownPath.length && ownPath.every((step, i) => path[i] === step);
    below = repeats ? path.slice(ownPath.length) : path;
  }
  if ((below === undefined || below.length === 0) && typeof runId === "string") below = [runId];
  return {
    ask: ask as unknown as SubagentInputAsk,
    relay: below && below.length > 0 ? { below: below as string[] } : undefined,
    remoteId: id,
  };
}

/**
 * The message that answers the remote task: for a seam gateway, the seam
 * extension's `answer` naming the remote request (so the option is exact,
 * the data whole), with the answer in words beside it; for ADK's
 * long-running function call, its `function_response` part; for Mastra's
 * tool approval, `{approved}` as data beside the words; for any other
 * agent, the words and `answer.data` as a data part (words that only repeat
 * the data are not sent twice).
 */
export function answerMessage(
  answer: SubagentInputAnswer,
  remoteId: string | undefined,
  ids: { taskId: string; contextId: string | undefined; depth: number },
  functionCall?: RemoteAsk["functionCall"],
): Message {
  const on = { contextId: ids.contextId, taskId: ids.taskId };
  if (functionCall?.approval) {
    // Mastra's convention: a tool's approval resumes with {approved, reason?}.
    const approved = answer.outcome === "selected" && answer.optionId === APPROVAL[0].id;
    const decision: { [key: string]: JsonValue } = { approved };
    if (answer.outcome === "refused") decision.reason = answer.reason;
    return userMessage([
      ...blocksToParts([{ type: "text", text: approved ? "approve" : "decline" }]),
      dataPart(decision),
    ], on);
  }
  if (functionCall) {
    // ADK's convention: the answer to a long-running call is its function_response data part.
    return userMessage([functionResponse(functionCall, answer)], on);
  }
  const text = answer.outcome === "selected"
    ? answer.optionId
    : answer.outcome === "answered"
    ? answer.text
    : `refused: ${answer.reason}`;
  const data = answer.outcome === "answered" ? answer.data : undefined;
  const seam = remoteId !== undefined;
  const parts = data && !seam && text === JSON.stringify(data)
    ? []
    : blocksToParts([{ type: "text", text }]);
  if (data && !seam) parts.push(dataPart(data));
  return userMessage(parts, {
    ...on,
    metadata: seam
      ? { [SEAM_EXTENSION_URI]: { depth: ids.depth, answer: { requestId: remoteId, ...answer } } }
      : undefined,
    extensions: seam ? [SEAM_EXTENSION_URI] : undefined,
  });
}

/**
 * An ADK `function_response` data part answering `call` with `answer`: its
 * data as the response; words that are a JSON object, that object; other
 * words `{result}`; an option `{result: optionId}`; a refusal `{error}`.
 */
function functionResponse(
  call: NonNullable<RemoteAsk["functionCall"]>,
  answer: SubagentInputAnswer,
) {
  let response: JsonValue;
  if (answer.outcome === "answered") {
    let parsed: JsonValue | undefined = answer.data;
    try {
      parsed ??= JSON.parse(answer.text);
    } catch { /* words, not JSON */ }
    response = isRecord(parsed) ? parsed : { result: answer.text };
  } else if (answer.outcome === "selected") {
    response = { result: answer.optionId };
  } else {
    response = { error: answer.reason };
  }
  const data = { ...(call.id ? { id: call.id } : {}), name: call.name, response };
  return dataPart(data, { adk_type: "function_response" });
}
