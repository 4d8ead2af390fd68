import assert from "node:assert/strict";
import postgres from "postgres";
import { migrate, MIGRATIONS } from "./_migrations.ts";
import { databaseUrl, dropSchema, freshSchema, openStore, SKIP } from "./_test_support.ts";

async function withSql(fn: (sql: postgres.Sql) => Promise<void>): Promise<void> {
  const sql = postgres(databaseUrl()!, { max: 1, onnotice: () => {} });
  try {
    await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

Deno.test({
  name:
    "createPostgresTaskStore() applies its migrations once, even to instances starting together",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    try {
      const stores = await Promise.all([openStore(schema), openStore(schema), openStore(schema)]);
      assert.deepEqual(stores.map((s) => s.migrationsApplied).sort(), [0, 0, MIGRATIONS.length]);
      for (const s of stores) await s.close();
      const again = await openStore(schema);
      assert.equal(again.migrationsApplied, 0);
      await again.close();
      await withSql(async (sql) => {
        const rows = await sql.unsafe(`SELECT version, name FROM "${schema}".migrations`);
        assert.deepEqual(rows.map((r) => r.version), MIGRATIONS.map((m) => m.version));
      });
    } finally {
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name: "createPostgresTaskStore() stops start-up with the reason when a migration cannot apply",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    try {
      await withSql(async (sql) => {
        await sql.unsafe(
          `CREATE SCHEMA "${schema}"; CREATE VIEW "${schema}".tasks AS SELECT 1 AS x`,
        );
      });
      await assert.rejects(
        () => openStore(schema),
        (error: Error) => {
          assert.match(error.message, /^Cannot start the PostgreSQL task store/);
          assert.match(error.message, /migration 1 \(tasks, events, instances, commands\) failed/);
          assert.match(error.message, /"tasks" already exists/);
          return true;
        },
      );
      await withSql(async (sql) => {
        const rows = await sql.unsafe(
          `SELECT to_regclass('"${schema}".migrations') AS m, to_regclass('"${schema}".events') AS t`,
        );
        assert.equal(rows[0].m, null, "a failed start-up records nothing");
        const events = rows;
        assert.equal(events[0].t, null, "a failed migration leaves none of its tables");
      });
    } finally {
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name: "createPostgresTaskStore() refuses a schema migrated further than it knows",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    try {
      await (await openStore(schema)).close();
      await withSql(async (sql) => {
        await sql.unsafe(
          `INSERT INTO "${schema}".migrations (version, name) VALUES (99, 'future')`,
        );
      });
      await assert.rejects(() => openStore(schema), /schema is at migration 99, newer than/);
    } finally {
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name: "createPostgresTaskStore() says so when the database cannot be reached",
  ignore: SKIP,
  fn: async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close(); // nothing listens there now
    await assert.rejects(
      () => openStore(freshSchema(), { url: `postgres://postgres@127.0.0.1:${port}/test` }),
      /Cannot start the PostgreSQL task store .*ECONNREFUSED/,
    );
  },
});

Deno.test({
  name: "migration 4 turns the one-event rows of a schema at migration 3 into rows it reads",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    try {
      await withSql(async (sql) => {
        assert.equal(await migrate(sql, schema, MIGRATIONS.slice(0, 3)), 3);
        await sql.unsafe(
          `INSERT INTO "${schema}".tasks (id, context_id, provider, state, updated_at, generation, task)
           VALUES ('old', 'ctx', 'p', 'TASK_STATE_WORKING', 1, 3, '{}');
           INSERT INTO "${schema}".events (task_id, generation, event) VALUES
             ('old', 1, '{"task":{"n":1}}'), ('old', 2, '{"statusUpdate":{"n":2}}'),
             ('old', 3, '{"artifactUpdate":{"n":3}}')`,
        );
      });
      const store = await openStore(schema);
      try {
        assert.equal(store.migrationsApplied, MIGRATIONS.length - 3);
        assert.deepEqual(await store.read("old", 1, 10), [
          { generation: 2, event: { statusUpdate: { n: 2 } } },
          { generation: 3, event: { artifactUpdate: { n: 3 } } },
        ]);
        // The next append follows the converted rows.
        assert.equal(
          await store.append({
            record: {
              task: { id: "old", contextId: "ctx", status: { state: "TASK_STATE_COMPLETED" } },
              owner: undefined,
              provider: "p",
              updatedAt: 2,
            },
            expected: 3,
            events: [{ statusUpdate: { n: 4 } }, { statusUpdate: { n: 5 } }],
            instance: undefined,
          }),
          5,
        );
        assert.deepEqual((await store.read("old", 0, 10)).map((e) => e.generation), [
          1,
          2,
          3,
          4,
          5,
        ]);
      } finally {
        await store.close();
      }
    } finally {
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name: "an append's row of a few kB is stored as it is; a larger one is compressed",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const store = await openStore(schema);
    try {
      const append = (id: string, text: string) =>
        store.append({
          record: {
            task: { id, contextId: "ctx", status: { state: "TASK_STATE_COMPLETED" } },
            owner: undefined,
            provider: "p",
            updatedAt: 1,
          },
          expected: 0,
          events: [{ artifactUpdate: { text } }],
          instance: undefined,
        });
      await append("small", "x".repeat(5_000));
      await append("large", "x".repeat(20_000));
      await withSql(async (sql) => {
        const rows = await sql.unsafe(
          `SELECT task_id, pg_column_compression(events) AS c FROM "${schema}".events ORDER BY task_id`,
        );
        assert.deepEqual(rows.map((r) => [r.task_id, r.c !== null]), [
          ["large", true],
          ["small", false],
        ]);
      });
      assert.equal(
        ((await store.read("small", 0, 1))[0].event.artifactUpdate as { text: string }).text.length,
        5_000,
      );
    } finally {
      await store.close();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name: "migration 6 keys commands by a text id and drops those of a schema at migration 5",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    try {
      await withSql(async (sql) => {
        assert.equal(await migrate(sql, schema, MIGRATIONS.slice(0, 5)), 5);
        // An old command, its sender stopped with the upgrade.
        await sql.unsafe(`INSERT INTO "${schema}".commands (target, command) VALUES ('a', '{}')`);
      });
      const store = await openStore(schema);
      try {
        assert.equal(store.migrationsApplied, MIGRATIONS.length - 5);
        const heard: unknown[] = [];
        const stop = store.serve("a", (command) => {
          heard.push(command);
          return Promise.resolve({ ok: true });
        });
        try {
          assert.deepEqual(await store.send("a", { n: 1 }, 5_000), { ok: true });
          assert.deepEqual(heard, [{ n: 1 }], "the old command is gone, the new one ran");
        } finally {
          stop();
        }
      } finally {
        await store.close();
      }
      await withSql(async (sql) => {
        const [column] = await sql.unsafe(
          `SELECT data_type FROM information_schema.columns
           WHERE table_schema = '${schema}' AND table_name = 'commands' AND column_name = 'id'`,
        );
        assert.equal(column.data_type, "text");
      });
    } finally {
      await dropSchema(schema);
    }
  },
});

/**
 * The plan PostgreSQL chooses for `query` on a migrated schema whose tasks
 * `seed` wrote (each selecting id, context_id, state, updated_at: `$TASKS`
 * stands for the table's name).
 */
async function planOf(seed: readonly string[], query: string): Promise<string> {
  const schema = freshSchema();
  const named = (text: string) => text.replaceAll("$TASKS", `"${schema}".tasks`);
  try {
    const store = await openStore(schema);
    await store.close();
    let plan = "";
    await withSql(async (sql) => {
      for (const select of seed) {
        await sql.unsafe(
          `INSERT INTO ${
            named("$TASKS")
          } (id, context_id, state, updated_at, provider, generation, task)
           SELECT *, 'p', 1, '{}' FROM (${named(select)}) AS seeded`,
        );
      }
      await sql.unsafe(`ANALYZE ${named("$TASKS")}`);
      const rows = await sql.unsafe(`EXPLAIN ${named(query)}`);
      plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    return plan;
  } finally {
    await dropSchema(schema);
  }
}

Deno.test({
  name: "migration 7 indexes tasks by context, which a context's list reads",
  ignore: SKIP,
  fn: async () => {
    // Enough tasks in other contexts that reading them all is the costlier plan.
    const plan = await planOf(
      [`SELECT 't' || i, 'ctx-' || i, 'TASK_STATE_COMPLETED', i FROM generate_series(1, 5000) AS i`],
      `SELECT task FROM $TASKS
       WHERE owner IS NULL AND context_id = 'ctx-7' ORDER BY owner, updated_at DESC, id DESC`,
    );
    assert.match(plan, /tasks_by_context/);
  },
});

Deno.test({
  name: "migration 8 indexes the tasks waiting for input, which a context-only answer reads",
  ignore: SKIP,
  fn: async () => {
    // One long conversation (many ended tasks in the context, one waiting)
    // among many live tasks of other contexts: neither the context's index
    // nor the live tasks' reads the waiting one alone.
    const plan = await planOf(
      [
        `SELECT 't' || i, 'ctx',
           CASE WHEN i = 7 THEN 'TASK_STATE_INPUT_REQUIRED' ELSE 'TASK_STATE_COMPLETED' END, i
         FROM generate_series(1, 5000) AS i`,
        `SELECT 'l' || i, 'ctx-' || i, 'TASK_STATE_WORKING', i FROM generate_series(1, 5000) AS i`,
      ],
      `SELECT task FROM $TASKS
       WHERE context_id = 'ctx'
         AND state IN ('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED') AND owner IS NULL
       ORDER BY updated_at DESC, id DESC LIMIT 11`,
    );
    assert.match(
      plan,
      /Index Scan using tasks_waiting on tasks[^\n]*\n\s*Index Cond: \(context_id = /,
    );
  },
});
