// The memory push config store's bound per task, and what it refuses.
import assert from "node:assert/strict";
import { createMemoryPushConfigStore } from "./push_store.ts";

Deno.test("createMemoryPushConfigStore() put refuses a maxPerTask that is not a positive integer, naming it", async (t) => {
  const store = createMemoryPushConfigStore();
  const config = { id: "c1", taskId: "t1", url: "https://example.com/c1" };
  for (const bad of [0, -1, 1.5, Infinity, NaN]) {
    await t.step(String(bad), () => {
      assert.throws(
        () => store.put(config, { maxPerTask: bad }),
        new RangeError(
          `Cannot store a push config: maxPerTask must be a positive integer, got ${bad}`,
        ),
      );
    });
  }
  assert.deepEqual(store.list("t1"), [], "a refused put keeps nothing");
  assert.equal(store.put(config, { maxPerTask: undefined }), true, "absent: no bound per task");
  assert.equal(store.put({ ...config, id: "c2" }, { maxPerTask: 1 }), "task-full");
  assert.equal(store.put({ ...config, url: "https://example.com/new" }, { maxPerTask: 1 }), true);
});

Deno.test("createMemoryPushConfigStore() refuses an unknown option, naming the known ones", () => {
  assert.throws(
    () => createMemoryPushConfigStore({ maxConfig: 5 } as never),
    new TypeError("Cannot create push config store: unknown option maxConfig (known: maxConfigs)"),
  );
});
