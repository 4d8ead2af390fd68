// What `ListTasks` and a follow-up's look-up of its context cost on
// PostgreSQL when the tasks table is large:
//
//   DATABASE_URL=… deno run -A bench/postgres_list.ts [--tasks=50000] [--runs=50]
//     [--other=/path/to/another/checkout]
//
// A schema of its own is migrated by the store, then filled by SQL with
// `--tasks` ended tasks (a tenth of them alice's, the rest made without auth,
// two tasks a context), analyzed, and each query is run `--runs` times
// through `store.list` (medians and p90 printed, in ms). With `--other`, the
// same script of that checkout runs after this one, in its own process, on a
// schema of its own: a before/after pair in one run. Printed, never asserted.
import postgres from "postgres";
import { createPostgresTaskStore } from "../gateway_postgres/mod.ts";

const flags = new Map(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [k, v] = a.slice(2).split("=");
    return [k, v ?? "true"] as const;
  }),
);
const TASKS = Number(flags.get("tasks") ?? 50_000);
const RUNS = Number(flags.get("runs") ?? 50);
const URL_ = Deno.env.get("DATABASE_URL");
if (!URL_) throw new Error("bench/postgres_list.ts needs DATABASE_URL");

const schema = `bench_list_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
const store = await createPostgresTaskStore({ url: URL_, schema });
const sql = postgres(URL_, { max: 1, onnotice: () => {} });
try {
  // Task i: context i/2, alice's when i % 10 = 0, updated at i (the oldest first).
  await sql.unsafe(`
    INSERT INTO "${schema}".tasks (id, context_id, owner, provider, state, updated_at, generation, instance, task)
    SELECT 't' || i, 'ctx-' || (i / 2), CASE WHEN i % 10 = 0 THEN 'alice' END, 'echo',
      'TASK_STATE_COMPLETED', i, 4, NULL,
      json_build_object('id', 't' || i, 'contextId', 'ctx-' || (i / 2),
        'status', json_build_object('state', 'TASK_STATE_COMPLETED'))::text
    FROM generate_series(1, ${TASKS}) AS i`);
  await sql.unsafe(`ANALYZE "${schema}".tasks`);
  const old = `ctx-${Math.floor(TASKS / 20)}`; // near the oldest: most of the table is newer
  const cases: [string, Parameters<typeof store.list>[0]][] = [
    ["a page, no auth", { owner: undefined, limit: 50 }],
    ["a page of alice's", { owner: "alice", limit: 50 }],
    ["a context's tasks, no auth", { owner: undefined, contextId: old, limit: 50 }],
    ["a follow-up's look-up (newest of a context)", {
      owner: undefined,
      provider: "echo",
      contextId: old,
      limit: 1,
    }],
  ];
  console.log(`${TASKS} tasks, ${RUNS} runs each (${import.meta.url})`);
  for (const [name, query] of cases) {
    for (let i = 0; i < 5; i++) await store.list(query); // prepared and planned
    const ms: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await store.list(query);
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(ms.length * q))].toFixed(2);
    console.log(`| ${name} | ${at(0.5)} | ${at(0.9)} |`);
  }
} finally {
  await store.close();
  await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await sql.end();
}

const other = flags.get("other");
if (other) {
  const args = ["run", "-A", "--config", `${other}/deno.json`, `${other}/bench/postgres_list.ts`];
  args.push(`--tasks=${TASKS}`, `--runs=${RUNS}`);
  const { code } = await new Deno.Command(Deno.execPath(), { args, stdout: "inherit" }).output();
  if (code !== 0) throw new Error(`the other checkout's script failed (${code})`);
}
