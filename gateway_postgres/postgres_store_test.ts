import assert from "node:assert/strict";
import postgres from "postgres";
import { testTaskStorage } from "@seam/gateway/testing";
import {
  type A2ATaskState,
  isTaskStorageError,
  type StoredTask,
  type TaskStorage,
} from "@seam/gateway";
import { createPostgresTaskStore, type PostgresTaskStore } from "./mod.ts";
import { storeInternals } from "./postgres_store.ts";
import {
  CUT_CLOSE_GRACE_MS,
  databaseUrl,
  dropSchema,
  freshSchema,
  openStore,
  Relay,
  repeatableReadUrl,
  SKIP,
  withStore,
} from "./_test_support.ts";

Deno.test({
  name: "createPostgresTaskStore() passes the storage conformance suite",
  ignore: SKIP,
  fn: async (t) => {
    const schemas: string[] = [];
    await testTaskStorage(t, {
      open: (leaseTtlMs) => {
        const schema = freshSchema();
        schemas.push(schema);
        return openStore(schema, { leaseTtlMs: Math.max(leaseTtlMs, 100) });
      },
      another: (first) =>
        openStore((first as PostgresTaskStore).schema, { leaseTtlMs: first.leaseTtlMs }),
      close: (storage: TaskStorage) => (storage as PostgresTaskStore).close(),
    });
    for (const schema of schemas) await dropSchema(schema);
  },
});

