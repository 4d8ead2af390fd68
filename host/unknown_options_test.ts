import assert from "node:assert/strict";
import { refuseUnknownOptions } from "./mod.ts";

const KNOWN = ["name", "host"];

Deno.test("refuseUnknownOptions() passes known options and no options at all", () => {
  refuseUnknownOptions("create x", {}, KNOWN);
  refuseUnknownOptions("create x", { name: "a", host: undefined }, KNOWN);
  refuseUnknownOptions("create x", undefined, KNOWN);
});

Deno.test("refuseUnknownOptions() names the first unknown option and the known ones", () => {
  assert.throws(
    () => refuseUnknownOptions("create x", { name: "a", nmae: "b", hots: 1 }, KNOWN),
    { name: "TypeError", message: "Cannot create x: unknown option nmae (known: name, host)" },
  );
});

Deno.test("refuseUnknownOptions() names nested options by their path, and says the hint", () => {
  assert.throws(
    () => refuseUnknownOptions("create x", { maxIdle: 5 }, ["size"], { under: "pool" }),
    { message: "Cannot create x: unknown option pool.maxIdle (known: size)" },
  );
  assert.throws(
    () =>
      refuseUnknownOptions("create x", { maxSessions: 5 }, ["http"], {
        hint: "e.g. http.maxSessions",
      }),
    { message: "Cannot create x: unknown option maxSessions (known: http; e.g. http.maxSessions)" },
  );
});

Deno.test("refuseUnknownOptions() refuses options that are no object", () => {
  for (
    const [options, kind] of [[null, "null"], [[], "an array"], ["name", '"name"'], [1, "1"]]
  ) {
    assert.throws(
      () => refuseUnknownOptions("create x", options as object, KNOWN),
      { name: "TypeError", message: `Cannot create x: options must be an object, got ${kind}` },
    );
  }
  assert.throws(
    () => refuseUnknownOptions("create x", null as never, KNOWN, { under: "pool" }),
    { message: "Cannot create x: pool must be an object, got null" },
  );
});

Deno.test("refuseUnknownOptions() reads only the options' own string keys", () => {
  // An inherited key (a class instance's defaults, a prototype chain) is no option given.
  const options = Object.assign(Object.create({ inherited: true }), { name: "a" });
  refuseUnknownOptions("create x", options, KNOWN);
  refuseUnknownOptions("create x", { name: "a", [Symbol("tag")]: 1 }, KNOWN);
  assert.throws(
    () =>
      refuseUnknownOptions("create x", Object.assign(Object.create(options), { nmae: 1 }), KNOWN),
    TypeError,
  );
});
