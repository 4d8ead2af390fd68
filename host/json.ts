import { BrandedTypeError } from "./brand.ts";
import { formatPath } from "./path.ts";
import { isArray } from "./_builtins.ts";

/** A value JSON represents without loss. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/**
 * Thrown by {@linkcode jsonCopy} for a value JSON would lose or change.
 * `path` names where it sits (`request.prompt[0].text`).
 */
export class JsonCopyError extends BrandedTypeError {
  /** Its brand: a JsonCopyError made by any copy of this package is recognised. */
  static override readonly brand: string = "@seam/host/JsonCopyError";
  /** Stable code for callers that branch on it. */
  readonly code = "NOT_JSON" as const;
  /** Where the offending value sits. */
  readonly path: string;
  /** Make the error for the value at `path`, described by `reason`. */
  constructor(path: string, reason: string) {
    super(`Cannot copy ${path}: ${reason}`);
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
  return copyRoot(value, path, false);
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
  return copyRoot(value, path, true);
}

/**
 * The objects being copied and the keys into them, outermost first, of
 * every copy under way (a getter may start another: each looks from its own
 * `base`). One array for all copies, so a copy allocates only what it makes
 * (bench/alloc.ts "gateway `SendMessage`"); a fault's path is read off it.
 */
const stack: unknown[] = [];

/**
 * What a failing copy throws (module-private, so no getter can), with
 * `reason` saying why; the path is what the stack holds when it is thrown.
 */
const FAULT = {};
let reason = "";

function copyRoot(value: unknown, root: string, freeze: boolean): JsonValue {
  const base = stack.length;
  try {
    return copy(value, freeze, base);
  } catch (error) {
    const keys = stack.splice(base).filter((entry) => typeof entry !== "object");
    throw error === FAULT
      ? new JsonCopyError(formatPath(root, keys as (string | number)[]), reason)
      : error;
  }
}

function fail(why: string): never {
  reason = why;
  throw FAULT;
}

function copy(value: unknown, freeze: boolean, base: number): JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) fail(`${value} is not a JSON number`);
      if (value === 0 && 1 / value < 0) {
        fail("-0 is not a JSON number (it would become 0)");
      }
      return value;
    case "undefined":
      fail("undefined is not a JSON value");
    // falls through (fail never returns)
    case "function":
      fail("a function is not a JSON value");
    // falls through
    case "symbol":
      fail("a symbol is not a JSON value");
    // falls through
    case "bigint":
      fail("a bigint is not a JSON value");
  }
  if (value === null) return null;
  const object = value as object;
  if (stack.indexOf(object, base) !== -1) fail("the value contains a cycle");
  stack.push(object);
  let out: JsonValue[] | Record<string, JsonValue>;
  if (isArray(object)) {
    if (Object.getPrototypeOf(object) !== Array.prototype) {
      fail("an Array subclass is not a plain JSON array");
    }
    const length = object.length;
    const array: JsonValue[] = new Array(length);
    for (let i = 0; i < length; i++) {
      stack.push(i);
      if (!(i in object)) fail("a hole in an array is not JSON");
      array[i] = copy(object[i], freeze, base);
      stack.pop();
    }
    out = array;
  } else {
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      const kind = typeof proto?.constructor === "function"
        ? proto.constructor.name || "anonymous class"
        : "non-plain object";
      fail(`a ${kind} instance is not a plain JSON object`);
    }
    if (Object.getOwnPropertySymbols(object).length > 0) {
      fail("symbol keys are not JSON");
    }
    const record: Record<string, JsonValue> = {};
    // for-in walks Object.keys' order without allocating its array; the own
    // check keeps out anything enumerable added to Object.prototype.
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      const field = (object as Record<string, unknown>)[key];
      if (field === undefined) continue;
      stack.push(key);
      const copied = copy(field, freeze, base);
      stack.pop();
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
  stack.pop();
  if (freeze) Object.freeze(out);
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
