import assert from "node:assert/strict";
import { LineFramer, OversizedMessageError } from "./_framing.ts";

function framer(max = 1024) {
  const messages: unknown[] = [];
  const garbage: string[] = [];
  const f = new LineFramer(max, {
    message: (m) => void messages.push(m),
    garbage: (g) => void garbage.push(g),
  });
  return { f, messages, garbage };
}

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("LineFramer.push() parses one JSON object per line across chunks", () => {
  const { f, messages, garbage } = framer();
  f.push(bytes('{"a":1}\n{"b"'));
  f.push(bytes(':2}\r\n\n  \n{"c":'));
  f.push(bytes("3}"));
  assert.deepEqual(messages, [{ a: 1 }, { b: 2 }]);
  f.flush();
  assert.deepEqual(messages, [{ a: 1 }, { b: 2 }, { c: 3 }]);
  assert.deepEqual(garbage, []);
});

Deno.test("LineFramer.push() reports lines that are not JSON objects as garbage", () => {
  const { f, messages, garbage } = framer();
  f.push(bytes('hello\n[1]\n42\n"s"\nnull\n{"ok":true}\n{broken\n'));
  assert.deepEqual(messages, [{ ok: true }]);
  assert.deepEqual(garbage, ["hello", "[1]", "42", '"s"', "null", "{broken"]);
});

Deno.test("LineFramer.push() cuts a long garbage line for the log", () => {
  const { f, garbage } = framer();
  f.push(bytes("x".repeat(500) + "\n"));
  assert.equal(garbage[0], "x".repeat(200) + "…");
});

Deno.test("LineFramer.push() throws for a line over the limit, even without a newline", () => {
  const { f } = framer(10);
  f.push(bytes('{"a":1}\n'));
  assert.throws(() => f.push(bytes("12345678901")), OversizedMessageError);
  const { f: g } = framer(10);
  g.push(bytes("123456"));
  assert.throws(() => g.push(bytes("78901\n")), /larger than 10 bytes/);
});

Deno.test("LineFramer.push() decodes multi-byte characters split across chunks", () => {
  const { f, messages } = framer();
  const line = bytes('{"t":"héllo ✓"}\n');
  f.push(line.subarray(0, 8));
  f.push(line.subarray(8));
  assert.deepEqual(messages, [{ t: "héllo ✓" }]);
});
