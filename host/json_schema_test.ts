import assert from "node:assert/strict";
import { z } from "zod";
import {
  checkJsonSchema,
  deepFreeze,
  type JsonSchema,
  JsonSchemaError,
  toJsonSchema,
  validateJsonSchema,
} from "./mod.ts";

const Tree: z.ZodType<{ name: string; children: unknown[] }> = z.object({
  name: z.string(),
  get children() {
    return z.array(Tree);
  },
});

/** The shapes people write, each as zod, with a value it accepts and one it refuses. */
const SHAPES: [string, z.ZodType, unknown, unknown][] = [
  ["a flat object", z.object({ a: z.string(), n: z.number() }), { a: "x", n: 1 }, { a: "x" }],
  [
    "a nested object",
    z.object({ user: z.object({ name: z.string() }) }),
    { user: { name: "ada" } },
    { user: { name: 3 } },
  ],
  [
    "optional and nullable fields",
    z.object({ a: z.string().optional(), b: z.string().nullable() }),
    { b: null },
    { a: null, b: null },
  ],
  ["a string enum", z.object({ level: z.enum(["low", "high"]) }), { level: "low" }, {
    level: "mid",
  }],
  [
    "an array of objects",
    z.object({ items: z.array(z.object({ id: z.int() })).min(1) }),
    { items: [{ id: 1 }] },
    { items: [] },
  ],
  [
    "numbers with bounds",
    z.object({ score: z.number().min(0).max(1), count: z.int().positive() }),
    { score: 0.5, count: 2 },
    { score: 2, count: 0 },
  ],
  [
    "string formats and patterns",
    z.object({ email: z.email(), when: z.iso.datetime(), code: z.string().regex(/^[A-Z]{3}$/) }),
    { email: "ada@example.com", when: "2026-12-01T10:00:00Z", code: "ABC" },
    { email: "not an email", when: "yesterday", code: "abc" },
  ],
  ["a literal", z.object({ version: z.literal(2) }), { version: 2 }, { version: 3 }],
  [
    "a discriminated union",
    z.object({
      shape: z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("circle"), r: z.number() }),
        z.object({ kind: z.literal("square"), side: z.number() }),
      ]),
    }),
    { shape: { kind: "square", side: 2 } },
    { shape: { kind: "circle", side: 2 } },
  ],
  [
    "a tuple",
    z.object({ point: z.tuple([z.number(), z.number()]) }),
    { point: [1, 2] },
    { point: [1, "2"] },
  ],
  [
    "a record",
    z.object({ scores: z.record(z.string(), z.number()) }),
    { scores: { ada: 1, bob: 2 } },
    { scores: { ada: "1" } },
  ],
  [
    "a recursive type",
    z.object({ tree: Tree }),
    { tree: { name: "root", children: [{ name: "leaf", children: [] }] } },
    { tree: { name: "root", children: [{ name: "leaf" }] } },
  ],
];

Deno.test("checkJsonSchema() accepts the everyday shapes, and validateJsonSchema() enforces them", async (t) => {
  for (const [label, zod, good, bad] of SHAPES) {
    await t.step(label, () => {
      // zod's own JSON Schema export: the JSON Schema people get from their tools.
      const schema = deepFreeze(toJsonSchema(zod as never, { objectRoot: true }));
      checkJsonSchema(schema, { objectRoot: true });
      assert.deepEqual(validateJsonSchema(schema, good), [], "the good value passes");
      assert.equal(zod.safeParse(good).success, true, "zod agrees it is good");
      const issues = validateJsonSchema(schema, bad);
      assert.ok(issues.length > 0, `the bad value fails: ${JSON.stringify(bad)}`);
      assert.equal(zod.safeParse(bad).success, false, "zod agrees it is bad");
      for (const issue of issues) assert.match(issue.path, /^value/);
    });
  }
});

