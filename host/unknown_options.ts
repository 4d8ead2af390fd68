import { describe } from "./content.ts";
import { isRecord } from "./unknown.ts";

/** Where the options checked sit, and what to say after the known ones. */
export interface RefuseUnknownOptionsOptions {
  /**
   * The path of these options in the caller's object, e.g. `limits`: an
   * unknown key is then named `limits.maxLiveTask`, and options that are no
   * object `limits`.
   */
  readonly under?: string;
  /** Said after the known ones, e.g. where a misplaced option belongs. */
  readonly hint?: string;
}

/**
 * Refuse an options object holding a key that is not one of `known`: a
 * misspelt option would otherwise mean its default, without a word. Throws a
 * `TypeError` whose message is `Cannot ${action}: unknown option ${key}
 * (known: ${known.join(", ")})` for the first such key, and `Cannot
 * ${action}: options must be an object, got …` for options that are no
 * object; `undefined` options (every default) pass. Every constructor of the seam packages checks its options
 * with it.
 *
 * @param action What was being done, as the message says it: `create gateway`.
 * @param options The options given.
 * @param known Every option the caller takes.
 * @param where The options' path in the caller's object (`under`), and a `hint`.
 * @throws {TypeError} naming the unknown option and the known ones.
 *
 * @example
 * ```ts
 * import { refuseUnknownOptions } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const known = ["name", "host"];
 * refuseUnknownOptions('create provider "spawn"', { name: "helper" }, known);
 * assert.throws(
 *   () => refuseUnknownOptions('create provider "spawn"', { nmae: "helper" }, known),
 *   { name: "TypeError", message: 'Cannot create provider "spawn": unknown option nmae (known: name, host)' },
 * );
 * assert.throws(
 *   () => refuseUnknownOptions("create gateway", { maxLiveTask: 1 }, ["maxLiveTasks"], { under: "limits" }),
 *   /unknown option limits\.maxLiveTask \(known: maxLiveTasks\)/,
 * );
 * ```
 */
export function refuseUnknownOptions(
  action: string,
  options: object | undefined,
  known: readonly string[],
  where?: RefuseUnknownOptionsOptions,
): void {
  if (options === undefined) return;
  const under = where?.under;
  let problem: string | undefined;
  if (!isRecord(options)) {
    problem = `${under ?? "options"} must be an object, got ${describe(options)}`;
  } else {
    // `for…in` and no closure: an agent's creation runs this twice, and the
    // happy path allocates nothing (Object.keys(…).find cost ~100 B per agent).
    for (const key in options) {
      if (Object.hasOwn(options, key) && !known.includes(key)) {
        const hint = where?.hint;
        problem = `unknown option ${under ? `${under}.` : ""}${key} (known: ${known.join(", ")}${
          hint ? `; ${hint}` : ""
        })`;
        break;
      }
    }
  }
  if (problem !== undefined) throw new TypeError(`Cannot ${action}: ${problem}`);
}
