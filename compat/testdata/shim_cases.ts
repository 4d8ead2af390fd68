// Fixture for the Node run's self-check of `compat/node/deno_shim.ts`: each
// call shape of `Deno.test` and `t.step`, and one failing step, whose failure
// the adapter must report (not swallow). Not a `*_test.ts`: Deno does not run it.
Deno.test("shim: a plain test passes", () => {});

Deno.test("shim: a passing step resolves true", async (t) => {
  const passed = await t.step("shim: inner step passes", () => {});
  if (passed !== true) throw new Error("shim: a passing step did not resolve true");
});

Deno.test({
  name: "shim: an ignored test is skipped",
  ignore: true,
  fn() {
    throw new Error("shim: an ignored test ran");
  },
});

Deno.test("shim: options and function", { sanitizeOps: false }, async (t) => {
  await t.step({ name: "shim: a step definition runs", fn: () => {} });
});

Deno.test("shim: a failing step resolves false and fails its test", async (t) => {
  const passed = await t.step("shim: inner step fails", () => {
    throw new Error("shim: expected failure");
  });
  if (passed !== false) throw new Error("shim: a failing step did not resolve false");
});
