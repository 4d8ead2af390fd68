import assert from "node:assert/strict";
import { deepFreeze, jsonCopy, JsonCopyError } from "./mod.ts";

Deno.test("jsonCopy() copies plain data detached and drops undefined properties", () => {
  const source = { a: 1, b: [true, null, "s", { c: -1.5 }], skip: undefined };
  const copy = jsonCopy(source);
  assert.deepEqual(copy, { a: 1, b: [true, null, "s", { c: -1.5 }] });
  assert.notEqual((copy as { b: unknown[] }).b, source.b);
  assert.deepEqual(jsonCopy(Object.assign(Object.create(null), { n: 1 })), { n: 1 });
});

Deno.test("jsonCopy() reads every getter exactly once", () => {
  let reads = 0;
  const source = {
    get value() {
      reads++;
      return { nested: reads };
    },
  };
  assert.deepEqual(jsonCopy(source), { value: { nested: 1 } });
  assert.equal(reads, 1);
});

Deno.test("jsonCopy() rejects what JSON would lose, naming the path", async (t) => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const cases: [string, unknown, string, RegExp][] = [
    ["a function", { f: () => 1 }, "v.f", /function/],
    ["a symbol value", { s: Symbol("x") }, "v.s", /symbol/],
    ["a symbol key", { [Symbol("k")]: 1 }, "v", /symbol keys/],
    ["a bigint", { n: 1n }, "v.n", /bigint/],
    ["NaN", [NaN], "v[0]", /NaN/],
    ["Infinity", { x: Infinity }, "v.x", /Infinity/],
    ["-Infinity", { x: -Infinity }, "v.x", /Infinity/],
    ["-0", { x: -0 }, "v.x", /-0/],
    ["undefined in an array", [1, undefined], "v[1]", /undefined/],
    ["a hole in an array", [1, , 3], "v[1]", /hole/], // eslint-disable-line no-sparse-arrays
    ["a Date", { d: new Date(0) }, "v.d", /Date/],
    ["a Map", { m: new Map() }, "v.m", /Map/],
    ["a Set", { s: new Set() }, "v.s", /Set/],
    ["a class instance", { c: new (class Point {})() }, "v.c", /Point/],
    ["a cycle", cyclic, "v.self", /cycle/],
    ["an odd key", { "a b": () => 1 }, 'v["a b"]', /function/],
    ["undefined at the top", undefined, "v", /undefined/],
  ];
  for (const [label, value, path, pattern] of cases) {
    await t.step(label, () => {
      assert.throws(() => jsonCopy(value, "v"), (error: unknown) => {
        assert.ok(error instanceof JsonCopyError);
        assert.equal(error.path, path);
        assert.match(error.message, pattern);
        return true;
      });
    });
  }
});

Deno.test("jsonCopy() allows shared acyclic references and a __proto__ key", () => {
  const shared = { x: 1 };
  assert.deepEqual(jsonCopy({ a: shared, b: shared }), { a: { x: 1 }, b: { x: 1 } });
  const tricky = JSON.parse('{"__proto__": {"polluted": true}}');
  const copy = jsonCopy(tricky) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.deepEqual(Object.keys(copy), ["__proto__"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("deepFreeze() freezes everything reachable, in place", () => {
  const value = { a: [{ b: 1 }], c: { d: { e: "x" } } };
  assert.equal(deepFreeze(value), value);
  assert.ok(Object.isFrozen(value.a[0]) && Object.isFrozen(value.c.d));
  assert.equal(deepFreeze(5), 5);
});
