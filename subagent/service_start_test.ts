import assert from "node:assert/strict";
import { InactiveScopeError, JsonCopyError } from "@seam/host";
import { OutputSchemaError, SubagentError, type SubagentStartRequest } from "./mod.ts";
import { ALL_CAPABILITIES, manualProvider, NO_CAPABILITIES, setup } from "./_test_fixtures.ts";

Deno.test("start() throws NO_PROVIDER naming what is registered", async () => {
  const { root, service, parent } = setup();
  service.registerProvider(manualProvider("spawn"));
  assert.throws(
    () => service.start("fork", { prompt: "hi", parent }),
    (error: unknown) =>
      error instanceof SubagentError && error.code === "NO_PROVIDER" &&
      /"fork".*registered: spawn/.test(error.message),
  );
  assert.throws(() => service.start(42 as never, { prompt: "hi", parent }), TypeError);
  await root.dispose();
});

Deno.test("start() reads every caller field exactly once", async () => {
  const { root, service, parent } = setup();
  const provider = manualProvider("p");
  service.registerProvider(provider);
  const reads: Record<string, number> = {};
  const values: Record<string, unknown> = {
    prompt: "task",
    parent,
    signal: new AbortController().signal,
    agentOptions: { model: "m" },
    outputSchema: { type: "object" },
    maxDepth: 2,
    toolFilter: { deny: ["x"] },
    persona: "You are terse.",
  };
  const request = {};
  for (const [key, value] of Object.entries(values)) {
    Object.defineProperty(request, key, {
      enumerable: true,
      get() {
        reads[key] = (reads[key] ?? 0) + 1;
        return value;
      },
    });
  }
  const run = service.start("p", request as SubagentStartRequest);
  assert.deepEqual(reads, Object.fromEntries(Object.keys(values).map((k) => [k, 1])));
  await run.dispose();
  await root.dispose();
});

Deno.test("start() checks capabilities in order before any child exists", async (t) => {
  const full: SubagentStartRequest = {
    prompt: "task",
    parent: undefined as never,
    outputSchema: { type: "object" },
    maxDepth: 1,
    toolFilter: { allow: [] },
    persona: "p",
  };
  const cases: [string, Partial<typeof ALL_CAPABILITIES>, string][] = [
    ["outputSchema first", {}, "request.outputSchema"],
    ["then maxDepth", { outputSchema: true }, "request.maxDepth"],
    ["then toolFilter", { outputSchema: true, depthLimit: true }, "request.toolFilter"],
    ["then persona", { outputSchema: true, depthLimit: true, toolFilter: true }, "request.persona"],
  ];
  for (const [label, caps, field] of cases) {
    await t.step(label, async () => {
      const { root, service, parent } = setup();
      const provider = manualProvider("p", { ...NO_CAPABILITIES, ...caps });
      service.registerProvider(provider);
      assert.throws(
        () => service.start("p", { ...full, parent }),
        (error: unknown) =>
          error instanceof SubagentError && error.code === "UNSUPPORTED_CAPABILITY" &&
          error.message.includes(field),
      );
      assert.equal(provider.runs.length, 0);
      await root.dispose();
    });
  }
  await t.step("an unsupported capability wins over a malformed value", async () => {
    const { root, service, parent } = setup();
    service.registerProvider(manualProvider("p", NO_CAPABILITIES));
    assert.throws(
      () => service.start("p", { prompt: "x", parent, maxDepth: -3 }),
      (e: unknown) => e instanceof SubagentError && e.code === "UNSUPPORTED_CAPABILITY",
    );
    await root.dispose();
  });
});

