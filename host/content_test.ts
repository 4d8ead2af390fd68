import assert from "node:assert/strict";
import { parseContent, textOf } from "./mod.ts";

Deno.test("parseContent() turns a string into one text block", () => {
  assert.deepEqual(parseContent("hi", "p"), [{ type: "text", text: "hi" }]);
  assert.deepEqual(parseContent("", "p", { allowEmpty: true }), []);
});

Deno.test("parseContent() rejects malformed blocks, naming the path", () => {
  assert.throws(() => parseContent("", "p"), /Invalid p: must not be empty/);
  assert.throws(() => parseContent([], "p"), /at least one/);
  assert.throws(() => parseContent([{ type: "text" }], "p"), /p\[0\]\.text/);
  assert.throws(() => parseContent([{ type: "image", data: "x" }], "p"), /p\[0\]\.mediaType/);
  assert.throws(
    () => parseContent([{ type: "text", text: "a", extra: 1 }], "p"),
    /unknown field "extra"/,
  );
  assert.throws(() => parseContent([null], "p"), /p\[0\]/);
  assert.throws(() => parseContent({ type: "text" }, "p"), /expected a string or an array/);
});

Deno.test("textOf() joins text and inlined resource text", () => {
  assert.equal(
    textOf([
      { type: "text", text: "a" },
      { type: "image", mediaType: "image/png", data: "" },
      { type: "resource", uri: "file:///x", text: "b" },
    ]),
    "ab",
  );
});

Deno.test("parseContent() takes file and data blocks and names what is wrong with one", () => {
  const blocks = parseContent([
    { type: "file", mediaType: "application/pdf", data: "AAAA", filename: "a.pdf" },
    { type: "data", data: { n: 1 } },
    { type: "resource", uri: "https://x/a.txt", filename: "a.txt" },
  ], "output");
  assert.equal(blocks.length, 3);
  assert.equal(textOf(blocks), '{"n":1}');
  assert.throws(
    () => parseContent([{ type: "file", data: "AAAA" }], "output"),
    /output\[0\]\.mediaType: expected a string/,
  );
  assert.throws(
    () => parseContent([{ type: "data" }], "output"),
    /output\[0\]\.data: a data block/,
  );
  assert.throws(
    () => parseContent([{ type: "video" }], "output"),
    /expected "text", "image", "resource", "file" or "data"/,
  );
});
