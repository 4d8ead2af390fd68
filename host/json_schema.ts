import { dereference, type Schema, Validator } from "@cfworker/json-schema";
import { BrandedTypeError } from "./brand.ts";
import { formatPath } from "./path.ts";
import { jsonCopy, type JsonValue } from "./json.ts";
import { draftOf, findSchemaProblem, type SchemaDraft } from "./_schema_keywords.ts";
import { inPlaceLoop, schemaNodes } from "./_schema_refs.ts";
import { isZod3, isZod4, zodToJsonSchema } from "./_zod.ts";
import type { ZodLikeSchema } from "./tools.ts";
import { isRecord } from "./unknown.ts";
import { cannot } from "./_invalid.ts";
import { isArray, stringify } from "./_builtins.ts";

/**
 * A JSON Schema (draft 2020-12 unless its `$schema` names 2019-09 or
 * draft-07), as plain JSON data. See {@linkcode checkJsonSchema}.
 */
export type JsonSchema = { readonly [keyword: string]: JsonValue };

/** Thrown by {@linkcode checkJsonSchema} for a schema it refuses. */
export class JsonSchemaError extends BrandedTypeError {
  /** Its brand: a JsonSchemaError made by any copy of this package is recognised. */
  static override readonly brand: string = "@seam/host/JsonSchemaError";
  /** Stable code for callers that branch on it. */
  readonly code = "INVALID_SCHEMA" as const;
  /** Where in the schema the problem sits (`schema.properties.age.minimum`). */
  readonly path: string;
  /** The keyword at fault (`minimum`), when the problem is one keyword's. */
  readonly keyword: string | undefined;
  /** Make the error for the schema node at `path`. */
  constructor(path: string, reason: string, keyword?: string) {
    super(`Invalid ${path}: ${reason}`);
    this.path = path;
    this.keyword = keyword;
  }
}

/** What an accepted schema compiles to: its validator, kept per schema object. */
interface Compiled {
  readonly validator: Validator;
}

const compiled = new WeakMap<object, Compiled>();

/** Compile `schema` (checked): a validator over a private, mutable copy. */
function compile(schema: object, draft: SchemaDraft, path: string): Compiled {
  // The validator annotates the schema objects it is given: give it its own.
  const copy = jsonCopy(schema) as Schema;
  let lookup: Record<string, unknown>;
  try {
    lookup = dereference(copy);
  } catch (error) {
    throw new JsonSchemaError(path, (error as Error).message);
  }
  for (const [node, at] of schemaNodes(copy, path)) {
    const target = (node as { __absolute_ref__?: string }).__absolute_ref__;
    if (target !== undefined && lookup[target] === undefined) {
      throw new JsonSchemaError(
        `${at}.$ref`,
        `${
          stringify(node.$ref)
        } does not resolve to a schema in this document (nothing is fetched: put it under $defs)`,
        "$ref",
      );
    }
  }
  const loop = inPlaceLoop(copy, lookup, path);
  if (loop) {
    throw new JsonSchemaError(
      loop,
      "this $ref leads back to itself without reaching into the value (validating would never end)",
      "$ref",
    );
  }
  return { validator: new Validator(copy, draft, false) };
}

/** Whether every value `schema` accepts is an object (`type: "object"`, or a union of such). */
function objectRooted(schema: unknown, root: unknown, depth = 0): boolean {
  if (depth > 16 || !isRecord(schema)) return false;
  if (schema.type === "object") return true;
  if (isArray(schema.type) && schema.type.length === 1 && schema.type[0] === "object") {
    return true;
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    const branches = schema[keyword];
    if (isArray(branches) && branches.every((sub) => objectRooted(sub, root, depth + 1))) {
      return true;
    }
  }
  if (
    isArray(schema.allOf) && schema.allOf.some((sub) => objectRooted(sub, root, depth + 1))
  ) {
    return true;
  }
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#")) {
    const target = schema.$ref === "#" ? root : pointer(root, schema.$ref.slice(1));
    return objectRooted(target, root, depth + 1);
  }
  return false;
}

/** One reference token of a JSON Pointer in a URI fragment, decoded (`a~1b` is `a/b`). */
function pointerKey(raw: string): string {
  return decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
}

