import { hasBrand } from "./brand.ts";
import { formatPath } from "./path.ts";

/** A value JSON represents without loss. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

const JSON_COPY_ERROR_BRAND = Symbol.for("@seam/host/JsonCopyError");

/**
 * Thrown by {@linkcode jsonCopy} for a value JSON would lose or change.
 * `path` names where it sits (`request.prompt[0].text`).
 */
export class JsonCopyError extends TypeError {
  /** Recognises a JsonCopyError made by any copy of this package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value, JSON_COPY_ERROR_BRAND);
  }
  /** Stable code for callers that branch on it. */
  readonly code = "NOT_JSON" as const;
  /** Where the offending value sits. */
  readonly path: string;
  /** Make the error for the value at `path`, described by `reason`. */
  constructor(path: string, reason: string) {
    super(`Cannot copy ${path}: ${reason}`);
    Object.defineProperty(this, JSON_COPY_ERROR_BRAND, { value: true });
    this.name = "JsonCopyError";
    this.path = path;
  }
}

/**
 * Copy `value` in one pass, reading every property (getters included) exactly
 * once, and reject what a JSON round trip would lose or change: functions,
 * symbols (as values or keys), bigint, `NaN`, `±Infinity`, `-0`, class
 * instances (`Date`, `Map`, `Set`, …), `undefined` or holes in arrays and
 * cycles. `undefined` object properties are dropped, as JSON drops them.
 * Shared (acyclic) references are copied twice, as JSON would.
 *
 * @param value The value to copy.
 * @param path The name of `value` in error messages.
 * @returns A fresh plain copy sharing nothing with `value`.
 * @throws {JsonCopyError} naming the path of the first offending value.
 *
 * @example
 * ```ts
 * import { jsonCopy, JsonCopyError } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const copy = jsonCopy({ a: [1, "two"], skip: undefined });
 * assert.deepEqual(copy, { a: [1, "two"] });
 * assert.throws(
 *   () => jsonCopy({ when: new Date() }, "options"),
 *   (e: unknown) => e instanceof JsonCopyError && e.path === "options.when",
 * );
 * ```
 */
export function jsonCopy(value: unknown, path = "value"): JsonValue {
  return copy(value, { root: path, ancestors: [], keys: [], freeze: false });
}

/**
 * {@linkcode jsonCopy} that freezes the copy as it builds it: one pass where
 * `deepFreeze(jsonCopy(value))` takes two.
 *
 * @example
 * ```ts
 * import { frozenJsonCopy } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const copy = frozenJsonCopy({ list: [{ n: 1 }] }) as { list: { n: number }[] };
 * assert.ok(Object.isFrozen(copy.list[0]));
 * ```
 */
export function frozenJsonCopy(value: unknown, path = "value"): JsonValue {
  return copy(value, { root: path, ancestors: [], keys: [], freeze: true });
}

interface CopyState {
  readonly root: string;
  /** The objects being copied, outermost first: a repeat is a cycle. */
  readonly ancestors: object[];
  /** The keys leading to the current value; rendered only for an error. */
  readonly keys: (string | number)[];
  readonly freeze: boolean;
}

function fail(state: CopyState, reason: string): never {
  throw new JsonCopyError(formatPath(state.root, state.keys), reason);
}

function copy(value: unknown, state: CopyState): JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) fail(state, `${value} is not a JSON number`);
      if (value === 0 && 1 / value < 0) {
        fail(state, "-0 is not a JSON number (it would become 0)");
      }
      return value;
    case "undefined":
      fail(state, "undefined is not a JSON value");
    // falls through (fail never returns)
    case "function":
      fail(state, "a function is not a JSON value");
    // falls through
    case "symbol":
      fail(state, "a symbol is not a JSON value");
    // falls through
    case "bigint":
      fail(state, "a bigint is not a JSON value");
  }
  if (value === null) return null;
  const object = value as object;
  const { ancestors, keys } = state;
  if (ancestors.includes(object)) fail(state, "the value contains a cycle");
  ancestors.push(object);
  let out: JsonValue[] | Record<string, JsonValue>;
  if (Array.isArray(object)) {
    if (Object.getPrototypeOf(object) !== Array.prototype) {
      fail(state, "an Array subclass is not a plain JSON array");
    }
    const length = object.length;
    const array: JsonValue[] = new Array(length);
    for (let i = 0; i < length; i++) {
      keys.push(i);
      if (!(i in object)) fail(state, "a hole in an array is not JSON");
      array[i] = copy(object[i], state);
      keys.pop();
    }
    out = array;
  } else {
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      const kind = typeof proto?.constructor === "function"
        ? proto.constructor.name || "anonymous class"
        : "non-plain object";
      fail(state, `a ${kind} instance is not a plain JSON object`);
    }
    if (Object.getOwnPropertySymbols(object).length > 0) {
      fail(state, "symbol keys are not JSON");
    }
    const record: Record<string, JsonValue> = {};
    // for-in walks Object.keys' order without allocating its array; the own
    // check keeps out anything enumerable added to Object.prototype.
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      const field = (object as Record<string, unknown>)[key];
      if (field === undefined) continue;
      keys.push(key);
      const copied = copy(field, state);
      keys.pop();
      if (key === "__proto__") {
        Object.defineProperty(record, key, {
          value: copied,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        record[key] = copied;
      }
    }
    out = record;
  }
  ancestors.pop();
  if (state.freeze) Object.freeze(out);
  return out;
}

/**
 * Freeze `value` and everything reachable from it, in place, and return it.
 * Use it on values you own (a {@linkcode jsonCopy} result): it never copies.
 *
 * @example
 * ```ts
 * import { deepFreeze } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const value = deepFreeze({ list: [{ n: 1 }] });
 * assert.ok(Object.isFrozen(value.list[0]));
 * ```
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && (typeof value === "object" || typeof value === "function")) {
    if (!Object.isFrozen(value)) {
      Object.freeze(value);
      for (const key of Reflect.ownKeys(value as object)) {
        deepFreeze((value as Record<PropertyKey, unknown>)[key]);
      }
    }
  }
  return value;
}
