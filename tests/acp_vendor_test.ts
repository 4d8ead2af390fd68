import assert from "node:assert/strict";
import { bundleAcpSdk, HEADER, VENDORED } from "./acp_vendor.ts";

Deno.test("the vendored ACP SDK is what a fresh bundle of the pinned SDK is", async () => {
  const committed = await Deno.readTextFile(VENDORED);
  assert.ok(committed.startsWith(HEADER), "the bundle names how it is made");
  // Compared whole: a stale or edited bundle fails here (run `deno task vendor:acp`).
  assert.ok(committed === await bundleAcpSdk(), "run `deno task vendor:acp`: the bundle is stale");
});