Deno.test("start() rejects every malformed request field before starting", async (t) => {
  const cases: [string, (r: Record<string, unknown>) => void, (e: unknown) => boolean][] = [
    ["a non-object request", () => {}, () => true],
    [
      "an unknown field",
      (r) => r.tool_filter = {},
      matches(TypeError, /unknown request field "tool_filter"/),
    ],
    ["an empty prompt", (r) => r.prompt = "", matches(TypeError, /request\.prompt/)],
    ["an empty block list", (r) => r.prompt = [], matches(TypeError, /request\.prompt/)],
    ["a numeric prompt", (r) => r.prompt = 7, matches(TypeError, /request\.prompt/)],
    [
      "a block of unknown type",
      (r) => r.prompt = [{ type: "video", url: "x" }],
      matches(TypeError, /request\.prompt\[0\]\.type/),
    ],
    [
      "a prompt holding a function",
      (r) => r.prompt = [{ type: "text", text: () => "x" }],
      matches(JsonCopyError, /request\.prompt\[0\]\.text/),
    ],
    ["a missing parent", (r) => delete r.parent, matches(TypeError, /request\.parent/)],
    [
      "a parent without an id",
      (r) => r.parent = { scope: (r.parent as { scope: unknown }).scope },
      matches(TypeError, /request\.parent\.id/),
    ],
    [
      "a parent without a scope",
      (r) => r.parent = { id: "p" },
      matches(TypeError, /request\.parent\.scope/),
    ],
    [
      "a signal that is not one",
      (r) => r.signal = { aborted: false },
      matches(TypeError, /request\.signal/),
    ],
    [
      "agentOptions with an unknown key",
      (r) => r.agentOptions = { temperature: 1 },
      matches(TypeError, /agentOptions\.temperature/),
    ],
    [
      "a non-string model",
      (r) => r.agentOptions = { model: 3 },
      matches(TypeError, /agentOptions\.model/),
    ],
    [
      "agentOptions holding a Date",
      (r) => r.agentOptions = { model: new Date() },
      matches(JsonCopyError, /request\.agentOptions\.model/),
    ],
    [
      "an array-rooted outputSchema",
      (r) => r.outputSchema = { type: "array" },
      matches(OutputSchemaError, /request\.outputSchema\.type/),
    ],
    [
      "an outputSchema outside the subset",
      (r) => r.outputSchema = { type: "object", properties: { a: { $ref: "#/x" } } },
      matches(OutputSchemaError, /\$ref/),
    ],
    [
      "an outputSchema holding NaN",
      (r) => r.outputSchema = { type: "object", maximum: NaN },
      matches(JsonCopyError, /request\.outputSchema\.maximum/),
    ],
    ["a fractional maxDepth", (r) => r.maxDepth = 1.5, matches(RangeError, /request\.maxDepth/)],
    ["a negative-zero maxDepth", (r) => r.maxDepth = -0, matches(RangeError, /negative zero/)],
    ["a string maxDepth", (r) => r.maxDepth = "2", matches(TypeError, /request\.maxDepth/)],
    [
      "an empty toolFilter",
      (r) => r.toolFilter = {},
      matches(TypeError, /allow list, a deny list/),
    ],
    [
      "a toolFilter with an unknown key",
      (r) => r.toolFilter = { only: ["a"] },
      matches(TypeError, /toolFilter\.only/),
    ],
    [
      "a toolFilter with a bad name",
      (r) => r.toolFilter = { allow: ["ok", ""] },
      matches(TypeError, /toolFilter\.allow\[1\]/),
    ],
    [
      "a toolFilter list that is a string",
      (r) => r.toolFilter = { deny: "bash" },
      matches(TypeError, /toolFilter\.deny/),
    ],
    ["an empty persona", (r) => r.persona = "  ", matches(TypeError, /request\.persona/)],
    ["a numeric persona", (r) => r.persona = 1, matches(TypeError, /request\.persona/)],
  ];
  for (const [label, mutate, expected] of cases) {
    await t.step(label, async () => {
      const { root, service, parent } = setup();
      const provider = manualProvider("p", ALL_CAPABILITIES);
      service.registerProvider(provider);
      const request: Record<string, unknown> = { prompt: "task", parent };
      mutate(request);
      const frozenBefore = JSON.stringify(Object.keys(request));
      assert.throws(
        () =>
          service.start("p", label === "a non-object request" ? null as never : request as never),
        expected,
      );
      assert.equal(provider.runs.length, 0, "provider.start must not run");
      assert.ok(!Object.isFrozen(request), "the caller's request must not be frozen");
      assert.equal(JSON.stringify(Object.keys(request)), frozenBefore);
      await root.dispose();
    });
  }
  await t.step("a disposed parent scope", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    await parent.scope.dispose();
    assert.throws(() => service.start("p", { prompt: "x", parent }), InactiveScopeError);
    assert.equal(provider.runs.length, 0);
    await root.dispose();
  });
});

