// The modules of @seam/mcp import one another without a circle, type-only or not.
import assert from "node:assert/strict";
import { cyclesOf, moduleGraph, sourceFiles } from "../compat/budgets/cycles.ts";

Deno.test("mcp/ modules close no import circle, type-only included", async () => {
  const root = new URL("../", import.meta.url);
  const scratch = await Deno.makeTempDir({ prefix: "seam-mcp-cycles-" });
  try {
    const files = (await sourceFiles(root, "mcp")).filter((f) => !f.endsWith("_test.ts"));
    const graph = await moduleGraph(root, files, new URL(`file://${scratch}/`));
    const { value, typeOnly } = cyclesOf(graph);
    const ours = [...value, ...typeOnly].filter((c) => c.some((m) => m.startsWith("mcp/")));
    assert.deepEqual(ours, []);
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
});
