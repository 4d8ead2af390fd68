/**
 * The few shape checks the A2A params need, by hand: strict objects,
 * strings, integers, literals, arrays, records, unions. Each answers what
 * zod 4 answered for the same schema, in zod's English wording (`Invalid
 * input: expected string, received number`), with the same issues in the
 * same order, since the messages are part of the contract
 * (`gateway/_validate_test.ts` holds them). Zod itself was ~450 KB of the
 * gateway's edge bundle (bench/README.md, "Edge bundle").
 *
 * A shape pushes its issues and returns nothing: a value that passes is used
 * as given (a strict object refuses unknown keys, so nothing is dropped).
 */

import { formatPath } from "@seam/host";
import { isArray, stringify } from "../core/_builtins.ts";

/** A key on the way to a value. */
export type Key = string | number;

/** What is wrong with one value. */
export interface Issue {
  readonly path: readonly Key[];
  readonly message: string;
  /** The unknown keys, for an object that has some (the message is then a fallback). */
  readonly unknownKeys?: readonly string[];
  /**
   * Whether the value is of the wrong type or value (checks of the value
   * that holds it are then skipped, and a union counts the option as failed
   * outright); false for a check (a minimum, a custom rule) or unknown keys.
   */
  readonly fatal: boolean;
}

/** Checks a value at `path`, pushing what is wrong to `issues`. */
export type Shape = (value: unknown, path: readonly Key[], issues: Issue[]) => void;

/** A shape that may be absent from its object (`undefined`). */
export interface OptionalShape {
  readonly optional: Shape;
}

/** A message, or one chosen by the issue (`undefined`: the default). */
export type CustomMessage =
  | string
  | ((issue: { code: string; input: unknown }) => string | undefined);

function report(
  issues: Issue[],
  path: readonly Key[],
  fallback: string,
  custom: { code: string; input: unknown; message?: CustomMessage; fatal?: boolean },
): void {
  const chosen = typeof custom.message === "function" ? custom.message(custom) : custom.message;
  issues.push({ path, message: chosen ?? fallback, fatal: custom.fatal ?? true });
}

/** The type of a value as zod names it in `received …`. */
function received(value: unknown): string {
  if (typeof value === "number") return Number.isFinite(value) ? "number" : String(value);
  if (typeof value !== "object") return typeof value;
  if (value === null) return "null";
  if (isArray(value)) return "array";
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && value.constructor) {
    return value.constructor.name;
  }
  return "object";
}

function wrongType(
  issues: Issue[],
  path: readonly Key[],
  expected: string,
  input: unknown,
  message?: CustomMessage,
): void {
  report(issues, path, `Invalid input: expected ${expected}, received ${received(input)}`, {
    code: "invalid_type",
    input,
    message,
  });
}

function primitive(value: unknown): string {
  return typeof value === "string" ? stringify(value) : String(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !isArray(value);
}

/** zod runs a length check on anything with a length, even of the wrong type. */
function hasLength(value: unknown): value is { length: number } {
  return value !== null && value !== undefined &&
    (value as { length?: unknown }).length !== undefined;
}

/** `z.unknown()`: anything. */
export const unknown: Shape = () => {};

/** `z.string()`, and with `nonEmpty` `.min(1, nonEmpty)`. */
export function string(nonEmpty?: string): Shape {
  return (value, path, issues) => {
    if (typeof value !== "string") wrongType(issues, path, "string", value);
    if (nonEmpty !== undefined && hasLength(value) && value.length < 1) {
      issues.push({ path, message: nonEmpty, fatal: false });
    }
  };
}

/** `z.boolean()`. */
export const boolean: Shape = (value, path, issues) => {
  if (typeof value !== "boolean") wrongType(issues, path, "boolean", value);
};

/** `z.int()` with `.min(min, …)` and `.max(max, …)`. */
export function int(
  bounds: { min?: number; max?: number; minMessage?: string; maxMessage?: string } = {},
): Shape {
  return (value, path, issues) => {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      return wrongType(issues, path, "number", value);
    }
    if (!Number.isInteger(value)) return wrongType(issues, path, "int", value);
    if (value > Number.MAX_SAFE_INTEGER) {
      issues.push({
        path,
        message: `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`,
        fatal: false,
      });
    } else if (value < Number.MIN_SAFE_INTEGER) {
      issues.push({
        path,
        message: `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`,
        fatal: false,
      });
    }
    if (bounds.min !== undefined && value < bounds.min) {
      issues.push({
        path,
        message: bounds.minMessage ?? `Too small: expected number to be >=${bounds.min}`,
        fatal: false,
      });
    }
    if (bounds.max !== undefined && value > bounds.max) {
      issues.push({
        path,
        message: bounds.maxMessage ?? `Too big: expected number to be <=${bounds.max}`,
        fatal: false,
      });
    }
  };
}

