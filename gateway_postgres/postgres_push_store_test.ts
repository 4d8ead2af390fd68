// Push configs on PostgreSQL shared by instances: the bound per task holds
// when several instances add configs to one task at the same time, and a
// put waits for its task's lock only so long.
import assert from "node:assert/strict";
import postgres from "postgres";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway, type Gateway, isTaskStorageError } from "@seam/gateway";
import { controlledProvider } from "../gateway/_test_support.ts";
import { createPostgresPushConfigStore, type PostgresTaskStore } from "./mod.ts";
import {
  databaseUrl,
  dropSchema,
  freshSchema,
  openStore,
  repeatableReadUrl,
  SKIP,
  type Wire,
} from "./_test_support.ts";

/** Twenty puts for one task from two instances at once, on a store opened at `url`. */
async function putsAtOnce(url?: string): Promise<void> {
  const schema = freshSchema();
  const stores = [await openStore(schema, { url }), await openStore(schema, { url })];
  try {
    const [a, b] = stores.map((s) => createPostgresPushConfigStore(s));
    const put = (store: typeof a, id: string) =>
      store.put({ id, taskId: "t1", url: `https://example.com/${id}` }, { maxPerTask: 3 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => [put(a, `a${i}`), put(b, `b${i}`)]).flat(),
    );
    assert.equal(answers.filter((x) => x === true).length, 3, JSON.stringify(answers));
    assert.equal(answers.filter((x) => x === "task-full").length, 17, JSON.stringify(answers));
    const kept = await a.list("t1");
    assert.equal(kept.length, 3);
    // Full: replacing one by id is still fine, another is not; other tasks are not affected.
    assert.equal(
      await b.put({ id: kept[0].id, taskId: "t1", url: "https://example.com/new" }, {
        maxPerTask: 3,
      }),
      true,
    );
    assert.equal((await a.list("t1"))[0].url, "https://example.com/new");
    assert.equal(await b.put({ id: "x", taskId: "t1", url: "https://example.com/x" }), true);
    assert.equal((await a.list("t1")).length, 4, "without maxPerTask nothing is bounded");
    assert.equal(
      await a.put({ id: "y", taskId: "t2", url: "https://example.com/y" }, { maxPerTask: 1 }),
      true,
    );
  } finally {
    for (const store of stores) await store.close();
    await dropSchema(schema);
  }
}

Deno.test({
  name:
    "createPostgresPushConfigStore(): two instances putting configs for one task at once never pass maxPerTask",
  ignore: SKIP,
  fn: () => putsAtOnce(),
});

Deno.test({
  name:
    "createPostgresPushConfigStore(): maxPerTask holds when the role's default isolation is repeatable read",
  ignore: SKIP,
  // Set on the role or the database by whoever runs the server: a put's
  // count must still see what the puts before it (under the task's lock)
  // committed.
  fn: async () => putsAtOnce(await repeatableReadUrl()),
});

