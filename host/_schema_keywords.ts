// The shape every keyword's value must have, checked before a schema reaches
// the validator (`@cfworker/json-schema` trusts its schema: a `minLength` of
// "3" or an `items` array under 2020-12 would be silently misread). One table
// instead of a meta-schema: its errors name the keyword and the path, in our
// words, and it refuses what the validator would ignore (an unknown keyword is
// a typo or a vocabulary it does not enforce; a schema never means less than
// it says).
import { childPath } from "./_path.ts";
import { isRecord } from "./unknown.ts";
import { isArray, stringify } from "./_builtins.ts";

/** A problem in a schema: where, which keyword, what. */
export interface SchemaProblem {
  readonly path: string;
  readonly keyword: string | undefined;
  readonly reason: string;
}

/** The drafts the validator runs, by their `$schema` URI. */
export type SchemaDraft = "2020-12" | "2019-09" | "7";

const DRAFTS: Readonly<Record<string, SchemaDraft>> = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "http://json-schema.org/draft-07/schema": "7",
};

/** How deep schemas may nest: hostile input is bounded. */
const MAX_DEPTH = 64;

type Kind =
  | "schema" // a schema (object or boolean)
  | "schemas" // a non-empty array of schemas
  | "schema-map" // an object of schemas
  | "pattern-map" // an object of schemas keyed by regular expressions
  | "count" // a non-negative integer
  | "number"
  | "positive" // a number > 0
  | "string"
  | "regex"
  | "boolean"
  | "names" // an array of unique strings
  | "names-map" // an object of arrays of unique strings
  | "dependencies" // draft 7: an object of schemas or name arrays
  | "type"
  | "enum"
  | "array"
  | "any";

// Each keyword the validator runs (core, applicators, validation, format,
// content and meta-data alike), listed by the kind of value it takes.
const KEYWORDS: ReadonlyMap<string, Kind> = new Map(
  Object.entries(
    {
      string:
        "$schema $id $ref $anchor $comment $recursiveRef format contentEncoding contentMediaType title description",
      "schema-map": "$defs definitions properties dependentSchemas",
      boolean: "$recursiveAnchor uniqueItems deprecated readOnly writeOnly",
      schemas: "allOf anyOf oneOf prefixItems",
      schema:
        "not if then else additionalProperties propertyNames items contains unevaluatedItems unevaluatedProperties contentSchema",
      "pattern-map": "patternProperties",
      type: "type",
      enum: "enum",
      any: "const default",
      positive: "multipleOf",
      number: "maximum minimum exclusiveMaximum exclusiveMinimum",
      count:
        "maxLength minLength maxItems minItems maxContains minContains maxProperties minProperties",
      regex: "pattern",
      names: "required",
      "names-map": "dependentRequired",
      array: "examples",
    } satisfies Partial<Record<Kind, string>>,
  ).flatMap(([kind, names]) => names.split(" ").map((name) => [name, kind as Kind] as const)),
);

/** Keywords of the older drafts only, and what replaced them. */
const OLDER: Readonly<Record<string, string>> = {
  additionalItems: 'use "items" after "prefixItems"',
  dependencies: 'use "dependentRequired" or "dependentSchemas"',
};

