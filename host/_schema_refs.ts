// What the validator cannot be trusted with about references: a `$ref` that
// leads back to itself without reaching into the value makes
// `@cfworker/json-schema` recurse until the stack overflows, so such a loop
// is refused when the schema is checked.
import type { Schema } from "@cfworker/json-schema";
import { formatPath } from "./path.ts";
import { isRecord } from "./unknown.ts";
import { isArray } from "./_builtins.ts";

/** Every schema object in `node` with the JSON path to it (the validator's own copy). */
export function* schemaNodes(
  node: unknown,
  path: string,
): Generator<[Record<string, unknown>, string]> {
  if (!isRecord(node)) return;
  yield [node, path];
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === "const" || keyword === "enum" || keyword === "default") continue;
    if (keyword === "examples") continue;
    if (isArray(value)) {
      for (const [i, sub] of value.entries()) yield* schemaNodes(sub, `${path}.${keyword}[${i}]`);
    } else if (isRecord(value)) {
      if (
        keyword === "properties" || keyword === "patternProperties" || keyword === "$defs" ||
        keyword === "definitions" || keyword === "dependentSchemas" || keyword === "dependencies"
      ) {
        for (const [name, sub] of Object.entries(value)) {
          yield* schemaNodes(sub, formatPath(`${path}.${keyword}`, [name]));
        }
      } else {
        yield* schemaNodes(value, `${path}.${keyword}`);
      }
    }
  }
}

/** Keywords that apply a subschema to the same value (not to a part of it). */
const IN_PLACE = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"];

/**
 * The path of a `$ref` that reaches itself through in-place subschemas only
 * (`$ref`, `allOf`, `not`, …, never `properties` or `items`): validating
 * would recurse forever on the same value. `undefined` when there is none.
 */
export function inPlaceLoop(
  root: Schema,
  lookup: Record<string, unknown>,
  path: string,
): string | undefined {
  const paths = new Map<object, string>();
  for (const [node, at] of schemaNodes(root, path)) paths.set(node, at);
  const state = new Map<object, "visiting" | "done">();
  const visit = (node: unknown): string | undefined => {
    if (!isRecord(node) || state.get(node) === "done") return undefined;
    state.set(node, "visiting");
    const next: unknown[] = [];
    const target = (node as { __absolute_ref__?: string }).__absolute_ref__;
    const refs = [target === undefined ? undefined : lookup[target]];
    if (node.$recursiveRef !== undefined) refs.push(root);
    for (const referred of refs) {
      // A cycle always closes through a reference: name the one that closes it.
      if (isRecord(referred) && state.get(referred) === "visiting") {
        return `${paths.get(node) ?? path}.${target === undefined ? "$recursiveRef" : "$ref"}`;
      }
      if (referred !== undefined) next.push(referred);
    }
    for (const keyword of IN_PLACE) {
      const value = node[keyword];
      if (isArray(value)) next.push(...value);
      else if (keyword === "dependentSchemas" && isRecord(value)) {
        next.push(...Object.values(value));
      } else if (isRecord(value)) next.push(value);
    }
    for (const sub of next) {
      const found = visit(sub);
      if (found) return found;
    }
    state.set(node, "done");
    return undefined;
  };
  for (const node of paths.keys()) {
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}