function matches(kind: new (...args: never[]) => Error, pattern: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof kind, `expected ${kind.name}, got ${error}`);
    assert.match((error as Error).message, pattern);
    return true;
  };
}

Deno.test("start() hands the provider a detached frozen snapshot", async () => {
  const { root, service, parent } = setup();
  const provider = manualProvider("p");
  service.registerProvider(provider);
  const controller = new AbortController();
  const prompt = [{ type: "text" as const, text: "original" }];
  const outputSchema = { type: "object", properties: { a: { type: "string" } } };
  const toolFilter = { allow: ["read"], deny: ["bash"] };
  const agentOptions = { model: "m1" };
  const run = service.start("p", {
    prompt,
    parent,
    signal: controller.signal,
    outputSchema,
    toolFilter,
    agentOptions,
    maxDepth: 2,
    persona: "terse",
  });
  const seen = provider.runs[0].request;
  assert.equal(seen.parent, parent, "parent passes by identity");
  assert.equal(seen.signal, controller.signal, "signal passes by identity");
  assert.ok(!Object.isFrozen(parent), "the parent is not frozen");
  for (const value of [seen, seen.prompt, seen.prompt[0], seen.outputSchema, seen.toolFilter]) {
    assert.ok(Object.isFrozen(value));
  }
  assert.notEqual(seen.prompt, prompt);
  assert.notEqual(seen.toolFilter, toolFilter);
  // The caller's objects stay theirs: mutable, and mutations do not leak in.
  prompt[0].text = "changed";
  toolFilter.allow.push("write");
  outputSchema.properties.a.type = "number";
  assert.equal((seen.prompt[0] as { text: string }).text, "original");
  assert.deepEqual(seen.toolFilter, { allow: ["read"], deny: ["bash"] });
  assert.deepEqual(seen.outputSchema, { type: "object", properties: { a: { type: "string" } } });
  assert.deepEqual(seen.agentOptions, { model: "m1" });
  assert.equal(seen.maxDepth, 2);
  assert.equal(seen.persona, "terse");
  assert.deepEqual(
    Object.keys(service.start("p", { prompt: "x", parent }) && provider.runs[1].request).sort(),
    ["parent", "place", "prompt"],
    "omitted fields stay absent (the service's place is always there)",
  );
  await run.dispose();
  await provider.runs[1].handle.dispose();
  await root.dispose();
});

Deno.test("start() takes a zod outputSchema and hands the provider its JSON Schema", async (t) => {
  const { z } = await import("zod");
  await t.step("converted, checked and frozen", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p", ALL_CAPABILITIES);
    service.registerProvider(provider);
    const schema = z.object({ answer: z.string(), score: z.number().min(0).optional() });
    const run = service.start("p", { prompt: "task", parent, outputSchema: schema });
    const given = provider.runs[0].request.outputSchema;
    assert.deepEqual(given, {
      type: "object",
      properties: { answer: { type: "string" }, score: { type: "number", minimum: 0 } },
      required: ["answer"],
    });
    assert.ok(Object.isFrozen(given));
    await run.dispose();
    await root.dispose();
  });
  await t.step(
    "a zod schema that is not object-rooted or has no JSON form is refused",
    async () => {
      const { root, service, parent } = setup();
      const provider = manualProvider("p", ALL_CAPABILITIES);
      service.registerProvider(provider);
      for (
        const [schema, message] of [
          [z.array(z.string()), /request\.outputSchema/],
          [z.object({ when: z.date() }), /has no JSON Schema form/],
        ] as const
      ) {
        assert.throws(
          () => service.start("p", { prompt: "task", parent, outputSchema: schema }),
          (error: unknown) => error instanceof OutputSchemaError && message.test(error.message),
        );
      }
      assert.equal(provider.runs.length, 0);
      await root.dispose();
    },
  );
});
