/**
 * The shared boundary for recursion caps: accept absence or a non-negative
 * safe integer; reject fractions, non-finite numbers, negative values,
 * negative zero and unsafe integers. The service, the in-process driver and
 * the model-facing tool's config all use it.
 *
 * @param value The candidate `maxDepth`.
 * @param label Its name in the error message.
 * @throws {TypeError} when `value` is not a number.
 * @throws {RangeError} when it is a number but not a valid depth.
 *
 * @example
 * ```ts
 * import { assertSubagentMaxDepth } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * assertSubagentMaxDepth(undefined);
 * assertSubagentMaxDepth(2);
 * assert.throws(() => assertSubagentMaxDepth(1.5), RangeError);
 * assert.throws(() => assertSubagentMaxDepth(-0), RangeError);
 * assert.throws(() => assertSubagentMaxDepth("2"), TypeError);
 * ```
 */
export function assertSubagentMaxDepth(
  value: unknown,
  label = "maxDepth",
): asserts value is number | undefined {
  if (value === undefined) return;
  if (typeof value !== "number") {
    throw new TypeError(
      `Invalid ${label}: expected a non-negative safe integer, got ${typeof value}`,
    );
  }
  let problem: string | undefined;
  if (!Number.isFinite(value)) problem = `${value} is not finite`;
  else if (Object.is(value, -0)) problem = "negative zero is not a depth";
  else if (value < 0) problem = `${value} is negative`;
  else if (!Number.isInteger(value)) problem = `${value} is not an integer`;
  else if (!Number.isSafeInteger(value)) {
    problem = `${value} is not a safe integer`;
  }
  if (problem) {
    throw new RangeError(
      `Invalid ${label}: expected a non-negative safe integer, ${problem}`,
    );
  }
}