function pointer(root: unknown, path: string): unknown {
  if (!path.startsWith("/")) return undefined;
  let node = root;
  for (const raw of path.slice(1).split("/")) {
    const key = pointerKey(raw);
    if (!isRecord(node) && !isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The validator for `schema` (its problems named from `path`), compiling
 * (and checking) it when it was not yet.
 */
function validatorOf(schema: object, path: string): Validator {
  const known = compiled.get(schema);
  if (known) return known.validator;
  const draft = draftOf(schema, path);
  if (typeof draft !== "string") throw new JsonSchemaError(draft.path, draft.reason, draft.keyword);
  const problem = findSchemaProblem(schema, path, draft);
  if (problem) throw new JsonSchemaError(problem.path, problem.reason, problem.keyword);
  const result = compile(schema, draft, path);
  // Only a frozen schema cannot change after this check: cache only those.
  if (Object.isFrozen(schema)) compiled.set(schema, result);
  return result.validator;
}

/**
 * Check that `schema` (plain JSON data) is a JSON Schema seam can enforce,
 * and, with `objectRoot`, that every value it accepts is an object (its root
 * is `type: "object"`, or an `anyOf`/`oneOf` of such, as a discriminated
 * union is).
 *
 * The schema is standard JSON Schema, draft 2020-12 by default (`$schema`
 * may name 2019-09 or draft-07), validated by `@cfworker/json-schema` (no
 * `eval`: it runs on edge hosts). Every keyword those drafts define is
 * enforced: `type`, `enum`, `const`, the numeric, string, array and object
 * keywords, `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`,
 * `prefixItems`, `patternProperties`, `propertyNames`,
 * `dependentRequired`/`dependentSchemas`, `unevaluatedProperties`/`Items`,
 * `format` (`date-time`, `email`, `uri`, `uuid`, …), and `$ref` to `#`,
 * `#/$defs/…`, an `$anchor` or an `$id` of the same document. The
 * annotations (`title`, `description`, `default`, `examples`, `deprecated`,
 * `readOnly`, `writeOnly`, `$comment`, `content*`) are accepted.
 *
 * Refused, naming the keyword and its path: a keyword value of the wrong
 * shape (`minLength: "3"`, a bad `pattern`), an unknown keyword (a typo is
 * not silently ignored), `$dynamicRef`, a `$ref` that does not resolve within
 * the document (nothing is fetched), and nesting deeper than 64 levels.
 *
 * @throws {JsonSchemaError} naming the path (and `keyword`) of the first problem.
 *
 * @example
 * ```ts
 * import { checkJsonSchema, JsonSchemaError } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * checkJsonSchema({
 *   type: "object",
 *   properties: { tree: { $ref: "#/$defs/node" } },
 *   $defs: { node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } } },
 * }, { objectRoot: true });
 * assert.throws(
 *   () => checkJsonSchema({ type: "object", properties: { n: { minimum: "0" } } }),
 *   (e: unknown) => e instanceof JsonSchemaError && e.path === "schema.properties.n.minimum",
 * );
 * ```
 */
export function checkJsonSchema(
  schema: unknown,
  options: { path?: string; objectRoot?: boolean } = {},
): asserts schema is JsonSchema {
  const path = options.path ?? "schema";
  if (!isRecord(schema)) throw new JsonSchemaError(path, "a schema must be an object");
  validatorOf(schema, path);
  if (options.objectRoot && !objectRooted(schema, schema)) {
    throw new JsonSchemaError(
      `${path}.type`,
      `the root must be type "object" (or an anyOf/oneOf of objects), got ${
        stringify(schema.type ?? null)
      }`,
      "type",
    );
  }
}

/** One way a value fails a schema. */
export interface JsonSchemaIssue {
  /** Where in the value (`value.items[2].name`). */
  readonly path: string;
  /** What is wrong. */
  readonly message: string;
}

/** `#/a/0/b` in `value` as keys (numbers where the value is an array). */
function instanceKeys(value: unknown, location: string): (string | number)[] {
  const keys: (string | number)[] = [];
  if (location === "#" || location === "") return keys;
  let node = value;
  for (const raw of location.replace(/^#\//, "").split("/")) {
    const key = pointerKey(raw);
    if (isArray(node) && /^\d+$/.test(key)) {
      keys.push(Number(key));
      node = node[Number(key)];
    } else {
      keys.push(key);
      node = isRecord(node) ? node[key] : undefined;
    }
  }
  return keys;
}

/** The keywords whose failure is said by the errors beneath them. */
const WRAPPERS = new Set([
  "$ref",
  "$recursiveRef",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "allOf",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependencies",
  "propertyNames",
  "contentSchema",
]);

/** The keywords whose errors beneath are noise (a branch that was not meant). */
const SUMMARIES = new Set(["anyOf", "oneOf", "not", "contains"]);

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}

/**
 * Validate `value` against a schema accepted by {@linkcode checkJsonSchema}.
 * Returns every issue found (empty when valid), each with the path into
 * `value` where it sits; the reasons beneath an `anyOf`/`oneOf` that
 * matched no branch are summed up as one issue there.
 *
 * @throws {JsonSchemaError} for a schema {@linkcode checkJsonSchema} refuses.
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
  if (value === undefined) return [{ path, message: "is missing" }];
  const { valid, errors } = validatorOf(schema, "schema").validate(value);
  if (valid) return [];
  const issues: JsonSchemaIssue[] = [];
  const summarized: string[] = [];
  // Errors come in pre-order: a wrapper (`properties`, `$ref`, …) and then
  // what failed beneath it, which says more. Drop the wrappers, remembering
  // the last one for a `false` schema beneath it.
  let wrapper = "";
  for (const error of errors) {
    const location = error.keywordLocation;
    if (summarized.some((prefix) => location.startsWith(prefix))) continue;
    if (WRAPPERS.has(error.keyword)) {
      wrapper = error.keyword;
      continue;
    }
    if (SUMMARIES.has(error.keyword)) summarized.push(`${location}/`);
    const keys = instanceKeys(value, error.instanceLocation);
    let message = error.error;
    if (error.keyword === "type") {
      const type = /Expected "([^"]*)"/.exec(error.error)?.[1] ?? "";
      const at = keys.reduce<unknown>(
        (node, key) => (node as Record<string | number, unknown>)?.[key],
        value,
      );
      message = `expected ${type.split('", "').join(" or ")}, got ${typeOf(at)}`;
    } else if (error.keyword === "required") {
      const name = /property "(.*)"\.$/.exec(error.error)?.[1];
      if (name !== undefined) keys.push(name);
      message = "is required";
    } else if (error.keyword === "false") {
      message = /Properties$/.test(wrapper)
        ? "is not an allowed property"
        : /Items$|^items$/.test(wrapper)
        ? "is not an allowed item"
        : "is not allowed (its schema is false)";
    } else if (error.keyword === "anyOf") {
      message = "matches none of the anyOf schemas";
    } else if (error.keyword === "oneOf") {
      message = error.error.replace("Instance does", "does");
    } else {
      message = message.replace(/^Instance /, "").replace(/\.$/, "");
    }
    issues.push({ path: formatPath(path, keys), message });
  }
  return issues;
}

/**
 * The JSON Schema of `schema`: a zod 4 schema converted with zod's own
 * `z.toJSONSchema` (what it accepts as input; no `$schema`), or a JSON
 * Schema copied; either way checked by {@linkcode checkJsonSchema} (with
 * `objectRoot`, for an `outputSchema` or tool parameters) and returned as a
 * fresh plain copy. Use it to pass a zod schema where JSON Schema data is
 * expected, such as a delegation's `outputSchema`.
 *
 * @throws {JsonSchemaError} for a schema {@linkcode checkJsonSchema} refuses.
 * @throws {TypeError} for a zod schema with no JSON Schema form (a `z.date()`,
 *   a transform), or a zod 3 schema.
 *
 * @example
 * ```ts
 * import { toJsonSchema } from "@seam/host";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const schema = toJsonSchema(z.object({ answer: z.string() }), { objectRoot: true });
 * assert.deepEqual(schema.required, ["answer"]);
 * ```
 */
export function toJsonSchema(
  schema: JsonSchema | ZodLikeSchema,
  options: { path?: string; objectRoot?: boolean } = {},
): JsonSchema {
  const path = options.path ?? "schema";
  let json: unknown;
  if (isZod4(schema)) {
    try {
      json = jsonCopy(zodToJsonSchema(schema), path);
    } catch (error) {
      throw new TypeError(
        `Cannot convert ${path}: the zod schema has no JSON Schema form (${
          (error as Error).message
        })`,
        { cause: error },
      );
    }
  } else if (isZod3(schema)) {
    cannot(`convert ${path}`, "zod 3 schemas are not supported, use zod 4");
  } else {
    json = jsonCopy(schema, path);
  }
  checkJsonSchema(json, options);
  return json;
}
