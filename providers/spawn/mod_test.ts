import assert from "node:assert/strict";
import { createSpawnProvider } from "@seam/subagent-spawn";

Deno.test("createSpawnProvider() refuses an unknown option, naming the known ones", () => {
  assert.throws(
    () => createSpawnProvider({ name: "s", hots: {} } as never),
    (error: unknown) =>
      error instanceof TypeError &&
      error.message ===
        'Cannot create provider "spawn": unknown option hots (known: name, host)',
  );
  assert.throws(
    () => createSpawnProvider({ inheritsParentContext: true } as never),
    /unknown option inheritsParentContext \(known: name, host\)/,
  );
  assert.equal(createSpawnProvider({ name: "s" }).name, "s");
});
