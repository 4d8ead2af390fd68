import assert from "node:assert/strict";
import { OutputSchemaError, SubagentDepthError, SubagentError } from "./mod.ts";

Deno.test("SubagentError and its kin are recognised across copies of the package", async () => {
  // A second module instance stands in for a second install of the package.
  const copy: typeof import("./errors.ts") = await import("./errors.ts?second-install");
  assert.notEqual(copy.SubagentError, SubagentError, "really another copy");
  const fromCopy = new copy.SubagentError("NO_PROVIDER", "x");
  assert.ok(fromCopy instanceof SubagentError);
  assert.ok(new SubagentError("NO_PROVIDER", "x") instanceof copy.SubagentError);
  assert.ok(new copy.SubagentDepthError(2, 1) instanceof SubagentDepthError);
  assert.ok(new copy.SubagentDepthError(2, 1) instanceof RangeError);
  assert.ok(new copy.OutputSchemaError("p", "m") instanceof OutputSchemaError);
  assert.ok(!(new Error("x") instanceof SubagentError));
  assert.ok(!(new SubagentDepthError(2, 1) instanceof SubagentError));
  assert.ok(!((null as unknown) instanceof SubagentError));
});