Deno.test("checkJsonSchema() resolves $ref within the document and refuses the rest", async (t) => {
  const tree = {
    type: "object",
    properties: { root: { $ref: "#/$defs/node" } },
    $defs: {
      node: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string" },
          kids: { type: "array", items: { $ref: "#/$defs/node" } },
        },
      },
    },
  };
  await t.step("$defs and a recursive $ref", () => {
    checkJsonSchema(tree, { objectRoot: true });
    assert.deepEqual(validateJsonSchema(tree, { root: { name: "a", kids: [{ name: "b" }] } }), []);
    assert.deepEqual(validateJsonSchema(tree, { root: { name: "a", kids: [{}] } }), [
      { path: "value.root.kids[0].name", message: "is required" },
    ]);
  });
  await t.step("$ref to #, to an $anchor", () => {
    const list = {
      type: "object",
      properties: { next: { anyOf: [{ $ref: "#" }, { type: "null" }] } },
    };
    checkJsonSchema(list);
    assert.deepEqual(validateJsonSchema(list, { next: { next: null } }), []);
    assert.equal(validateJsonSchema(list, { next: { next: 1 } }).length, 1);
    const anchored = {
      type: "object",
      properties: { a: { $ref: "#leaf" } },
      $defs: { x: { $anchor: "leaf", type: "string" } },
    };
    checkJsonSchema(anchored);
    assert.equal(validateJsonSchema(anchored, { a: 1 })[0].path, "value.a");
  });
  await t.step("a $ref that loops back without reaching into the value", () => {
    const loops: [unknown, string][] = [
      [
        { type: "object", properties: { a: { $ref: "#/properties/a" } } },
        "schema.properties.a.$ref",
      ],
      [{ type: "object", allOf: [{ $ref: "#" }] }, "schema.allOf[0].$ref"],
      [{
        type: "object",
        $defs: { x: { anyOf: [{ $ref: "#/$defs/y" }] }, y: { not: { $ref: "#/$defs/x" } } },
        properties: { p: { $ref: "#/$defs/x" } },
      }, ""],
    ];
    for (const [schema, path] of loops) {
      assert.throws(() => checkJsonSchema(schema), (error: unknown) => {
        assert.ok(error instanceof JsonSchemaError, String(error));
        assert.equal(error.keyword, "$ref");
        if (path) assert.equal(error.path, path);
        assert.match(error.message, /leads back to itself/);
        return true;
      });
    }
  });
  await t.step("a $ref that does not resolve, or points outside", () => {
    for (const ref of ["#/$defs/missing", "#/properties", "https://example.com/schema.json"]) {
      assert.throws(
        () => checkJsonSchema({ type: "object", properties: { a: { $ref: ref } } }),
        (error: unknown) => {
          assert.ok(error instanceof JsonSchemaError);
          assert.equal(error.path, "schema.properties.a.$ref");
          assert.equal(error.keyword, "$ref");
          assert.match(error.message, /does not resolve/);
          return true;
        },
      );
    }
  });
});

