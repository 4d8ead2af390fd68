// What went wrong, as data: a thrown error (or a remote end) as the
// `result.error` of a run, `{code, message, data}`, with the well-known
// codes of `@seam/subagent` where they fit.
import { messageOf, textHead } from "@seam/host";
import type { SubagentFailure } from "@seam/subagent";
import {
  ConnectionLost,
  type FailureData,
  isA2AError,
  isNetworkError,
  OutputLimitError,
  RemoteHttpError,
  RemoteProtocolError,
  TimedOut,
} from "./_async.ts";

/** The most characters of what went wrong in a run's error message (the remote's words can be any length). */
const MAX_WHY_CHARS = 2_000;

/** `text` clipped to `max` characters, saying how many were left out. */
export function clipped(text: string, max = MAX_WHY_CHARS): string {
  if (text.length <= max) return text;
  const head = textHead(text, max); // never between the halves of a surrogate pair
  return `${head}… (${text.length - head.length} more characters)`;
}

/** A failure, `data` left out when empty. */
export function failure(code: string, message: string, data?: FailureData): SubagentFailure {
  return data === undefined || Object.keys(data).length === 0
    ? { code, message }
    : { code, message, data };
}

/**
 * The failure of a run that threw `error` during `call` (the request under
 * way), what it says clipped to 2,000 characters (after "the remote agent
 * refused it for a limit" for an HTTP 429). `starting`: no task existed yet, so a refusal is `START_FAILED`;
 * `status`: the HTTP status the failing request was answered with, if any.
 *
 * | thrown | code |
 * |---|---|
 * | a bound ran out (`timeoutMs`, `idleTimeoutMs`, `deadlineMs`) | `TIMEOUT` |
 * | HTTP 401 / 403 | `AUTH_REQUIRED` |
 * | a redirect not followed | `REDIRECT_REFUSED` |
 * | more output than `maxOutputChars` | `OUTPUT_LIMIT` |
 * | a malformed or unexpected event, an OK answer that cannot be read | `PROTOCOL_ERROR` |
 * | a stream lost and not re-attached | `CONNECTION_LOST` |
 * | anything else before the task existed | `START_FAILED` |
 * | a broken connection after | `CONNECTION_LOST` |
 * | an A2A error answer after | `CHILD_FAILED` |
 */
export function failureOf(
  error: unknown,
  call: string,
  starting: boolean,
  status?: number,
): SubagentFailure {
  // A 429 is a refusal for a limit over there (a seam gateway's caps), not a broken connection.
  const limited = status === 429 ? "the remote agent refused it for a limit (HTTP 429): " : "";
  const message = `The A2A run failed (${call}): ${limited}${clipped(messageOf(error))}`;
  const base: FailureData = status === undefined ? { call } : { call, status };
  if (error instanceof TimedOut) return failure("TIMEOUT", message, { ...base, ...error.data });
  if (error instanceof RemoteHttpError) {
    const code = error.status === 401 || error.status === 403
      ? "AUTH_REQUIRED"
      : "REDIRECT_REFUSED";
    return failure(code, message, { ...base, ...error.data });
  }
  if (error instanceof OutputLimitError) {
    return failure("OUTPUT_LIMIT", message, { ...base, ...error.data });
  }
  if (error instanceof ConnectionLost) {
    return failure("CONNECTION_LOST", message, { ...base, ...error.data });
  }
  if (error instanceof RemoteProtocolError) return failure("PROTOCOL_ERROR", message, base);
  const a2a = isA2AError(error) ? { a2aError: (error as Error).name, ...codeOf(error) } : {};
  if (starting) return failure("START_FAILED", message, { ...base, ...a2a });
  if (isNetworkError(error)) return failure("CONNECTION_LOST", message, base);
  return failure("CHILD_FAILED", message, { ...base, ...a2a });
}

/** The JSON-RPC code of an SDK error, when it carries one. */
function codeOf(error: unknown): FailureData {
  const code = a2aCodeOf(error);
  return code === undefined ? {} : { a2aCode: code };
}

/** The JSON-RPC (A2A) error code an SDK error carries, if any. */
export function a2aCodeOf(error: unknown): number | undefined {
  const code = (error as { envelopeCode?: unknown } | undefined)?.envelopeCode;
  return typeof code === "number" ? code : undefined;
}

/**
 * The failure of a run cancelled here whose remote task may go on: the
 * remote refused `CancelTask` (or did not answer it in time). Its `data`
 * says so (`remoteCancel`); the run still ends `aborted`.
 */
export function cancelRefused(taskId: string, remoteCancel: FailureData): SubagentFailure {
  return failure(
    "REMOTE_CANCEL_REFUSED",
    `The run was cancelled, but the remote agent refused CancelTask for task "${taskId}" (${remoteCancel.message}); its task may still run`,
    { call: "CancelTask", taskId, remoteCancel },
  );
}
