import {
  checkJsonSchema,
  JsonSchemaError,
  type JsonSchemaIssue,
  validateJsonSchema,
} from "@seam/host";
import { OutputSchemaError } from "./errors.ts";
import type { OutputSchema } from "./types.ts";

/**
 * Check that `schema` (plain JSON data) is a valid `outputSchema`: standard
 * JSON Schema (draft 2020-12 unless its `$schema` names 2019-09 or
 * draft-07) whose every accepted value is an object (`type: "object"` at
 * the root, or an `anyOf`/`oneOf` of object schemas, as a discriminated
 * union), and that seam can enforce: host's `checkJsonSchema`, validated by
 * `@cfworker/json-schema` (no `eval`, so it runs on edge hosts). Every
 * keyword the draft defines is enforced — tuples (`prefixItems`), records,
 * recursive types through `$ref`/`$defs`, `format`; what cannot be (a
 * `$ref` to another document, a keyword with a malformed value, a `$ref`
 * that loops without reaching into the value) is refused, so a schema never
 * promises more than is checked. A zod schema goes in through the service's
 * request, or `toJsonSchema` from `@seam/host`.
 *
 * @throws {OutputSchemaError} naming the path of the first problem.
 *
 * @example
 * ```ts
 * import { checkOutputSchema, OutputSchemaError } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * checkOutputSchema({ type: "object", properties: { answer: { type: "string" } } });
 * assert.throws(() => checkOutputSchema({ type: "array" }), OutputSchemaError);
 * ```
 */
export function checkOutputSchema(
  schema: unknown,
  path = "outputSchema",
): asserts schema is OutputSchema {
  try {
    checkJsonSchema(schema, { path, objectRoot: true });
  } catch (error) {
    if (error instanceof JsonSchemaError) {
      throw new OutputSchemaError(error.path, error.message, { cause: error });
    }
    throw error;
  }
}

/**
 * Validate a structured value against an accepted `outputSchema`; returns
 * every issue (empty when valid).
 *
 * @example
 * ```ts
 * import { validateStructuredOutput } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const schema = { type: "object", required: ["answer"] };
 * assert.equal(validateStructuredOutput(schema, {}).length, 1);
 * ```
 */
export function validateStructuredOutput(
  schema: OutputSchema,
  value: unknown,
  path = "structured",
): JsonSchemaIssue[] {
  return validateJsonSchema(schema, value, path);
}
