import assert from "node:assert/strict";
import { createForkProvider } from "@seam/subagent-fork";

Deno.test("createForkProvider() refuses an unknown option, naming the known ones", () => {
  assert.throws(
    () => createForkProvider({ nmae: "f" } as never),
    (error: unknown) =>
      error instanceof TypeError &&
      error.message ===
        'Cannot create provider "fork": unknown option nmae (known: name, host)',
  );
  assert.equal(createForkProvider({ name: "f" }).name, "f");
  assert.equal(createForkProvider().inheritsParentContext, true);
});
