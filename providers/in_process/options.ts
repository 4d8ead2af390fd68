/**
 * The check every in-process provider makes of its options: an object,
 * with no option it does not know (a misspelt `host` silently meant "the
 * parent's host").
 *
 * @module
 */

/**
 * Throw a `TypeError` unless `options` is an object whose every key is in
 * `known`: `Cannot create the spawn provider: unknown option "hots" (known:
 * name, host)`.
 *
 * @example
 * ```ts
 * import { refuseUnknownOptions } from "@seam/subagent-in-process";
 * import assert from "node:assert/strict";
 *
 * refuseUnknownOptions("spawn", { name: "s" }, ["name", "host"]);
 * assert.throws(
 *   () => refuseUnknownOptions("spawn", { hots: 1 }, ["name", "host"]),
 *   /Cannot create the spawn provider: unknown option "hots" \(known: name, host\)/,
 * );
 * ```
 */
export function refuseUnknownOptions(
  provider: string,
  options: unknown,
  known: readonly string[],
): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`Cannot create the ${provider} provider: options must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new TypeError(
        `Cannot create the ${provider} provider: unknown option "${key}" (known: ${
          known.join(", ")
        })`,
      );
    }
  }
}
