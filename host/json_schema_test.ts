import assert from "node:assert/strict";
import { checkJsonSchema, JsonSchemaError, validateJsonSchema } from "./mod.ts";

Deno.test("checkJsonSchema() accepts the documented subset", () => {
  checkJsonSchema({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "t",
    type: "object",
    required: ["a"],
    additionalProperties: false,
    properties: {
      a: { type: ["string", "null"], minLength: 1, maxLength: 9, pattern: "^x", format: "email" },
      b: { type: "array", items: { enum: [1, 2] }, minItems: 0, maxItems: 3 },
      c: { anyOf: [{ type: "integer", minimum: 0 }, { const: "none" }] },
      d: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.5 },
    },
  }, { objectRoot: true });
});

Deno.test("checkJsonSchema() rejects what is outside the subset, naming the path", async (t) => {
  const cases: [string, unknown, string][] = [
    ["$ref", { type: "object", properties: { a: { $ref: "#/x" } } }, 'schema.properties["a"].$ref'],
    ["oneOf", { oneOf: [] }, "schema.oneOf"],
    ["an unknown type", { type: "date" }, "schema.type"],
    ["a non-object schema", { type: "object", properties: { a: true } }, 'schema.properties["a"]'],
    ["a bad required", { required: "a" }, "schema.required"],
    ["a negative minLength", { minLength: -1 }, "schema.minLength"],
    ["a bad pattern", { pattern: "(" }, "schema.pattern"],
    ["an empty enum", { enum: [] }, "schema.enum"],
  ];
  for (const [label, schema, path] of cases) {
    await t.step(label, () => {
      assert.throws(() => checkJsonSchema(schema), (error: unknown) => {
        assert.ok(error instanceof JsonSchemaError);
        assert.equal(error.path, path);
        return true;
      });
    });
  }
  await t.step("a non-object root when one is required", () => {
    assert.throws(
      () => checkJsonSchema({ type: "string" }, { objectRoot: true }),
      /root must be type "object"/,
    );
    assert.throws(() => checkJsonSchema({}, { objectRoot: true }), /root must be type "object"/);
  });
});

Deno.test("validateJsonSchema() reports every issue with its path", () => {
  const schema = {
    type: "object",
    required: ["name", "tags"],
    additionalProperties: false,
    properties: {
      name: { type: "string", minLength: 2, pattern: "^[a-z]+$" },
      age: { type: "integer", minimum: 0, maximum: 150 },
      tags: { type: "array", items: { type: "string" }, maxItems: 2 },
      kind: { enum: ["a", "b"] },
      either: { anyOf: [{ type: "string" }, { type: "null" }] },
    },
  };
  assert.deepEqual(validateJsonSchema(schema, { name: "ada", tags: [], either: null }), []);
  const issues = validateJsonSchema(schema, {
    name: "A",
    age: 1.5,
    tags: ["x", 2, "z"],
    kind: "c",
    either: 3,
    extra: true,
  });
  assert.deepEqual(issues.map((i) => i.path).sort(), [
    "value.age",
    "value.either",
    "value.extra",
    "value.kind",
    "value.name",
    "value.name",
    "value.tags",
    "value.tags[1]",
  ]);
  assert.deepEqual(validateJsonSchema(schema, {}).map((i) => i.path), ["value.name", "value.tags"]);
  assert.equal(validateJsonSchema(schema, [])[0].message, "expected object, got array");
});
