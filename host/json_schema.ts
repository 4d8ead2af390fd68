import { hasBrand } from "./brand.ts";
import { childPath } from "./_path.ts";
import type { JsonValue } from "./json.ts";

/**
 * A JSON Schema in the subset seam understands (see {@linkcode checkJsonSchema}).
 */
export type JsonSchema = { readonly [keyword: string]: JsonValue };

const JSON_SCHEMA_ERROR_BRAND = Symbol.for("@seam/host/JsonSchemaError");

/** Thrown by {@linkcode checkJsonSchema} for a schema outside the subset. */
export class JsonSchemaError extends TypeError {
  /** Recognises a JsonSchemaError made by any copy of this package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value, JSON_SCHEMA_ERROR_BRAND);
  }
  /** Stable code for callers that branch on it. */
  readonly code = "INVALID_SCHEMA" as const;
  /** Where in the schema the problem sits (`schema.properties.age.type`). */
  readonly path: string;
  /** Make the error for the schema node at `path`. */
  constructor(path: string, reason: string) {
    super(`Invalid ${path}: ${reason}`);
    Object.defineProperty(this, JSON_SCHEMA_ERROR_BRAND, { value: true });
    this.name = "JsonSchemaError";
    this.path = path;
  }
}

const TYPES = new Set([
  "object",
  "array",
  "string",
  "number",
  "integer",
  "boolean",
  "null",
]);

/** Keywords that only annotate: accepted, never enforced. */
const ANNOTATIONS = new Set([
  "$schema",
  "$id",
  "title",
  "description",
  "default",
  "examples",
  "format",
]);

