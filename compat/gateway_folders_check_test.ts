import assert from "node:assert/strict";
import { checkFolders, circles, importsOf } from "./gateway_folders_check.ts";

Deno.test("importsOf() resolves relative imports and tells type-only ones apart", () => {
  const found = importsOf(
    "gateway/core/_engine.ts",
    [
      'import type { Cluster } from "../_features.ts";',
      'import { type A, type B } from "./_a.ts";',
      'import { type A, b } from "./_b.ts";',
      'export { c } from "../cluster/_cluster.ts";',
      'export type { D } from "../push/_push.ts";',
      'const m = await import("../inspector/_inspector_record.ts");',
      'import { jsonCopy } from "@seam/host";',
    ].join("\n"),
  );
  assert.deepEqual(found.map((i) => [i.target, i.typeOnly]), [
    ["gateway/_features.ts", true],
    ["gateway/core/_a.ts", true],
    ["gateway/core/_b.ts", false],
    ["gateway/cluster/_cluster.ts", false],
    ["gateway/push/_push.ts", true],
    ["gateway/inspector/_inspector_record.ts", false],
  ]);
});

Deno.test("circles() finds the import circles of more than one file, largest first", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["c", "x"]],
    ["c", ["a"]],
    ["d", ["e"]],
    ["e", ["d"]],
    ["f", ["f", "a"]],
  ]);
  assert.deepEqual(circles(graph), [["a", "b", "c"], ["d", "e"]]);
});

Deno.test("checkFolders() passes on this repository", async () => {
  const { problems } = await checkFolders();
  assert.deepEqual(problems, []);
});