Deno.test({
  name: "append() writes the appends that wait together in one commit, each answered on its own",
  ignore: SKIP,
  fn: async () => {
    await withStore(1, async (store, sql, schema) => {
      const record = (id: string, state: A2ATaskState): StoredTask => ({
        task: { id, contextId: "ctx", status: { state } },
        owner: undefined,
        provider: "p",
        updatedAt: Date.now(),
      });
      await store.append({
        record: record("old", "TASK_STATE_WORKING"),
        expected: 0,
        events: [{ task: {} }],
        instance: "i1",
      });
      const ids = Array.from({ length: 20 }, (_, i) => `t${i}`);
      const results = await Promise.allSettled([
        ...ids.map((id) =>
          store.append({
            record: record(id, "TASK_STATE_COMPLETED"),
            expected: 0,
            events: [{ task: {} }, { statusUpdate: {} }],
            instance: undefined,
          })
        ),
        // Stale: "old" is at generation 1.
        store.append({
          record: record("old", "TASK_STATE_FAILED"),
          expected: 0,
          events: [{ statusUpdate: {} }],
          instance: undefined,
        }),
      ]);
      assert.deepEqual(
        results.slice(0, 20).map((r) => r.status === "fulfilled" && r.value),
        ids.map(() => 2),
      );
      const stale = results[20];
      assert.ok(stale.status === "rejected" && isTaskStorageError(stale.reason, "CONFLICT"));
      const rows = await sql.unsafe(
        `SELECT count(*)::integer AS n, count(DISTINCT xmin::text)::integer AS commits
         FROM "${schema}".tasks WHERE id LIKE 't%'`,
      );
      assert.equal(rows[0].n, 20);
      assert.ok(rows[0].commits < 20, `20 appends in ${rows[0].commits} commits`);
      assert.equal((await store.read("t7", 0, 10)).length, 2);
      assert.equal((await store.get("old"))?.generation, 1);
      // One that cannot be stored (PostgreSQL text holds no NUL) fails alone.
      const mixed = await Promise.allSettled(
        ["u1", "bad\u0000id", "u2"].map((id) =>
          store.append({
            record: record(id, "TASK_STATE_COMPLETED"),
            expected: 0,
            events: [{ task: {} }],
            instance: undefined,
          })
        ),
      );
      assert.deepEqual(mixed.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
    });
  },
});

Deno.test({
  name:
    "append() writes batches of every size with a few statement texts, the padding writing nothing",
  ignore: SKIP,
  fn: async () => {
    await withStore(1, async (store, sql, schema) => {
      // Batches of 1 to 20 appends: each round's appends wait together.
      for (let n = 1; n <= 20; n++) {
        const generations = await Promise.all(
          Array.from({ length: n }, (_, i) =>
            store.append({
              record: {
                task: {
                  id: `b${n}-${i}`,
                  contextId: "ctx",
                  status: { state: "TASK_STATE_WORKING" },
                },
                owner: undefined,
                provider: "p",
                updatedAt: Date.now(),
              },
              expected: 0,
              events: [{ task: {} }, { statusUpdate: {} }],
              instance: "i1",
            })),
        );
        assert.deepEqual(generations, generations.map(() => 2));
      }
      const [counted] = await sql.unsafe(
        `SELECT (SELECT count(*) FROM "${schema}".tasks)::integer AS tasks,
           (SELECT count(*) FROM "${schema}".events)::integer AS events,
           (SELECT count(DISTINCT xmin::text) FROM "${schema}".tasks)::integer AS commits`,
      );
      assert.deepEqual(counted, { tasks: 210, events: 210, commits: 20 });
      // What each of the store's connections prepared (reserving them all).
      const pool = storeInternals(store, "a test").sql;
      const reserved = await Promise.all([1, 2, 3, 4].map(() => pool.reserve()));
      const texts = new Set<string>();
      try {
        for (const connection of reserved) {
          const rows = await connection<{ statement: string }[]>`
            SELECT statement FROM pg_prepared_statements
            WHERE statement LIKE '%INSERT INTO events%' AND statement NOT LIKE '%pg_prepared%'`;
          for (const row of rows) texts.add(row.statement);
        }
      } finally {
        for (const connection of reserved) connection.release();
      }
      // 1, 2, 3, 4, 6, 8, 12, 16 and 24 rows, not one text per size.
      assert.equal(texts.size, 9);
    });
  },
});

Deno.test({
  name:
    "append() starts a second statement beside one in flight only once eight appends wait; fewer wait for it and go together",
  ignore: SKIP,
  fn: async () => {
    await withStore(2, async (store, sql, schema) => {
      const locker = await sql.reserve();
      const append = (id: string) =>
        store.append({
          record: {
            task: { id, contextId: "ctx", status: { state: "TASK_STATE_COMPLETED" } },
            owner: undefined,
            provider: "p",
            updatedAt: Date.now(),
          },
          expected: 0,
          events: [{ task: {} }],
          instance: undefined,
        });
      const [{ pid }] = await locker`SELECT pg_backend_pid() AS pid`;
      /** The store's statements waiting for the locker's lock. */
      const blocked = async () =>
        (await sql`SELECT count(*)::integer AS n FROM pg_stat_activity
        WHERE ${pid}::integer = ANY(pg_blocking_pids(pid))`)[0].n;
      const until = async (n: number) => {
        for (let i = 0; i < 500 && await blocked() !== n; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        assert.equal(await blocked(), n, `${n} statements in flight`);
      };
      try {
        await locker`BEGIN`;
        // Every append's statement waits for this lock: it stays in flight.
        await locker.unsafe(`LOCK TABLE "${schema}".events IN SHARE MODE`);
        const first = append("a");
        await until(1);
        // Five more, over two turns of the event loop: they wait for "a".
        const waiting = ["b1", "b2"].map(append);
        await new Promise((resolve) => setTimeout(resolve, 20));
        waiting.push(...["c1", "c2", "c3"].map(append));
        await new Promise((resolve) => setTimeout(resolve, 20));
        // Eight waiting: worth a statement of their own beside the one in flight.
        waiting.push(...["d1", "d2", "d3"].map(append));
        await until(2);
        await locker`COMMIT`;
        assert.deepEqual(await Promise.all([first, ...waiting]), Array(9).fill(1));
        const rows = await sql.unsafe<{ id: string; commit: string }[]>(
          `SELECT id, xmin::text AS commit FROM "${schema}".tasks ORDER BY id`,
        );
        const commits = new Map(rows.map((r) => [r.id, r.commit]));
        assert.equal(commits.size, 9);
        const together = new Set(
          ["b1", "b2", "c1", "c2", "c3", "d1", "d2", "d3"].map((id) => commits.get(id)),
        );
        assert.equal(together.size, 1, "the eight that waited, in one commit");
        assert.notEqual(commits.get("a"), [...together][0]);
      } finally {
        locker.release();
      }
    });
  },
});

Deno.test({
  name: "read() answers from a cursor inside an append's events, and stops at limit inside one",
  ignore: SKIP,
  fn: async () => {
    await withStore(1, async (store, sql, schema) => {
      const record: StoredTask = {
        task: { id: "r", contextId: "ctx", status: { state: "TASK_STATE_WORKING" } },
        owner: undefined,
        provider: "p",
        updatedAt: 1,
      };
      const n = (k: number) => ({ artifactUpdate: { n: k } });
      // Appends of 1, 4 and 3 events: generations 1 | 2 3 4 5 | 6 7 8.
      let generation = 0;
      for (const size of [1, 4, 3]) {
        const events = Array.from({ length: size }, (_, i) => n(generation + i + 1));
        generation = await store.append({ record, expected: generation, events, instance: "i" });
      }
      assert.equal(generation, 8);
      const rows = await sql.unsafe(`SELECT count(*)::integer AS n FROM "${schema}".events`);
      assert.equal(rows[0].n, 3, "one row per append");
      const read = async (after: number, limit: number) =>
        (await store.read("r", after, limit)).map((e) => [
          e.generation,
          (e.event.artifactUpdate as { n: number }).n,
        ]);
      assert.deepEqual(await read(0, 100), [1, 2, 3, 4, 5, 6, 7, 8].map((g) => [g, g]));
      assert.deepEqual(await read(2, 2), [[3, 3], [4, 4]], "from inside the second row, cut in it");
      assert.deepEqual(await read(4, 3), [[5, 5], [6, 6], [7, 7]], "across two rows");
      assert.deepEqual(await read(5, 10), [[6, 6], [7, 7], [8, 8]], "from a row's end");
      assert.deepEqual(await read(7, 10), [[8, 8]], "the last event alone");
      assert.deepEqual(await read(8, 10), [], "past the end");
      assert.deepEqual(await read(0, 1), [[1, 1]]);
      assert.deepEqual(await read(1, 0), [], "limit 0");
    });
  },
});

Deno.test({
  name:
    "createPostgresTaskStore() commits as the server says unless synchronousCommit is false, then without waiting for the flush",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const server = postgres(databaseUrl()!, { max: 1, onnotice: () => {} });
    const stores: PostgresTaskStore[] = [];
    try {
      const serverSetting = (await server`SHOW synchronous_commit`)[0].synchronous_commit;
      const setting = async (options: { synchronousCommit?: boolean }) => {
        const store = await createPostgresTaskStore({ url: databaseUrl()!, schema, ...options });
        stores.push(store);
        const rows = await storeInternals(store, "a test").sql`SHOW synchronous_commit`;
        return rows[0].synchronous_commit;
      };
      assert.equal(await setting({}), serverSetting);
      assert.equal(await setting({ synchronousCommit: true }), serverSetting);
      assert.equal(await setting({ synchronousCommit: false }), "off");
      await assert.rejects(
        () =>
          createPostgresTaskStore({
            url: databaseUrl()!,
            schema,
            synchronousCommit: "off" as unknown as boolean,
          }),
        /synchronousCommit must be a boolean, got "off"/,
      );
    } finally {
      for (const store of stores) await store.close();
      await server.end({ timeout: 5 });
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name:
    "createPostgresTaskStore() runs read committed whatever its role defaults to: appends that lose a race answer CONFLICT, not a serialization failure",
  ignore: SKIP,
  fn: async () => {
    const url = await repeatableReadUrl();
    const schema = freshSchema();
    const stores = [await openStore(schema, { url }), await openStore(schema, { url })];
    try {
      const [a, b] = stores;
      const [{ isolation }] = await storeInternals(a, "a test").sql`
        SELECT current_setting('transaction_isolation') AS isolation`;
      assert.equal(isolation, "read committed");
      const record = (id: string): StoredTask => ({
        task: { id, contextId: "c", status: { state: "TASK_STATE_WORKING" } },
        owner: undefined,
        provider: "p",
        updatedAt: Date.now(),
      });
      const append = (store: TaskStorage, id: string, expected: number) =>
        store.append({
          record: record(id),
          expected,
          events: [{ statusUpdate: {} }],
          instance: "i1",
        });
      await append(a, "t1", 0);
      // Ten writers at generation 1 (and four creating t2), from two stores at once: one of
      // each wins, every other one is told it lost.
      const results = await Promise.allSettled([
        ...Array.from({ length: 10 }, (_, i) => append(i % 2 ? a : b, "t1", 1)),
        ...Array.from({ length: 4 }, (_, i) => append(i % 2 ? a : b, "t2", 0)),
      ]);
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
      assert.equal(won.length, 2, JSON.stringify(results.map((r) => r.status)));
      for (const error of lost) {
        assert.ok(isTaskStorageError(error, "CONFLICT"), `not a conflict: ${error}`);
      }
    } finally {
      for (const store of stores) await store.close();
      await dropSchema(schema);
    }
  },
});

Deno.test(
  "createPostgresTaskStore() refuses a URL that sets another default_transaction_isolation, naming it",
  async () => {
    // PostgreSQL reads the setting's name whatever its case, and the client
    // takes URLs of several hosts, which `URL` refuses.
    const refused = [
      ["?default_transaction_isolation=repeatable%20read", "repeatable read"],
      ["?DEFAULT_TRANSACTION_ISOLATION=repeatable+read", "repeatable read"],
      [",127.0.0.1:2/none?a=1&Default_Transaction_Isolation=SERIALIZABLE", "serializable"],
    ];
    for (const [tail, value] of refused) {
      const url = `postgres://nobody@127.0.0.1:1${tail.startsWith(",") ? "" : "/none"}${tail}`;
      await assert.rejects(
        () => createPostgresTaskStore({ url }),
        (error: Error) => {
          assert.ok(error instanceof TypeError, url);
          assert.match(error.message, new RegExp(`default_transaction_isolation to "${value}"`));
          assert.match(error.message, /needs read committed/);
          return true;
        },
      );
    }
    // Read committed spelled any way is what the store runs anyway: not refused for that.
    for (const value of ["read committed", "READ  Committed"]) {
      const spelled = `postgres://nobody@127.0.0.1:1/none?default_transaction_isolation=${
        encodeURIComponent(value)
      }`;
      await assert.rejects(
        () => createPostgresTaskStore({ url: spelled, connectTimeoutMs: 1_000 }),
        (error: Error) => !/default_transaction_isolation/.test(error.message),
      );
    }
  },
);

Deno.test({
  name:
    "close() after a connection was lost with a statement on it ends within closeGraceMs, not the client's 5 s",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const relay = new Relay(new URL(databaseUrl()!));
    relay.open();
    const store = await openStore(schema, { url: relay.url, closeGraceMs: 100 });
    try {
      // The client keeps counting the lost statement in flight (postgres.js
      // issue #1097): its end waits for it as long as it is let.
      relay.dropOn("lost-with-its-connection");
      await assert.rejects(
        async () => await store.get("lost-with-its-connection"),
        (error: Error) => isTaskStorageError(error, "UNAVAILABLE"),
      );
      const started = performance.now();
      await store.close();
      const took = performance.now() - started;
      assert.ok(took < 2_000, `close() took ${Math.round(took)} ms`);
    } finally {
      await store.close();
      await relay.cut();
      await dropSchema(schema);
    }
  },
});

Deno.test("createPostgresTaskStore() refuses a closeGraceMs that is not a number of at least 0, naming it", async () => {
  for (
    const closeGraceMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, "100" as unknown as number]
  ) {
    await assert.rejects(
      () => createPostgresTaskStore({ url: "postgres://nobody@127.0.0.1:1/none", closeGraceMs }),
      (error: Error) => {
        assert.ok(error instanceof RangeError, String(closeGraceMs));
        assert.match(error.message, /closeGraceMs must be a number of at least 0, got/);
        return true;
      },
    );
  }
});

/** Task "w", live, as the watchers tests append it. */
function watchedTask(): StoredTask {
  return {
    task: { id: "w", contextId: "ctx", status: { state: "TASK_STATE_WORKING" } },
    owner: undefined,
    provider: "p",
    updatedAt: 1,
  };
}

/** How many watchers rows `schema` holds. */
async function watcherRows(sql: postgres.Sql, schema: string): Promise<number> {
  return (await sql.unsafe(`SELECT count(*)::integer AS n FROM "${schema}".watchers`))[0].n;
}

/** Wait until `check` holds, 5 s at most. */
async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within 5 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test({
  name:
    "subscribe() right after a task's last listener left stays notified: the listener's row is written after the leaving one's delete",
  ignore: SKIP,
  fn: async () => {
    await withStore(2, async (other, sql, schema) => {
      const store = await openStore(schema);
      const record = watchedTask();
      const watchers = () => watcherRows(sql, schema);
      let release = () => {};
      let holding: Promise<unknown> = Promise.resolve();
      try {
        await other.append({ record, expected: 0, events: [{ task: {} }], instance: "i" });
        const first = store.subscribe("w", () => {});
        await until("the first listener's row", async () => (await watchers()) === 1);
        // Another session holds the row, so the leaving listener's DELETE waits
        // (as a slow pool connection may) while the next listener subscribes.
        let locked = () => {};
        const isLocked = new Promise<void>((resolve) => locked = resolve);
        let holder = 0;
        holding = sql.begin(async (tx) => {
          holder = (await tx`SELECT pg_backend_pid() AS pid`)[0].pid;
          await tx.unsafe(`SELECT * FROM "${schema}".watchers FOR UPDATE`);
          locked();
          await new Promise<void>((resolve) => release = resolve);
        });
        await isLocked;
        first();
        const blocked = async () =>
          (await sql`
            SELECT pid FROM pg_stat_activity WHERE ${holder}::integer = ANY(pg_blocking_pids(pid))`)
            .map((row) => row.pid as number);
        let deleter = 0;
        await until(
          "the delete waiting for the row",
          async () => (deleter = (await blocked())[0]) > 0,
        );
        const heard: number[] = [];
        const second = store.subscribe("w", (generation) => heard.push(generation));
        // Its row written meanwhile, if it does not wait for the delete.
        await new Promise((r) => setTimeout(r, 300));
        release();
        await holding;
        await until(
          "the delete done",
          async () =>
            (await sql`SELECT 1 FROM pg_stat_activity WHERE pid = ${deleter} AND state = 'active'`)
              .length === 0,
        );
        await until("the second listener woken once listening", () => heard.includes(0));
        await other.append({ record, expected: 1, events: [{ task: {} }], instance: "i" });
        await until("the append heard on the other store", () => heard.includes(2));
        assert.equal(await watchers(), 1, "the listening store's row is kept");
        second();
      } finally {
        release();
        await holding.catch(() => {});
        await store.close();
      }
    });
  },
});

Deno.test({
  name:
    "subscribe() hears an append that began before its watchers row and committed more than a second after it",
  ignore: SKIP,
  fn: async () => {
    await withStore(2, async (other, sql, schema) => {
      const store = await openStore(schema);
      const record = watchedTask();
      let release = () => {};
      let holding: Promise<unknown> = Promise.resolve();
      let appending: Promise<unknown> = Promise.resolve();
      try {
        await other.append({ record, expected: 0, events: [{ task: {} }], instance: "i" });
        // Another session holds the task's row, so the next append's statement
        // (its snapshot taken, no watchers row in it) waits, as on a busy database.
        let locked = () => {};
        const isLocked = new Promise<void>((resolve) => locked = resolve);
        let holder = 0;
        holding = sql.begin(async (tx) => {
          holder = (await tx`SELECT pg_backend_pid() AS pid`)[0].pid;
          await tx.unsafe(`SELECT * FROM "${schema}".tasks WHERE id = 'w' FOR UPDATE`);
          locked();
          await new Promise<void>((resolve) => release = resolve);
        });
        await isLocked;
        appending = Promise.resolve(
          other.append({ record, expected: 1, events: [{ task: {} }], instance: "i" }),
        );
        await until(
          "the append waiting for the row",
          async () =>
            (await sql`
              SELECT 1 FROM pg_stat_activity WHERE ${holder}::integer = ANY(pg_blocking_pids(pid))`)
              .length > 0,
        );
        const heard: number[] = [];
        const stop = store.subscribe("w", (generation) => heard.push(generation));
        await until("the listener's row", async () => (await watcherRows(sql, schema)) === 1);
        // Past the wake a second after the row: the append commits unannounced.
        await new Promise((r) => setTimeout(r, 1_300));
        const before = heard.length;
        release();
        await holding;
        assert.equal(await appending, 2);
        await until("a wake after the append committed", () => heard.length > before);
        assert.equal((await store.read("w", 1, 10)).length, 1);
        stop();
      } finally {
        release();
        await holding.catch(() => {});
        await appending.catch(() => {});
        await store.close();
      }
    });
  },
});

Deno.test({
  name: "heartbeat() comes through when only its clean-up fails: the lease is renewed",
  ignore: SKIP,
  fn: async () => {
    await withStore(1, async (store, sql, schema) => {
      // The clean-up deletes stale commands; without their table it fails.
      await sql.unsafe(`DROP TABLE "${schema}".commands`);
      const expiry = async () =>
        (await sql.unsafe(
          `SELECT extract(epoch FROM expires_at)::float8 AS at FROM "${schema}".instances WHERE id = 'i'`,
        ))[0].at as number;
      // The clean-up runs every 20th heartbeat.
      for (let i = 0; i < 19; i++) await store.heartbeat("i");
      const before = await expiry();
      await new Promise((r) => setTimeout(r, 20));
      await store.heartbeat("i");
      assert.ok((await expiry()) > before, "the lease renewed");
    });
  },
});

Deno.test({
  name:
    "heartbeat()'s clean-up forgets the watchers of stores gone for a day, not a store's that still listens",
  ignore: SKIP,
  fn: async () => {
    await withStore(1, async (other, sql, schema) => {
      const store = await openStore(schema);
      const record: StoredTask = {
        task: { id: "old", contextId: "ctx", status: { state: "TASK_STATE_WORKING" } },
        owner: undefined,
        provider: "p",
        updatedAt: 1,
      };
      const watchers = async () =>
        (await sql.unsafe(`SELECT watcher FROM "${schema}".watchers ORDER BY watcher`)).map((
          row,
        ) => row.watcher as string);
      try {
        await other.append({ record, expected: 0, events: [{ task: {} }], instance: "i" });
        const heard: number[] = [];
        const off = store.subscribe("old", (generation) => heard.push(generation));
        for (let i = 0; i < 500 && (await watchers()).length === 0; i++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        const [listening] = await watchers();
        // A store killed a day ago left a row too; both rows are two days old.
        await sql.unsafe(
          `INSERT INTO "${schema}".watchers (task_id, watcher) VALUES ('old', 'gone')`,
        );
        await sql.unsafe(`UPDATE "${schema}".watchers SET created_at = now() - interval '2 days'`);
        // The clean-up runs every 20th heartbeat.
        for (let i = 0; i < 20; i++) await store.heartbeat("i");
        assert.deepEqual(await watchers(), [listening], "the listening store's row is kept");
        await other.append({ record, expected: 1, events: [{ task: {} }], instance: "i" });
        for (let i = 0; i < 500 && !heard.includes(2); i++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        assert.ok(heard.includes(2), `the append heard: ${heard}`);
        off();
      } finally {
        await store.close();
      }
    });
  },
});

Deno.test({
  name:
    "subscribe() whose watchers row could not be written writes it again: the task's appends elsewhere are still announced here",
  ignore: SKIP,
  fn: async () => {
    await withStore(2, async (other, sql, schema) => {
      // Its connection is terminated with a statement on it.
      const store = await openStore(schema, { closeGraceMs: CUT_CLOSE_GRACE_MS });
      const record = watchedTask();
      const watchers = () => watcherRows(sql, schema);
      let release = () => {};
      let holding: Promise<unknown> = Promise.resolve();
      let off = () => {};
      try {
        await other.append({ record, expected: 0, events: [{ task: {} }], instance: "i" });
        // Another session holds the table, so the subscribe's INSERT waits; its
        // connection is then lost (terminated), the row not written.
        let locked = () => {};
        const isLocked = new Promise<void>((resolve) => locked = resolve);
        let holder = 0;
        holding = sql.begin(async (tx) => {
          holder = (await tx`SELECT pg_backend_pid() AS pid`)[0].pid;
          await tx.unsafe(`LOCK TABLE "${schema}".watchers IN EXCLUSIVE MODE`);
          locked();
          await new Promise<void>((resolve) => release = resolve);
        });
        await isLocked;
        const heard: number[] = [];
        off = store.subscribe("w", (generation) => heard.push(generation));
        let inserter = 0;
        await until("the INSERT waiting for the table", async () => {
          const rows = await sql`
            SELECT pid FROM pg_stat_activity WHERE ${holder}::integer = ANY(pg_blocking_pids(pid))`;
          return (inserter = rows[0]?.pid ?? 0) > 0;
        });
        await sql`SELECT pg_terminate_backend(${inserter}::integer)`;
        await until("the listener woken at the failure", () => heard.includes(0));
        release();
        await holding;
        await until("the row written again", async () => (await watchers()) === 1);
        await other.append({ record, expected: 1, events: [{ task: {} }], instance: "i" });
        await until("the append heard on the other store", () => heard.includes(2));
      } finally {
        off();
        release();
        await holding.catch(() => {});
        await store.close();
      }
    });
  },
});

Deno.test({
  name:
    "subscribe() on a closed store leaves no timer behind (its watchers row is not tried again)",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const store = await openStore(schema);
    await store.close();
    const heard: number[] = [];
    const off = store.subscribe("w", (generation) => heard.push(generation));
    // The row's write fails on the ended pool and wakes the listener.
    await until("the listener woken at the failure", () => heard.includes(0));
    off();
    await dropSchema(schema);
  },
});

Deno.test("createPostgresTaskStore() refuses an unknown option before it connects", async () => {
  await assert.rejects(
    createPostgresTaskStore({ url: "postgres://127.0.0.1:1/none", maxConnection: 2 } as never),
    (error: unknown) =>
      error instanceof TypeError &&
      /^Cannot create the PostgreSQL task store: unknown option maxConnection \(known: url, schema, leaseTtlMs, maxConnections, .*synchronousCommit\)$/
        .test(error.message),
  );
});
