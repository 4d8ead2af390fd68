import assert from "node:assert/strict";
import {
  acceptMaxDepth,
  acceptOutputSchema,
  acceptPersona,
  acceptToolFilter,
  OutputSchemaError,
  SUBAGENT_CAPABILITY_FLAGS,
  SUBAGENT_START_FIELDS,
  SubagentError,
  unsupportedStartFields,
} from "./mod.ts";
import { manualProvider, NO_CAPABILITIES, setup } from "./_test_fixtures.ts";

Deno.test("SUBAGENT_START_FIELDS pairs each start-time field with its capability", () => {
  assert.deepEqual(
    SUBAGENT_START_FIELDS.map((spec) => [spec.field, spec.capability]),
    [
      ["outputSchema", "outputSchema"],
      ["maxDepth", "depthLimit"],
      ["toolFilter", "toolFilter"],
      ["persona", "persona"],
      ["budget", "budget"],
    ],
  );
  assert.deepEqual(
    [...SUBAGENT_START_FIELDS.map((spec) => spec.capability)].sort(),
    [...SUBAGENT_CAPABILITY_FLAGS].sort(),
    "every capability flag has exactly one field",
  );
  assert.ok(Object.isFrozen(SUBAGENT_START_FIELDS) && SUBAGENT_START_FIELDS.every(Object.isFrozen));
});

Deno.test("unsupportedStartFields() names the present fields a provider cannot honour", () => {
  const some = { ...NO_CAPABILITIES, depthLimit: true };
  assert.deepEqual(unsupportedStartFields(some, {}), []);
  assert.deepEqual(
    unsupportedStartFields(some, { maxDepth: 1, persona: "p", toolFilter: undefined })
      .map((spec) => spec.field),
    ["persona"],
  );
});

Deno.test("the start-time checkers copy, check and name the path", async (t) => {
  await t.step("acceptToolFilter() copies and freezes; every fault names its path", () => {
    const source = { allow: ["read"] };
    const filter = acceptToolFilter(source, "config.toolFilter", "install the subagent tool");
    assert.deepEqual(filter, { allow: ["read"] });
    assert.notEqual(filter, source);
    assert.ok(Object.isFrozen(filter) && Object.isFrozen(filter.allow));
    const faults: [unknown, RegExp][] = [
      [[], /^TypeError: Cannot install the subagent tool: x must be an object, got an array$/],
      [{}, /x must name an allow list, a deny list or both/],
      [{ only: [] }, /unknown field x\.only \(known: allow, deny\)/],
      [{ deny: "bash" }, /x\.deny must be an array of tool names/],
      [{ allow: ["ok", ""] }, /x\.allow\[1\] must be a non-empty tool name/],
    ];
    for (const [value, pattern] of faults) {
      assert.throws(() => acceptToolFilter(value, "x", "install the subagent tool"), pattern);
    }
  });
  await t.step("acceptPersona() wants some non-space text", () => {
    assert.equal(acceptPersona("terse"), "terse");
    assert.throws(
      () => acceptPersona("  ", "config.persona"),
      /config\.persona must be a non-empty/,
    );
    assert.throws(() => acceptPersona(3), TypeError);
  });
  await t.step("acceptMaxDepth() is assertSubagentMaxDepth for a present value", () => {
    assert.equal(acceptMaxDepth(0), 0);
    assert.throws(() => acceptMaxDepth(-1, "config.maxDepth"), RangeError);
    assert.throws(() => acceptMaxDepth(undefined), TypeError);
  });
  await t.step("acceptOutputSchema() copies, freezes and checks the root", () => {
    const schema = acceptOutputSchema({ type: "object", properties: {} });
    assert.ok(Object.isFrozen(schema));
    assert.throws(() => acceptOutputSchema({ type: "array" }), OutputSchemaError);
  });
});

Deno.test("start() and the table agree: unsupported first, then the table's checkers", async () => {
  const { root, service, parent } = setup();
  service.registerProvider(manualProvider("none", NO_CAPABILITIES));
  service.registerProvider(manualProvider("all"));
  for (const spec of SUBAGENT_START_FIELDS) {
    const value = spec.field === "outputSchema"
      ? { type: "object" }
      : spec.field === "maxDepth"
      ? 1
      : spec.field === "toolFilter"
      ? { allow: [] }
      : "p";
    assert.throws(
      () => service.start("none", { prompt: "x", parent, [spec.field]: value }),
      (error: unknown) =>
        error instanceof SubagentError && error.code === "UNSUPPORTED_CAPABILITY" &&
        error.message.includes(`capabilities.${spec.capability} is false`),
    );
  }
  assert.throws(
    () => service.start("all", { prompt: "x", parent, toolFilter: { only: [] } } as never),
    /^TypeError: Cannot start subagent: unknown field request\.toolFilter\.only/,
  );
  await root.dispose();
});