/** Keywords the validator does not enforce: refused rather than ignored. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  $dynamicRef: "the validator does not resolve dynamic references (use $ref)",
  $dynamicAnchor: "the validator does not resolve dynamic references (use $anchor)",
  $vocabulary: "custom vocabularies are not supported",
};

const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/** The draft `schema` declares (2020-12 when it declares none), or a problem. */
export function draftOf(schema: unknown, path: string): SchemaDraft | SchemaProblem {
  if (!isRecord(schema) || schema.$schema === undefined) return "2020-12";
  const uri = typeof schema.$schema === "string" ? schema.$schema.replace(/#$/, "") : "";
  return DRAFTS[uri] ?? {
    path: `${path}.$schema`,
    keyword: "$schema",
    reason: `unsupported draft ${stringify(schema.$schema)} (known: ${
      Object.keys(DRAFTS).join(", ")
    })`,
  };
}

/** The first problem in `schema`'s keywords, or `undefined`. */
export function findSchemaProblem(
  schema: unknown,
  path: string,
  draft: SchemaDraft,
): SchemaProblem | undefined {
  return checkNode(schema, path, draft, 0);
}

function checkNode(
  node: unknown,
  path: string,
  draft: SchemaDraft,
  depth: number,
): SchemaProblem | undefined {
  if (typeof node === "boolean") return undefined;
  if (!isRecord(node)) {
    return { path, keyword: undefined, reason: "a schema must be an object or a boolean" };
  }
  if (depth > MAX_DEPTH) {
    return { path, keyword: undefined, reason: `schemas nest deeper than ${MAX_DEPTH} levels` };
  }
  for (const [keyword, value] of Object.entries(node)) {
    const at = `${path}.${keyword}`;
    const fail = (reason: string): SchemaProblem => ({ path: at, keyword, reason });
    if (keyword in UNSUPPORTED) {
      return fail(`"${keyword}" is not supported: ${UNSUPPORTED[keyword]}`);
    }
    let kind: Kind | undefined = KEYWORDS.get(keyword);
    if (draft !== "2020-12") {
      if (keyword === "additionalItems") kind = "schema";
      if (keyword === "items" && isArray(value)) kind = "schemas";
      if (draft === "7" && keyword === "dependencies") kind = "dependencies";
    } else if (keyword in OLDER) {
      return fail(`"${keyword}" is not a 2020-12 keyword: ${OLDER[keyword]}`);
    } else if (keyword === "items" && isArray(value)) {
      return fail('an array of schemas is "prefixItems" in 2020-12 ("items" is one schema)');
    }
    if (kind === undefined) {
      return fail(
        `unknown keyword "${keyword}" (a typo, or an unchecked vocabulary)`,
      );
    }
    const problem = checkValue(kind, value, at, draft, depth, fail);
    if (problem) return problem;
  }
  return undefined;
}

function uniqueStrings(value: unknown): boolean {
  return isArray(value) && value.every((name) => typeof name === "string") &&
    new Set(value).size === value.length;
}

function validRegex(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

function checkValue(
  kind: Kind,
  value: unknown,
  at: string,
  draft: SchemaDraft,
  depth: number,
  fail: (reason: string) => SchemaProblem,
): SchemaProblem | undefined {
  switch (kind) {
    case "schema":
      return checkNode(value, at, draft, depth + 1);
    case "schemas":
      if (!isArray(value) || value.length === 0) {
        return fail("must be a non-empty array of schemas");
      }
      for (const [i, sub] of value.entries()) {
        const problem = checkNode(sub, `${at}[${i}]`, draft, depth + 1);
        if (problem) return problem;
      }
      return undefined;
    case "schema-map":
    case "pattern-map":
      if (!isRecord(value)) return fail("must be an object of schemas");
      for (const [name, sub] of Object.entries(value)) {
        if (kind === "pattern-map" && !validRegex(name)) {
          return fail(`${stringify(name)} is not a valid regular expression`);
        }
        const problem = checkNode(sub, childPath(at, name), draft, depth + 1);
        if (problem) return problem;
      }
      return undefined;
    case "count":
      return typeof value === "number" && Number.isSafeInteger(value) && value >= 0
        ? undefined
        : fail(`must be a non-negative integer, got ${stringify(value)}`);
    case "number":
      return typeof value === "number" ? undefined : fail(
        `must be a number, got ${stringify(value)}`,
      );
    case "positive":
      return typeof value === "number" && value > 0
        ? undefined
        : fail(`must be a number greater than 0, got ${stringify(value)}`);
    case "string":
      return typeof value === "string" ? undefined : fail("must be a string");
    case "regex":
      if (typeof value !== "string") return fail("must be a string");
      return validRegex(value) ? undefined : fail("is not a valid regular expression");
    case "boolean":
      return typeof value === "boolean" ? undefined : fail("must be a boolean");
    case "names":
      return uniqueStrings(value) ? undefined : fail("must be an array of unique property names");
    case "names-map":
      if (!isRecord(value) || !Object.values(value).every(uniqueStrings)) {
        return fail("must map property names to arrays of unique property names");
      }
      return undefined;
    case "dependencies":
      if (!isRecord(value)) return fail("must be an object");
      for (const [name, sub] of Object.entries(value)) {
        if (isArray(sub)) {
          if (!uniqueStrings(sub)) return fail(`${name}: must be unique property names`);
        } else {
          const problem = checkNode(sub, childPath(at, name), draft, depth + 1);
          if (problem) return problem;
        }
      }
      return undefined;
    case "type": {
      const list = isArray(value) ? value : [value];
      if (list.length === 0) return fail("must name a type");
      for (const type of list) {
        if (typeof type !== "string" || !TYPES.has(type)) {
          return fail(`unknown type ${stringify(type)} (known: ${[...TYPES].join(", ")})`);
        }
      }
      return new Set(list).size === list.length ? undefined : fail("names a type twice");
    }
    case "enum":
      return isArray(value) && value.length > 0 ? undefined : fail("must be a non-empty array");
    case "array":
      return isArray(value) ? undefined : fail("must be an array");
    case "any":
      return undefined;
  }
}
