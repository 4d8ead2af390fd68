import assert from "node:assert/strict";
import { JsonCopyError } from "./mod.ts";

Deno.test("JsonCopyError is recognised across copies of the package", async () => {
  const copy: typeof import("./json.ts") = await import("./json.ts?second-install");
  assert.notEqual(copy.JsonCopyError, JsonCopyError);
  assert.throws(
    () => copy.jsonCopy({ f: () => 1 }),
    (error: unknown) => error instanceof JsonCopyError,
  );
  assert.ok(!(new TypeError("x") instanceof JsonCopyError));
});
