// What a message naming only its context costs on PostgreSQL before it is
// routed: the read of the context's tasks waiting for input
// (`store.waiting`), with migration 8's `tasks_waiting` and without it (the
// index dropped: the planner's best other path), on the same data in one run:
//
//   DATABASE_URL=… deno run -A bench/postgres_waiting.ts [--ended=5000] [--live=20000] [--runs=200]
//
// The data: one long conversation (`--ended` ended tasks and one waiting, in
// one context) among `--live` live tasks of other contexts. The two indexes'
// batches alternate, four each; medians and p90 of all runs printed, in ms.
// Printed, never asserted.
import postgres from "postgres";
import { createPostgresTaskStore } from "../gateway_postgres/mod.ts";

const flags = new Map(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [k, v] = a.slice(2).split("=");
    return [k, v ?? "true"] as const;
  }),
);
const ENDED = Number(flags.get("ended") ?? 5_000);
const LIVE = Number(flags.get("live") ?? 20_000);
const RUNS = Number(flags.get("runs") ?? 200);
const URL_ = Deno.env.get("DATABASE_URL");
if (!URL_) throw new Error("bench/postgres_waiting.ts needs DATABASE_URL");

const schema = `bench_wait_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
const store = await createPostgresTaskStore({ url: URL_, schema });
const sql = postgres(URL_, { max: 1, onnotice: () => {} });
const row = (id: string, context: string, state: string, at: string) =>
  `SELECT ${id}, ${context}, NULL, 'echo', ${state}, ${at}, 2, NULL,
     json_build_object('id', ${id}, 'contextId', ${context},
       'status', json_build_object('state', ${state}))::text`;
try {
  const into = `INSERT INTO "${schema}".tasks
    (id, context_id, owner, provider, state, updated_at, generation, instance, task)`;
  await sql.unsafe(`${into} ${
    row(
      "'t' || i",
      "'long'",
      `CASE WHEN i = ${ENDED} THEN 'TASK_STATE_INPUT_REQUIRED' ELSE 'TASK_STATE_COMPLETED' END`,
      "i",
    )
  } FROM generate_series(1, ${ENDED}) AS i`);
  await sql.unsafe(
    `${into} ${
      row("'l' || i", "'ctx-' || i", "'TASK_STATE_WORKING'", "i")
    } FROM generate_series(1, ${LIVE}) AS i`,
  );
  await sql.unsafe(`ANALYZE "${schema}".tasks`);
  const index = await sql.unsafe(
    `SELECT indexdef FROM pg_indexes WHERE schemaname = '${schema}' AND indexname = 'tasks_waiting'`,
  );
  const create = index[0].indexdef as string;
  const query = { owner: undefined, contextId: "long", limit: 11 };
  const times = { with: [] as number[], without: [] as number[] };
  for (let round = 0; round < 8; round++) {
    const indexed = round % 2 === 0;
    if (indexed && round > 0) await sql.unsafe(create);
    if (!indexed) await sql.unsafe(`DROP INDEX "${schema}".tasks_waiting`);
    const found = await store.waiting(query); // planned (again) after the change
    if (found.length !== 1) throw new Error(`expected one waiting task, found ${found.length}`);
    for (let i = 0; i < RUNS / 4; i++) {
      const t0 = performance.now();
      await store.waiting(query);
      (indexed ? times.with : times.without).push(performance.now() - t0);
    }
  }
  const at = (ms: number[], q: number) =>
    [...ms].sort((a, b) => a - b)[Math.min(ms.length - 1, Math.floor(ms.length * q))].toFixed(2);
  console.log(`${ENDED} ended tasks and 1 waiting in the context, ${LIVE} live tasks elsewhere`);
  console.log(`| index | p50 (ms) | p90 (ms) |`);
  for (const [name, ms] of Object.entries(times)) {
    console.log(`| ${name} tasks_waiting | ${at(ms, 0.5)} | ${at(ms, 0.9)} |`);
  }
} finally {
  await store.close();
  await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await sql.end();
}