const KEYWORDS = new Set([
  ...ANNOTATIONS,
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
]);

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function nonNegativeInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Check that `schema` (plain JSON data) uses only the supported subset of JSON
 * Schema, and, with `objectRoot`, that its root is `type: "object"`.
 *
 * The subset: `type` (a name or a list of `object`, `array`, `string`,
 * `number`, `integer`, `boolean`, `null`), `properties`, `required`,
 * `additionalProperties` (boolean or schema), `items` (one schema), `enum`,
 * `const`, `anyOf`, `minLength`, `maxLength`, `pattern`, `minimum`,
 * `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers), `minItems`,
 * `maxItems`; the annotations `$schema`, `$id`, `title`, `description`,
 * `default`, `examples` and `format` are accepted and not enforced. Anything
 * else (`$ref`, `allOf`, `oneOf`, `not`, `if`, …) is rejected, so a schema
 * never means less than it says.
 *
 * @throws {JsonSchemaError} naming the path of the first problem.
 *
 * @example
 * ```ts
 * import { checkJsonSchema, JsonSchemaError } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * checkJsonSchema({ type: "object", properties: { n: { type: "integer" } } }, { objectRoot: true });
 * assert.throws(() => checkJsonSchema({ $ref: "#/x" }), JsonSchemaError);
 * ```
 */
export function checkJsonSchema(
  schema: unknown,
  options: { path?: string; objectRoot?: boolean } = {},
): asserts schema is JsonSchema {
  const path = options.path ?? "schema";
  checkNode(schema, path);
  if (options.objectRoot) {
    const type = (schema as JsonSchema).type;
    if (type !== "object") {
      throw new JsonSchemaError(
        `${path}.type`,
        `the root must be type "object", got ${JSON.stringify(type ?? null)}`,
      );
    }
  }
}

function checkNode(node: unknown, path: string): void {
  if (!isRecord(node)) {
    throw new JsonSchemaError(path, "a schema must be an object");
  }
  for (const [keyword, value] of Object.entries(node)) {
    const at = `${path}.${keyword}`;
    if (!KEYWORDS.has(keyword)) {
      throw new JsonSchemaError(
        at,
        `keyword "${keyword}" is outside the supported subset`,
      );
    }
    switch (keyword) {
      case "type": {
        const list = Array.isArray(value) ? value : [value];
        if (list.length === 0) throw new JsonSchemaError(at, "must name a type");
        for (const type of list) {
          if (typeof type !== "string" || !TYPES.has(type)) {
            throw new JsonSchemaError(at, `unknown type ${JSON.stringify(type)}`);
          }
        }
        break;
      }
      case "properties":
        if (!isRecord(value)) throw new JsonSchemaError(at, "must be an object");
        for (const [name, sub] of Object.entries(value)) {
          checkNode(sub, `${at}[${JSON.stringify(name)}]`);
        }
        break;
      case "required":
        if (
          !Array.isArray(value) ||
          value.some((name) => typeof name !== "string")
        ) {
          throw new JsonSchemaError(at, "must be an array of property names");
        }
        break;
      case "additionalProperties":
        if (typeof value !== "boolean") checkNode(value, at);
        break;
      case "items":
        checkNode(value, at);
        break;
      case "enum":
        if (!Array.isArray(value) || value.length === 0) {
          throw new JsonSchemaError(at, "must be a non-empty array");
        }
        break;
      case "anyOf":
        if (!Array.isArray(value) || value.length === 0) {
          throw new JsonSchemaError(at, "must be a non-empty array of schemas");
        }
        value.forEach((sub, i) => checkNode(sub, `${at}[${i}]`));
        break;
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
        if (!nonNegativeInteger(value)) {
          throw new JsonSchemaError(at, "must be a non-negative integer");
        }
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        if (typeof value !== "number") throw new JsonSchemaError(at, "must be a number");
        break;
      case "pattern":
        if (typeof value !== "string") throw new JsonSchemaError(at, "must be a string");
        try {
          new RegExp(value, "u");
        } catch {
          throw new JsonSchemaError(at, `is not a valid regular expression`);
        }
        break;
    }
  }
}

/** One way a value fails a schema. */
export interface JsonSchemaIssue {
  /** Where in the value (`value.items[2].name`). */
  readonly path: string;
  /** What is wrong. */
  readonly message: string;
}

/**
 * Validate `value` against a schema already accepted by
 * {@linkcode checkJsonSchema}. Returns every issue found (empty when valid).
 *
 * @example
 * ```ts
 * import { validateJsonSchema } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const schema = { type: "object", required: ["n"], properties: { n: { type: "integer" } } };
 * assert.deepEqual(validateJsonSchema(schema, { n: 1 }), []);
 * assert.equal(validateJsonSchema(schema, { n: 1.5 })[0].path, "value.n");
 * ```
 */
export function validateJsonSchema(
  schema: JsonSchema,
  value: unknown,
  path = "value",
): JsonSchemaIssue[] {
  const issues: JsonSchemaIssue[] = [];
  validateNode(schema, value, path, issues);
  return issues;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function matchesType(type: string, value: unknown): boolean {
  switch (type) {
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "object":
      return isRecord(value);
    default:
      return typeOf(value) === type;
  }
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) =>
    Object.hasOwn(b, key) &&
    jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])
  );
}

function validateNode(
  schema: JsonSchema,
  value: unknown,
  path: string,
  issues: JsonSchemaIssue[],
): void {
  const fail = (message: string) => issues.push({ path, message });
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
    if (!types.some((type) => matchesType(type, value))) {
      fail(`expected ${types.join(" or ")}, got ${typeOf(value)}`);
      return;
    }
  }
  if (schema.const !== undefined && !jsonEqual(schema.const, value)) {
    fail(`expected ${JSON.stringify(schema.const)}`);
  }
  if (
    Array.isArray(schema.enum) && !schema.enum.some((option) => jsonEqual(option, value))
  ) {
    fail(`expected one of ${JSON.stringify(schema.enum)}`);
  }
  if (Array.isArray(schema.anyOf)) {
    const passes = schema.anyOf.some((sub) =>
      validateJsonSchema(sub as JsonSchema, value, path).length === 0
    );
    if (!passes) fail("matches none of the anyOf schemas");
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) {
      fail(`must be at least ${schema.minLength} characters`);
    }
    if (typeof schema.maxLength === "number" && length > schema.maxLength) {
      fail(`must be at most ${schema.maxLength} characters`);
    }
    if (
      typeof schema.pattern === "string" &&
      !new RegExp(schema.pattern, "u").test(value)
    ) {
      fail(`must match /${schema.pattern}/`);
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      fail(`must be >= ${schema.minimum}`);
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      fail(`must be <= ${schema.maximum}`);
    }
    if (
      typeof schema.exclusiveMinimum === "number" &&
      value <= schema.exclusiveMinimum
    ) {
      fail(`must be > ${schema.exclusiveMinimum}`);
    }
    if (
      typeof schema.exclusiveMaximum === "number" &&
      value >= schema.exclusiveMaximum
    ) {
      fail(`must be < ${schema.exclusiveMaximum}`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) {
      fail(`must hold at least ${schema.minItems} items`);
    }
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
      fail(`must hold at most ${schema.maxItems} items`);
    }
    if (isRecord(schema.items)) {
      value.forEach((item, i) =>
        validateNode(schema.items as JsonSchema, item, `${path}[${i}]`, issues)
      );
    }
  }
  if (isRecord(value)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const name of schema.required as string[]) {
        if (!Object.hasOwn(value, name)) {
          issues.push({ path: childPath(path, name), message: "is required" });
        }
      }
    }
    for (const [key, item] of Object.entries(value)) {
      const sub = properties[key];
      if (isRecord(sub)) {
        validateNode(sub, item, childPath(path, key), issues);
      } else if (schema.additionalProperties === false) {
        issues.push({ path: childPath(path, key), message: "is not an allowed property" });
      } else if (isRecord(schema.additionalProperties)) {
        validateNode(schema.additionalProperties, item, childPath(path, key), issues);
      }
    }
  }
}
