import assert from "node:assert/strict";
import { textHead } from "./mod.ts";

Deno.test("textHead() cuts to the bound, never between the halves of a surrogate pair", () => {
  assert.equal(textHead("abc", 5), "abc");
  assert.equal(textHead("abcdef", 3), "abc");
  assert.equal(textHead("ab😀", 3), "ab");
  assert.equal(textHead("ab😀c", 4), "ab😀");
});
