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
const texts = new WeakMap<object, string>();

/** Remember that `value` serializes to `json` (as `JSON.stringify` gave or took it). */
export function rememberJson(value: object, json: string): void {
  texts.set(value, json);
}

/**
 * `JSON.stringify(result)`, reusing a remembered text for `result` itself or
 * for `result.task` when it is the only field (`{ task }`).
 */
export function stringifyResult(result: unknown): string {
  if (typeof result === "object" && result !== null) {
    const own = texts.get(result);
    if (own !== undefined) return own;
    const task = (result as { task?: unknown }).task;
    if (typeof task === "object" && task !== null && onlyTask(result)) {
      const text = texts.get(task);
      if (text !== undefined) return `{"task":${text}}`;
    }
  }
  return JSON.stringify(result);
}

function onlyTask(result: object): boolean {
  for (const key in result) if (key !== "task") return false;
  return true;
}
