/**
 * The JSON text of task records the memory store serialized when it packed
 * them, so the response that answers the same object reuses it instead of
 * serializing it again: a blocking `SendMessage` answers the very record its
 * run's end stored. Serializing a terminal task twice was ~9% of a
 * `SendMessage`'s CPU (bench/alloc.ts, row "gateway `SendMessage`";
 * bench/gateway_cpu.ts).
 *
 * Only the gateway's own records are remembered (those it hands the store),
 * never an object the store hands out: a store wrapping the memory store may
 * change what its `get` answers, and the answer must be what it returned.
 * Whoever changes a record stores it again, which remembers the new text, so
 * the text answered is always the record as last stored.
 */

import { stringify } from "../core/_builtins.ts";
// The last texts remembered, in a ring: a blocking send answers its task a
// few microtasks after the store packed it, with only the other requests in
// flight packing theirs in between (a text not found any more is serialized
// again). A ring, not a WeakMap keyed by the records: V8's scavenger keeps
// the young keys of an old WeakMap alive, so every task record (its whole
// graph) was promoted to the old generation with its entry
// (bench/promoted.ts: ~800 bytes per SendMessage); a ring holds only its
// last few at any scavenge.
const RECENT = 64;
const values: (object | undefined)[] = [];
const texts: (string | undefined)[] = [];
let next = 0;

/** Remember that `value` serializes to `json` (as `JSON.stringify` gave or took it). */
export function rememberJson(value: object, json: string): void {
  values[next] = value;
  texts[next] = json;
  next = (next + 1) % RECENT;
}

/** The text last remembered for `value`: the newest entry wins, so a record stored again answers as stored. */
function textOf(value: object): string | undefined {
  for (let i = 1; i <= RECENT; i++) {
    const at = (next - i + RECENT) % RECENT;
    if (values[at] === value) return texts[at];
  }
  return undefined;
}

/**
 * `JSON.stringify(result)`, reusing a remembered text for `result` itself or
 * for `result.task` when it is the only field (`{ task }`).
 */
export function stringifyResult(result: unknown): string {
  if (typeof result === "object" && result !== null) {
    const own = textOf(result);
    if (own !== undefined) return own;
    const task = (result as { task?: unknown }).task;
    if (typeof task === "object" && task !== null && onlyTask(result)) {
      const text = textOf(task);
      if (text !== undefined) return `{"task":${text}}`;
    }
  }
  return stringify(result);
}

function onlyTask(result: object): boolean {
  for (const key in result) if (key !== "task") return false;
  return true;
}
