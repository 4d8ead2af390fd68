// What went wrong in an ACP run, as data (the result's `error`): the one
// place a failure becomes part of a result. The connection and the run throw `AcpError`s (or plain
// errors, classified by the phase they happened in); `resultOf` turns the
// run's output, stop reason and failure into the provider's result.
import { type ContentBlock, type JsonValue, textHead } from "@seam/host";
import type { SubagentResultInput, SubagentStopReason } from "@seam/subagent";

/**
 * A failure's code: the contract's well-known ones where they fit, and the
 * provider's own (`PERMISSION_REFUSED`, `UNSUPPORTED_CONTENT`).
 */
export type AcpFailureCode =
  | "START_FAILED"
  | "CHILD_FAILED"
  | "CONNECTION_LOST"
  | "TIMEOUT"
  | "PROTOCOL_ERROR"
  | "AUTH_REQUIRED"
  | "PERMISSION_REFUSED"
  | "UNSUPPORTED_CONTENT";

/** What went wrong: a stable code, a message for a person, JSON details. */
export interface AcpFailure {
  readonly code: AcpFailureCode;
  readonly message: string;
  readonly data?: { readonly [key: string]: JsonValue };
}

/** An error whose failure code is known where it is thrown. */
export class AcpError extends Error {
  readonly code: AcpFailureCode;
  readonly data: { readonly [key: string]: JsonValue } | undefined;

  constructor(
    code: AcpFailureCode,
    message: string,
    data?: { readonly [key: string]: JsonValue },
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "AcpError";
    this.code = code;
    this.data = data;
  }
}

/** `text` cut to `max` characters and an ellipsis when it is longer (`textHead`, never within a surrogate pair). */
export function cut(text: string, max: number): string {
  return text.length > max ? `${textHead(text, max)}…` : text;
}

/** The most characters of an agent's identifier or JSON {@linkcode quoted} by default. */
const QUOTED_MAX = 200;

/**
 * `value` (the agent's, untrusted) as compact JSON for a message or a log
 * line, {@linkcode cut} to `max` characters: a string before it is quoted
 * (so the quotes stay paired), anything else after.
 */
export function quoted(value: unknown, max: number = QUOTED_MAX): string {
  if (typeof value === "string") return JSON.stringify(cut(value, max));
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return "(not serializable)"; // a nesting too deep to print
  }
  return cut(text ?? String(value), max);
}

/** The most characters of an agent's `error.data` kept, as compact JSON. */
const DATA_CHARS = 4_000;
/** The most characters of it quoted in a message. */
const DATA_IN_MESSAGE_CHARS = 600;

/**
 * `value` (parsed JSON from the agent) if its compact JSON fits in
 * {@linkcode DATA_CHARS}, else that JSON cut to fit, as a string.
 */
export function boundedJson(value: unknown): JsonValue {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return "(not serializable)"; // a nesting too deep to print
  }
  if (text === undefined) return null;
  if (text.length <= DATA_CHARS) return JSON.parse(text) as JsonValue;
  return cut(text, DATA_CHARS);
}

/**
 * The human part of an agent's `error.data`, for a message: the text itself,
 * or its `message` or `details` field (codex, claude), else compact JSON.
 */
export function describeData(data: JsonValue): string {
  let text: string;
  if (typeof data === "string") text = data;
  else if (data !== null && typeof data === "object" && !Array.isArray(data)) {
    const human = [data.message, data.details, data.reason, data.error].find((v) =>
      typeof v === "string" && v !== ""
    );
    text = typeof human === "string" ? human : JSON.stringify(data);
  } else text = JSON.stringify(data);
  return cut(text, DATA_IN_MESSAGE_CHARS);
}

/** The run's result: the child's own words as `output`, what went wrong as `error`. */
export function resultOf(
  output: ContentBlock[],
  stopReason: SubagentStopReason,
  failure: AcpFailure | undefined,
): SubagentResultInput {
  return failure === undefined ? { output, stopReason } : { output, stopReason, error: failure };
}
