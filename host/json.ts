import { childPath } from "./_path.ts";

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
export class JsonCopyError extends TypeError {
  /** Stable code for callers that branch on it. */
  readonly code = "NOT_JSON" as const;
  /** Where the offending value sits. */
  readonly path: string;
  /** Make the error for the value at `path`, described by `reason`. */
  constructor(path: string, reason: string) {
    super(`Cannot copy ${path}: ${reason}`);
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
  return copy(value, path, []);
}

function copy(value: unknown, path: string, ancestors: object[]): JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) {
        throw new JsonCopyError(path, `${value} is not a JSON number`);
      }
      if (Object.is(value, -0)) {
        throw new JsonCopyError(path, "-0 is not a JSON number (it would become 0)");
      }
      return value;
    case "undefined":
      throw new JsonCopyError(path, "undefined is not a JSON value");
    case "function":
      throw new JsonCopyError(path, "a function is not a JSON value");
    case "symbol":
      throw new JsonCopyError(path, "a symbol is not a JSON value");
    case "bigint":
      throw new JsonCopyError(path, "a bigint is not a JSON value");
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.includes(object)) {
    throw new JsonCopyError(path, "the value contains a cycle");
  }
  ancestors.push(object);
  try {
    if (Array.isArray(object)) return copyArray(object, path, ancestors);
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      const kind = typeof proto?.constructor === "function"
        ? proto.constructor.name || "anonymous class"
        : "non-plain object";
      throw new JsonCopyError(
        path,
        `a ${kind} instance is not a plain JSON object`,
      );
    }
    if (Object.getOwnPropertySymbols(object).length > 0) {
      throw new JsonCopyError(path, "symbol keys are not JSON");
    }
    const out: Record<string, JsonValue> = {};
    for (const key of Object.keys(object)) {
      const field = (object as Record<string, unknown>)[key];
      if (field === undefined) continue;
      const copied = copy(field, childPath(path, key), ancestors);
      if (key === "__proto__") {
        Object.defineProperty(out, key, {
          value: copied,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        out[key] = copied;
      }
    }
    return out;
  } finally {
    ancestors.pop();
  }
}

function copyArray(
  array: unknown[],
  path: string,
  ancestors: object[],
): JsonValue[] {
  if (Object.getPrototypeOf(array) !== Array.prototype) {
    throw new JsonCopyError(path, "an Array subclass is not a plain JSON array");
  }
  const length = array.length;
  const out: JsonValue[] = new Array(length);
  for (let i = 0; i < length; i++) {
    if (!(i in array)) {
      throw new JsonCopyError(`${path}[${i}]`, "a hole in an array is not JSON");
    }
    out[i] = copy(array[i], `${path}[${i}]`, ancestors);
  }
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
