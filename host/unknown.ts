import { isArray } from "./_builtins.ts";
/**
 * Whether `value` is a record: a non-null object that is not an array (the
 * shape of a JSON object, a request, an options bag).
 *
 * @example
 * ```ts
 * import { isRecord } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.ok(isRecord({ a: 1 }));
 * assert.ok(!isRecord([1]) && !isRecord(null) && !isRecord("text"));
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !isArray(value);
}

/**
 * The message of anything thrown: an `Error`'s message (its name when the
 * message is empty), followed by its `cause`'s message in parentheses when
 * the cause is an `Error` the message does not already quote; anything else
 * as `String(value)`.
 *
 * @example
 * ```ts
 * import { messageOf } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.equal(messageOf(new Error("no route")), "no route");
 * const cause = new Error("ECONNREFUSED");
 * assert.equal(messageOf(new Error("fetch failed", { cause })), "fetch failed (ECONNREFUSED)");
 * assert.equal(messageOf("plain"), "plain");
 * ```
 */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = error.message || error.name;
  const cause = error.cause;
  if (cause instanceof Error && cause.message !== "" && !message.includes(cause.message)) {
    return `${message} (${cause.message})`;
  }
  return message;
}

/**
 * {@linkcode messageOf}, followed by the error's `code` in parentheses when
 * it has a string one the message does not already name: how a tool's
 * output or a refusal words an error, so the code can be acted on.
 *
 * @example
 * ```ts
 * import { describeError } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const error = Object.assign(new Error("no provider"), { code: "NO_PROVIDER" });
 * assert.equal(describeError(error), "no provider (NO_PROVIDER)");
 * assert.equal(describeError(new Error("NO_PROVIDER: none")), "NO_PROVIDER: none");
 * ```
 */
export function describeError(error: unknown): string {
  const message = messageOf(error);
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}
