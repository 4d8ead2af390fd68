import assert from "node:assert/strict";
import { ShortLivedMap } from "./_short_lived_map.ts";

Deno.test("ShortLivedMap holds, replaces and lets go of values as a Map does", () => {
  const map = new ShortLivedMap<string, { n: number }>();
  const a = { n: 1 };
  const b = { n: 2 };
  map.set("a", a);
  map.set("b", b);
  assert.equal(map.size, 2);
  assert.equal(map.get("a"), a);
  assert.ok(map.has("b"));
  const c = { n: 3 };
  map.set("a", c);
  assert.equal(map.get("a"), c);
  assert.deepEqual([...map.values()], [c, b], "insertion order, a replaced value in its place");
  assert.equal(map.delete("a"), true);
  assert.equal(map.delete("a"), false);
  assert.equal(map.get("a"), undefined);
  assert.equal(map.has("a"), false);
  assert.equal(map.size, 1);
  map.set("a", a);
  assert.deepEqual([...map.values()], [b, a], "set again after delete: at the end");
});

Deno.test("ShortLivedMap's values() survives a delete while iterating", () => {
  const map = new ShortLivedMap<number, number>();
  for (let i = 0; i < 5; i++) map.set(i, i * 10);
  const seen: number[] = [];
  for (const value of map.values()) {
    seen.push(value);
    map.delete(value / 10 + 1);
  }
  assert.deepEqual(seen, [0, 20, 40]);
});

Deno.test("ShortLivedMap.clear() lets go of every value", () => {
  const map = new ShortLivedMap<string, number>();
  map.set("a", 1);
  map.set("b", 2);
  map.clear();
  assert.equal(map.size, 0);
  assert.equal(map.get("a"), undefined);
  assert.deepEqual([...map.values()], []);
  map.set("a", 3);
  assert.equal(map.get("a"), 3);
});
