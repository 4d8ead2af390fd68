import assert from "node:assert/strict";
import postgres from "postgres";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createGateway, createMemoryPushConfigStore } from "@seam/gateway";
import { createSubagentService } from "@seam/subagent";
import { testPushOutbox } from "@seam/gateway/testing";
import {
  createPostgresPushConfigStore,
  createPostgresPushOutbox,
  type PostgresTaskStore,
} from "./mod.ts";
import { databaseUrl, dropSchema, freshSchema, openStore, SKIP } from "./_test_support.ts";

Deno.test({
  name: "createPostgresPushOutbox() passes the push outbox conformance suite",
  ignore: SKIP,
  fn: async (t) => {
    const stores = new Map<unknown, PostgresTaskStore>();
    await testPushOutbox(t, {
      open: async (settings) => {
        const store = await openStore(freshSchema());
        const outbox = createPostgresPushOutbox(store, { ...settings, pollIntervalMs: 50 });
        stores.set(outbox, store);
        return outbox;
      },
      configStore: (outbox) => createPostgresPushConfigStore(stores.get(outbox)!),
      close: async (outbox) => {
        const store = stores.get(outbox)!;
        await store.close();
        await dropSchema(store.schema);
      },
    });
  },
});

/** A webhook receiver on 127.0.0.1 that can go down and come back on its port. */
class Hook {
  readonly bodies: string[] = [];
  #server: Deno.HttpServer<Deno.NetAddr> | undefined;
  #port = 0;
  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }
  up(): this {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: this.#port, onListen() {} },
      async (request) => {
        this.bodies.push(await request.text());
        return new Response("ok");
      },
    );
    this.#port = this.#server.addr.port;
    return this;
  }
  async down(): Promise<void> {
    await this.#server?.shutdown();
    this.#server = undefined;
  }
}