Deno.test("checkJsonSchema() names the keyword and path of a bad schema", async (t) => {
  const cases: [string, unknown, string, string | undefined][] = [
    [
      "a string minimum",
      { properties: { n: { minimum: "0" } } },
      "schema.properties.n.minimum",
      "minimum",
    ],
    ["a negative minLength", { minLength: -1 }, "schema.minLength", "minLength"],
    ["a bad pattern", { pattern: "(" }, "schema.pattern", "pattern"],
    ["an unknown type", { type: "date" }, "schema.type", "type"],
    ["a typo", { type: "object", requried: ["a"] }, "schema.requried", "requried"],
    ["an empty anyOf", { anyOf: [] }, "schema.anyOf", "anyOf"],
    [
      "a bad branch",
      { oneOf: [{ type: "string" }, { maxItems: 1.5 }] },
      "schema.oneOf[1].maxItems",
      "maxItems",
    ],
    ["required not names", { required: "a" }, "schema.required", "required"],
    ["an items array under 2020-12", { items: [{}] }, "schema.items", "items"],
    ["$dynamicRef", { $dynamicRef: "#x" }, "schema.$dynamicRef", "$dynamicRef"],
    [
      "an unknown draft",
      { $schema: "http://json-schema.org/draft-04/schema#" },
      "schema.$schema",
      "$schema",
    ],
    ["a non-schema subschema", { properties: { a: 3 } }, "schema.properties.a", undefined],
    [
      "an odd property name",
      { properties: { "a b": { type: 1 } } },
      'schema.properties["a b"].type',
      "type",
    ],
  ];
  for (const [label, schema, path, keyword] of cases) {
    await t.step(label, () => {
      assert.throws(() => checkJsonSchema(schema), (error: unknown) => {
        assert.ok(error instanceof JsonSchemaError, String(error));
        assert.equal(error.code, "INVALID_SCHEMA");
        assert.equal(error.path, path);
        assert.equal(error.keyword, keyword);
        assert.ok(error.message.startsWith(`Invalid ${path}: `), error.message);
        return true;
      });
    });
  }
  await t.step("nesting is bounded", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 100; i++) deep = { items: deep };
    assert.throws(() => checkJsonSchema(deep), /nest deeper than 64 levels/);
  });
  await t.step("an older draft keeps its keywords", () => {
    const draft7 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "array",
      items: [{ type: "string" }],
      additionalItems: false,
    };
    checkJsonSchema(draft7);
    assert.deepEqual(validateJsonSchema(draft7, ["a"]), []);
    assert.equal(validateJsonSchema(draft7, ["a", "b"]).length, 1);
  });
});

Deno.test("checkJsonSchema() with objectRoot wants objects only", () => {
  checkJsonSchema({ type: "object" }, { objectRoot: true });
  checkJsonSchema({
    oneOf: [{ type: "object" }, { $ref: "#/$defs/b" }],
    $defs: { b: { type: "object" } },
  }, { objectRoot: true });
  for (
    const schema of [{ type: "string" }, {}, { type: "array" }, {
      anyOf: [{ type: "object" }, { type: "null" }],
    }]
  ) {
    assert.throws(
      () => checkJsonSchema(schema, { objectRoot: true }),
      (error: unknown) =>
        error instanceof JsonSchemaError && error.keyword === "type" &&
        /root must be type "object"/.test(error.message),
    );
  }
});

Deno.test("validateJsonSchema() reports every issue with its path", () => {
  const schema: JsonSchema = {
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
  const byPath = new Map(issues.map((i) => [i.path, i.message]));
  assert.equal(byPath.get("value.extra"), "is not an allowed property");
  assert.equal(byPath.get("value.either"), "matches none of the anyOf schemas");
  assert.equal(byPath.get("value.tags[1]"), "expected string, got integer");
  assert.deepEqual(validateJsonSchema(schema, {}).map((i) => i.path), ["value.name", "value.tags"]);
  assert.equal(validateJsonSchema(schema, [])[0].message, "expected object, got array");
  assert.deepEqual(validateJsonSchema(schema, undefined), [{
    path: "value",
    message: "is missing",
  }]);
});

Deno.test("toJsonSchema() converts zod with z.toJSONSchema and refuses what has no JSON form", () => {
  const schema = toJsonSchema(z.object({ answer: z.string(), n: z.int().optional() }));
  assert.equal(schema.$schema, undefined);
  assert.deepEqual(schema.required, ["answer"]);
  assert.deepEqual(toJsonSchema({ type: "object" }), { type: "object" });
  assert.throws(
    () => toJsonSchema(z.object({ when: z.date() }) as never),
    /has no JSON Schema form/,
  );
  assert.throws(() => toJsonSchema(z.string() as never, { objectRoot: true }), JsonSchemaError);
  assert.throws(() => toJsonSchema({ type: "object", x: new Date() } as never), /Date/);
});