async function call(gateway: Gateway, method: string, params: unknown): Promise<Wire> {
  return await (await gateway.fetch(
    new Request("http://gw.test/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }),
  )).json();
}

Deno.test({
  name:
    "two gateway instances on PostgreSQL adding push configs to one task at once keep maxConfigsPerTask",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const stores: PostgresTaskStore[] = [];
    const parts: { gateway: Gateway; dispose(): Promise<void> }[] = [];
    try {
      stores.push(await openStore(schema), await openStore(schema));
      for (const store of stores) {
        const root = createRootScope({ logger: createMemoryLogger().logger });
        createSubagentService(root).registerProvider(controlledProvider());
        const gateway = createGateway({
          scope: root,
          taskStore: store,
          push: {
            allowWebhook: () => true,
            maxConfigsPerTask: 1,
            configStore: createPostgresPushConfigStore(store),
          },
        });
        parts.push({ gateway, dispose: () => root.dispose() });
      }
      const [a, b] = parts.map((p) => p.gateway);
      // Several tasks, so that the instances' checks meet at least once
      // (each instance adds one task's configs one at a time).
      for (let n = 0; n < 5; n++) {
        const sent = await call(a, "SendMessage", {
          message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "go" }] },
          configuration: { returnImmediately: true },
        });
        const taskId: string = sent.result.task.id;
        const create = (gateway: Gateway, id: string) =>
          call(gateway, "CreateTaskPushNotificationConfig", {
            taskId,
            id,
            url: `http://127.0.0.1:9/${id}`,
          });
        const answers = await Promise.all(
          ["1", "2", "3"].flatMap((i) => [create(a, `a${i}`), create(b, `b${i}`)]),
        );
        const listed = await call(b, "ListTaskPushNotificationConfigs", { taskId });
        assert.equal(listed.result.configs.length, 1, `task ${n}: ${JSON.stringify(listed)}`);
        assert.equal(answers.filter((x) => x.result).length, 1, JSON.stringify(answers));
        for (const refused of answers.filter((x) => x.error)) {
          assert.match(
            refused.error.message,
            new RegExp(
              `Too many push configs: task "${taskId}" has 1 \\(the limit is 1 per task\\)`,
            ),
          );
          assert.equal(refused.error.data[0].reason, "TOO_MANY_PUSH_CONFIGS");
        }
      }
    } finally {
      for (const p of parts) await p.gateway.close();
      for (const p of parts) await p.dispose();
      for (const store of stores) await store.close();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name:
    "createPostgresPushConfigStore(): a bounded put that waits lockTimeoutMs for its task's lock fails UNAVAILABLE (503), and passes once the lock is free",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const store = await openStore(schema);
    const sql = postgres(databaseUrl()!, { max: 1, onnotice: () => {} });
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    // Without a bound the put would wait for as long as the holder holds:
    // let go after 3 s, so such a put ends (and the test fails) instead of hanging.
    const letGo = setTimeout(release, 3_000);
    let holding: Promise<unknown> | undefined;
    try {
      const configs = createPostgresPushConfigStore(store, { lockTimeoutMs: 200 });
      // Another instance's put of t1's configs, stuck holding the task's lock.
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => locked = resolve);
      holding = sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`seam-gateway-push-configs:${schema}`}),
          hashtext('t1'))`;
        locked();
        await held;
      });
      await isLocked;
      const config = { id: "c1", taskId: "t1", url: "https://example.com/c1" };
      const started = Date.now();
      await assert.rejects(
        Promise.resolve(configs.put(config, { maxPerTask: 3 })),
        (error) => {
          assert.ok(isTaskStorageError(error, "UNAVAILABLE"), String(error));
          assert.match(
            (error as Error).message,
            /Cannot store a push config: PostgreSQL did not grant a lock in time/,
          );
          return true;
        },
      );
      const waited = Date.now() - started;
      assert.ok(waited >= 150 && waited < 2_000, `waited ${waited} ms for a 200 ms timeout`);
      // Another task's puts do not wait for it.
      assert.equal(
        await configs.put({ ...config, taskId: "t2" }, { maxPerTask: 3 }),
        true,
      );
      release();
      await holding;
      assert.equal(await configs.put(config, { maxPerTask: 3 }), true);
      assert.deepEqual((await configs.list("t1")).map((c) => c.id), ["c1"]);
    } finally {
      clearTimeout(letGo);
      release();
      await holding;
      await sql.end({ timeout: 5 });
      await store.close();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name:
    "createPostgresPushConfigStore() refuses a lockTimeoutMs, and put a maxPerTask, that is not a positive integer, naming it",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const store = await openStore(schema);
    try {
      for (const bad of [0, -1, 1.5, Infinity, NaN]) {
        assert.throws(
          () => createPostgresPushConfigStore(store, { lockTimeoutMs: bad }),
          new RangeError(
            `Cannot create the PostgreSQL push config store: lockTimeoutMs must be an integer of at least 1, got ${bad}`,
          ),
        );
      }
      const configs = createPostgresPushConfigStore(store);
      const config = { id: "c1", taskId: "t1", url: "https://example.com/c1" };
      for (const bad of [0, -1, 1.5, Infinity, NaN]) {
        await assert.rejects(
          Promise.resolve(configs.put(config, { maxPerTask: bad })),
          new RangeError(
            `Cannot store a push config: maxPerTask must be a positive integer, got ${bad}`,
          ),
        );
      }
      assert.deepEqual(await configs.list("t1"), [], "a refused put keeps nothing");
      assert.equal(await configs.put(config, { maxPerTask: undefined }), true, "no bound");
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  },
});
