import {
  checkJsonSchema,
  JsonSchemaError,
  type JsonSchemaIssue,
  validateJsonSchema,
} from "@seam/host";
import { OutputSchemaError } from "./errors.ts";
import type { OutputSchema } from "./types.ts";

/**
 * Check that `schema` (plain JSON data) is a valid `outputSchema`: rooted at
 * `type: "object"` and within the JSON Schema subset seam enforces.
 *
 * The subset: `type` (a name or a list of `object`, `array`, `string`,
 * `number`, `integer`, `boolean`, `null`), `properties`, `required`,
 * `additionalProperties` (boolean or schema), `items` (one schema), `enum`,
 * `const`, `anyOf`, `minLength`, `maxLength`, `pattern`, `minimum`,
 * `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minItems`, `maxItems`;
 * the annotations `$schema`, `$id`, `title`, `description`, `default`,
 * `examples` and `format` are accepted and not enforced. Anything else
 * (`$ref`, `allOf`, `oneOf`, `not`, `if`, …) is rejected, so a schema never
 * promises more than is checked.
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
