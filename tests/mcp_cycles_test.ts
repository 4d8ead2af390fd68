// The modules of @seam/mcp import one another without a circle, type-only or not.
import assert from "node:assert/strict";
import { cyclesOf, moduleGraph, sourceFiles } from "../compat/budgets/cycles.ts";

Deno.test("mcp/ modules close no import circle, type-only included", async () => {
  const root = new URL("../", import.meta.url);
  // Inside tests/.out: the test task may write there only.
  await Deno.mkdir("tests/.out", { recursive: true });
  const scratch = await Deno.realPath(
    await Deno.makeTempDir({ dir: "tests/.out", prefix: "mcp-cycles-" }),
  );
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