async function eventually(what: string, predicate: () => boolean | Promise<boolean>) {
  const end = Date.now() + 15_000;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`${what}: not within 15 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function note(url: string, body: string, taskId = "t1") {
  return { id: crypto.randomUUID(), taskId, configId: "c1", url, body, createdAt: Date.now() };
}

/** Keep config "c1" of each task for `url`: the outbox sends only for configs its store holds. */
async function keepConfigs(store: PostgresTaskStore, url: string, ...taskIds: string[]) {
  const configs = createPostgresPushConfigStore(store);
  for (const taskId of taskIds) await configs.put({ id: "c1", taskId, url });
}

const quick = { pollIntervalMs: 50, baseDelayMs: 20, maxDelayMs: 100, maxAttempts: 10_000 };

Deno.test({
  name: "createPostgresPushOutbox(): what one instance did not deliver, the next one does",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const hook = new Hook().up();
    const url = hook.url;
    await hook.down();
    const { logger } = createMemoryLogger();
    const first = await openStore(schema);
    const second = await openStore(schema);
    try {
      await keepConfigs(first, url, "t1");
      const outbox = createPostgresPushOutbox(first, { ...quick, logger });
      for (const body of ["1", "2", "3"]) await outbox.enqueue(note(url, body));
      await new Promise((r) => setTimeout(r, 200)); // attempts fail: nobody listens
      await outbox.close();
      await first.close();
      const counting = createPostgresPushOutbox(second, { logger });
      assert.equal(await counting.pending(), 3, "all kept");
      await counting.close();
      hook.up();
      const next = createPostgresPushOutbox(second, { ...quick, logger });
      await eventually("all three delivered", () => hook.bodies.length === 3);
      assert.deepEqual(hook.bodies, ["1", "2", "3"]);
      await eventually("the outbox emptied", async () => (await next.pending()) === 0);
      await next.close();
    } finally {
      await first.close();
      await second.close();
      await hook.down();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name: "createPostgresPushOutbox(): a claim whose instance died is retried once its lease lapses",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const hook = new Hook().up();
    const { logger } = createMemoryLogger();
    const store = await openStore(schema);
    const sql = postgres(databaseUrl()!, { max: 1, onnotice: () => {} });
    try {
      await keepConfigs(store, hook.url, "t1");
      // Another instance claimed it (one attempt) and died: its lease lapses in 300 ms.
      await sql.unsafe(
        `INSERT INTO "${schema}".push_outbox (id, task_id, config_id, url, body, created_at,
           attempts, claim, lease_until)
         VALUES ('n1', 't1', 'c1', $1, 'claimed', 0, 1, 'dead', now() + interval '300 milliseconds')`,
        [hook.url],
      );
      const outbox = createPostgresPushOutbox(store, { ...quick, maxAttempts: 2, logger });
      await eventually("delivered after the lease lapsed", () => hook.bodies.length === 1);
      assert.deepEqual(hook.bodies, ["claimed"]);
      await eventually("the row deleted", async () => (await outbox.pending()) === 0);
      // A row whose claims already used every attempt is dropped, not sent.
      await sql.unsafe(
        `INSERT INTO "${schema}".push_outbox (id, task_id, config_id, url, body, created_at,
           attempts, claim, lease_until)
         VALUES ('n2', 't1', 'c1', $1, 'spent', 0, 2, 'dead', now())`,
        [hook.url],
      );
      await outbox.enqueue(note(hook.url, "after"));
      await eventually("the next one delivered", () => hook.bodies.includes("after"));
      assert.deepEqual(hook.bodies, ["claimed", "after"]);
      await outbox.close();
    } finally {
      await sql.end({ timeout: 5 });
      await store.close();
      await hook.down();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name:
    "createPostgresPushOutbox(): three instances share the work, each webhook hears its notifications in order",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const hooks = [new Hook().up(), new Hook().up(), new Hook().up()];
    const { logger } = createMemoryLogger();
    const stores = await Promise.all([openStore(schema), openStore(schema), openStore(schema)]);
    const outboxes = stores.map((s) => createPostgresPushOutbox(s, { ...quick, logger }));
    try {
      for (const [n, hook] of hooks.entries()) await keepConfigs(stores[0], hook.url, `t${n}`);
      const expected = Array.from({ length: 10 }, (_, i) => String(i));
      for (const body of expected) {
        for (const [n, hook] of hooks.entries()) {
          await outboxes[(Number(body) + n) % 3].enqueue(note(hook.url, body, `t${n}`));
        }
      }
      await eventually(
        "every notification delivered",
        () => hooks.every((h) => h.bodies.length >= 10),
      );
      for (const hook of hooks) assert.deepEqual(hook.bodies, expected);
    } finally {
      for (const outbox of outboxes) await outbox.close();
      for (const store of stores) await store.close();
      for (const hook of hooks) await hook.down();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name: "createPostgresPushOutbox() keeps the newest maxQueuedPerWebhook of a dead webhook's",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const hook = new Hook().up();
    const url = hook.url;
    await hook.down();
    const { logger, records } = createMemoryLogger();
    const store = await openStore(schema);
    try {
      await keepConfigs(store, url, "t1");
      const outbox = createPostgresPushOutbox(store, { ...quick, maxQueuedPerWebhook: 2, logger });
      for (const body of ["1", "2", "3", "4", "5"]) await outbox.enqueue(note(url, body));
      await eventually("trimmed to two", async () => (await outbox.pending()) === 2);
      hook.up();
      await eventually("the kept ones delivered", () => hook.bodies.length === 2);
      assert.deepEqual(hook.bodies, ["4", "5"]);
      assert.equal(records.filter((r) => /maxQueuedPerWebhook/.test(r.message)).length, 3);
      await outbox.close();
    } finally {
      await store.close();
      await hook.down();
      await dropSchema(schema);
    }
  },
});

Deno.test("createPostgresPushOutbox() refuses what is not its store, and bounds out of range", () => {
  assert.throws(
    () => createPostgresPushOutbox({} as PostgresTaskStore),
    /pass the store createPostgresTaskStore\(\) made/,
  );
  assert.throws(() => createPostgresPushConfigStore({} as PostgresTaskStore), /push config store/);
});

Deno.test({
  name: "createGateway() refuses the PostgreSQL outbox beside a config store of another storage",
  ignore: SKIP,
  fn: async () => {
    const store = await openStore(freshSchema());
    const root = createRootScope({ logger: createMemoryLogger().logger });
    createSubagentService(root);
    const outbox = createPostgresPushOutbox(store);
    try {
      // The memory config store (the default, or given): the store's appends would find no config.
      for (const configStore of [undefined, createMemoryPushConfigStore()]) {
        assert.throws(
          () => createGateway({ scope: root, taskStore: store, push: { outbox, configStore } }),
          /push\.outbox is written by its task storage \(enqueuedBy\), so push\.configStore must keep the configs in that same storage/,
        );
      }
      const gateway = createGateway({
        scope: root,
        taskStore: store,
        push: { outbox, configStore: createPostgresPushConfigStore(store) },
      });
      await gateway.close();
    } finally {
      await outbox.close();
      await root.dispose();
      await store.close();
      await dropSchema(store.schema);
    }
  },
});

Deno.test({
  name: "createPostgresPushOutbox() checks its options, naming the one that is wrong",
  ignore: SKIP,
  fn: async () => {
    const store = await openStore(freshSchema());
    try {
      assert.throws(
        () => createPostgresPushOutbox(store, { leaseMarginMs: 0 }),
        /leaseMarginMs must be an integer of at least 250, got 0/,
      );
      assert.throws(
        () => createPostgresPushOutbox(store, { maxAttempts: 1.5 }),
        /maxAttempts must be an integer of at least 1, got 1.5/,
      );
    } finally {
      await store.close();
      await dropSchema(store.schema);
    }
  },
});

/**
 * An append that writes a notification for config "c1" of task "t1" (at
 * `oldHook`, token "old-secret") reads the configs, then waits for the
 * task's row, which another transaction holds; `meanwhile` runs while it
 * waits (what the gateway does to the config), then the append commits.
 * Then a later notification, "after", goes to each config of the task as
 * it is then (as the gateway sends an event); answers once the outbox
 * emptied.
 */
async function appendWhileConfigChanges(
  oldHook: Hook,
  meanwhile: (
    configs: ReturnType<typeof createPostgresPushConfigStore>,
    outbox: ReturnType<typeof createPostgresPushOutbox>,
  ) => Promise<void>,
): Promise<void> {
  const schema = freshSchema();
  const { logger } = createMemoryLogger();
  const store = await openStore(schema);
  const sql = postgres(databaseUrl()!, { max: 2, onnotice: () => {} });
  const outbox = createPostgresPushOutbox(store, { ...quick, logger });
  const configs = createPostgresPushConfigStore(store);
  const task = (state: "TASK_STATE_WORKING" | "TASK_STATE_COMPLETED") => ({
    task: { id: "t1", contextId: "ctx", status: { state } },
    owner: undefined,
    provider: "p",
    updatedAt: Date.now(),
  });
  let release!: () => void;
  let holding: Promise<unknown> | undefined;
  try {
    const g = await store.append({
      record: task("TASK_STATE_WORKING"),
      expected: 0,
      events: [{ task: {} }],
      instance: undefined,
    });
    await configs.put({ id: "c1", taskId: "t1", url: oldHook.url, token: "old-secret" });
    // Another transaction holds the task's row: the append below takes its
    // snapshot (with c1 as it is now), then waits to update the task.
    const held = new Promise<void>((resolve) => release = resolve);
    let locked!: (pid: number) => void;
    const holder = new Promise<number>((resolve) => locked = resolve);
    holding = sql.begin(async (tx) => {
      const [{ pid }] = await tx.unsafe(
        `SELECT pg_backend_pid() AS pid FROM "${schema}".tasks WHERE id = 't1' FOR UPDATE`,
      );
      locked(pid);
      await held;
    });
    const holderPid = await holder;
    const appended = store.append({
      record: task("TASK_STATE_COMPLETED"),
      expected: g,
      events: [{ statusUpdate: {} }],
      instance: undefined,
      pushes: ["orphan"],
    });
    await eventually("the append waits for the task's row", async () => {
      // Only a session the holder blocks: this test's append, not another
      // schema's (tests run side by side on one database).
      const rows = await sql`
        SELECT count(*)::integer AS n FROM pg_stat_activity
        WHERE ${holderPid}::integer = ANY (pg_blocking_pids(pid))`;
      return rows[0].n > 0;
    });
    await meanwhile(configs, outbox);
    release();
    await holding;
    await appended; // its notification for c1 as it was is committed after the change
    for (const config of await configs.list("t1")) {
      await outbox.enqueue({
        ...note(config.url, "after"),
        configId: config.id,
        ...(config.token === undefined ? {} : { token: config.token }),
        ...(config.authentication ? { authentication: config.authentication } : {}),
      });
    }
    await eventually("the outbox emptied", async () => (await outbox.pending()) === 0);
  } finally {
    release?.();
    await holding;
    await outbox.close();
    await sql.end({ timeout: 5 });
    await store.close();
    await dropSchema(schema);
  }
}

Deno.test({
  name:
    "createPostgresPushOutbox(): a config deleted while an append that wrote its notification was committing hears nothing of it",
  ignore: SKIP,
  fn: async () => {
    const hook = new Hook().up();
    try {
      await appendWhileConfigChanges(hook, async (configs, outbox) => {
        // DeleteTaskPushNotificationConfig meanwhile, as the gateway does it.
        await configs.delete("t1", "c1");
        await outbox.discard("t1", "c1");
        // Another config of the task hears what comes after.
        await configs.put({ id: "c2", taskId: "t1", url: hook.url });
      });
      assert.deepEqual(hook.bodies, ["after"]);
    } finally {
      await hook.down();
    }
  },
});

Deno.test({
  name:
    "createPostgresPushOutbox(): a config deleted and created again under its id at another URL while an append was committing: its old URL hears nothing (nor the old token), the new one hears what comes after",
  ignore: SKIP,
  fn: async () => {
    const oldHook = new Hook().up();
    const newHook = new Hook().up();
    try {
      await appendWhileConfigChanges(oldHook, async (configs, outbox) => {
        await configs.delete("t1", "c1");
        await outbox.discard("t1", "c1");
        await configs.put({ id: "c1", taskId: "t1", url: newHook.url, token: "new-secret" });
      });
      assert.deepEqual(oldHook.bodies, []);
      assert.deepEqual(newHook.bodies, ["after"]);
    } finally {
      await oldHook.down();
      await newHook.down();
    }
  },
});

Deno.test({
  name:
    "createPostgresPushOutbox(): a config replaced in place (another URL, token or authentication) while an append was committing: what was written for its old target is not sent there",
  ignore: SKIP,
  fn: async (t) => {
    const replacements = {
      "another URL": (url: string) => ({ url, token: "old-secret" }),
      "another token": (url: string) => ({ url, token: "new-secret" }),
      "an authentication added": (url: string) => ({
        url,
        token: "old-secret",
        authentication: { scheme: "Bearer", credentials: "abc" },
      }),
    };
    for (const [what, target] of Object.entries(replacements)) {
      await t.step(what, async () => {
        const oldHook = new Hook().up();
        const newHook = new Hook().up();
        const url = what === "another URL" ? newHook.url : oldHook.url;
        try {
          await appendWhileConfigChanges(oldHook, async (configs) => {
            // CreateTaskPushNotificationConfig with c1's id: no delete, no discard.
            await configs.put({ id: "c1", taskId: "t1", ...target(url) });
          });
          const heard = [...oldHook.bodies, ...newHook.bodies];
          assert.deepEqual(heard, ["after"], `${what}: ${JSON.stringify(heard)}`);
        } finally {
          await oldHook.down();
          await newHook.down();
        }
      });
    }
  },
});

Deno.test({
  name:
    "createPostgresPushOutbox() and createPostgresPushConfigStore() refuse an unknown option, naming the known ones",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const store = await openStore(schema);
    try {
      assert.throws(
        () => createPostgresPushOutbox(store, { concurency: 2 } as never),
        (error: unknown) =>
          error instanceof TypeError &&
          /^Cannot create the PostgreSQL push outbox: unknown option concurency \(known: leaseMarginMs, concurrency, pollIntervalMs, maxAttempts, .*maxDelayMs\)$/
            .test(error.message),
      );
      assert.throws(
        () => createPostgresPushConfigStore(store, { lockTimeout: 5 } as never),
        new TypeError(
          "Cannot create the PostgreSQL push config store: unknown option lockTimeout (known: lockTimeoutMs)",
        ),
      );
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  },
});