/** `z.literal(values)` and `z.enum(values)`: one of `values`. */
export function oneOf(values: readonly unknown[], message?: CustomMessage): Shape {
  const allowed = new Set(values);
  const fallback = values.length === 1
    ? `Invalid input: expected ${primitive(values[0])}`
    : `Invalid option: expected one of ${values.map(primitive).join("|")}`;
  return (value, path, issues) => {
    if (!allowed.has(value)) {
      report(issues, path, fallback, { code: "invalid_value", input: value, message });
    }
  };
}

/** `z.record(z.string(), z.unknown())`: any plain object. */
export function record(message?: CustomMessage): Shape {
  return (value, path, issues) => {
    const proto = isObject(value) ? Object.getPrototypeOf(value) : undefined;
    if (proto !== Object.prototype && proto !== null) {
      wrongType(issues, path, "record", value, message);
    }
  };
}

/** `z.array(item)`, and with `nonEmpty` `.min(1, nonEmpty)`. */
export function array(
  item: Shape,
  options: { nonEmpty?: string; message?: CustomMessage } = {},
): Shape {
  return (value, path, issues) => {
    if (!isArray(value)) wrongType(issues, path, "array", value, options.message);
    else for (let i = 0; i < value.length; i++) item(value[i], [...path, i], issues);
    if (options.nonEmpty !== undefined && hasLength(value) && value.length < 1) {
      issues.push({ path, message: options.nonEmpty, fatal: false });
    }
  };
}

/** `.optional()`: the key may be absent. */
export function optional(shape: Shape): OptionalShape {
  return { optional: shape };
}

/**
 * `z.strictObject(fields)`: each field checked in order, then the unknown
 * keys, then `rule` (a refinement; only when nothing before was fatal).
 */
export function strictObject(
  fields: Readonly<Record<string, Shape | OptionalShape>>,
  options: {
    message?: CustomMessage;
    rule?: (value: Record<string, unknown>) => string | undefined;
  } = {},
): Shape {
  const entries = Object.entries(fields);
  return (value, path, issues) => {
    if (!isObject(value)) return wrongType(issues, path, "object", value, options.message);
    const start = issues.length;
    for (const [key, field] of entries) {
      const input = value[key];
      if (typeof field !== "function") {
        if (input !== undefined) field.optional(input, [...path, key], issues);
      } else field(input, [...path, key], issues);
    }
    const unknownKeys: string[] = [];
    for (const key in value) if (!Object.hasOwn(fields, key)) unknownKeys.push(key);
    if (unknownKeys.length > 0) {
      issues.push({
        path,
        message: `Unrecognized key${unknownKeys.length > 1 ? "s" : ""}: ${
          unknownKeys.map(primitive).join(", ")
        }`,
        unknownKeys,
        fatal: false,
      });
    }
    if (options.rule && !issues.slice(start).some((issue) => issue.fatal)) {
      const broken = options.rule(value);
      if (broken !== undefined) issues.push({ path, message: broken, fatal: false });
    }
  };
}

/**
 * `z.union(options)`: the first option that passes; failing all, the issues
 * of the one option that failed no type (if exactly one), or one issue.
 */
export function union(options: readonly Shape[], message?: CustomMessage): Shape {
  return (value, path, issues) => {
    const nonFatal: Issue[][] = [];
    for (const option of options) {
      const found: Issue[] = [];
      option(value, path, found);
      if (found.length === 0) return;
      if (!found.some((issue) => issue.fatal)) nonFatal.push(found);
    }
    if (nonFatal.length === 1) issues.push(...nonFatal[0]);
    else report(issues, path, "Invalid input", { code: "invalid_union", input: value, message });
  };
}

/** `z.discriminatedUnion(key, …)`: the option named by `value[key]`. */
export function discriminated(
  key: string,
  options: Readonly<Record<string, Shape>>,
  message?: CustomMessage,
): Shape {
  const names = Object.keys(options);
  return (value, path, issues) => {
    if (!isObject(value)) return wrongType(issues, path, "object", value, message);
    const tag = value[key];
    if (typeof tag === "string" && Object.hasOwn(options, tag)) {
      return options[tag](value, path, issues);
    }
    report(
      issues,
      [...path, key],
      `Invalid discriminator value. Expected ${names.map((name) => `'${name}'`).join(" | ")}`,
      { code: "invalid_union", input: value, message },
    );
  };
}

/**
 * What is wrong with `value` by `shape`, as a refusal lists it: at most five
 * issues, each after its path (`params` for the value itself); `named`
 * words an object's unknown fields (after "unknown fields"), as each binding
 * words them; `undefined` when it fits.
 */
export function shapeIssues(
  shape: Shape,
  value: unknown,
  named: (keys: readonly string[]) => string,
): string[] | undefined {
  const found: Issue[] = [];
  shape(value, [], found);
  if (found.length === 0) return undefined;
  return found.slice(0, 5).map(({ path, message, unknownKeys: keys }) => {
    const where = formatPath("", path) || "params";
    return keys
      ? `${where}: unknown field${keys.length > 1 ? "s" : ""} ${named(keys)}`
      : `${where}: ${message}`;
  });
}
