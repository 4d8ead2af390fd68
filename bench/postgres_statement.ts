// What one group-commit statement costs, split into its fixed part and its
// part per append, on each side of the connection:
//
//   DATABASE_URL=… deno run -A bench/postgres_statement.ts [--rows=1,5,16,64]
//     [--appends=4000] [--rounds=3]
//
// Batches of `rows` appends of new tasks (the task and events of one blocking
// `SendMessage` to an echo provider, ~2.8 kB of JSON) go through the
// PostgreSQL store one after the other (`appendsInFlight: 1`, so each batch
// is one statement), `--appends` appends per size, in alternating rounds
// with and without `synchronousCommit` (medians reported). CPU is read
// from /proc: this process's (the client: postgres.js, the batching, the
// JSON), and every `postgres` process's (the server and its backends).
// Linux only. Printed, never asserted.
import process from "node:process";
import postgres from "postgres";
import type { A2ATask } from "../gateway/mod.ts";
import { createPostgresTaskStore } from "../gateway_postgres/mod.ts";
import { postgresSeconds } from "./_proc_cpu.ts";

const flags = new Map(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [k, v] = a.slice(2).split("=");
    return [k, v ?? "true"] as const;
  }),
);
const ROWS = (flags.get("rows") ?? "1,5,16,64").split(",").map(Number);
const APPENDS = Number(flags.get("appends") ?? 4_000);
const ROUNDS = Number(flags.get("rounds") ?? 3);
const URL_ = Deno.env.get("DATABASE_URL");
if (!URL_) throw new Error("bench/postgres_statement.ts needs DATABASE_URL");
/** A task as a blocking `SendMessage` to the echo provider leaves it, and the events of its one append. */
function sendMessageAppend(id: string): { task: A2ATask; events: Record<string, unknown>[] } {
  const contextId = crypto.randomUUID();
  const at = new Date().toISOString();
  const ext = { provider: "echo", runId: crypto.randomUUID() };
  const zero = {
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    modelCalls: 0,
    toolCalls: 0,
    wallTimeMs: 1,
  };
  const ended = {
    ...ext,
    stopReason: "completed",
    usage: { self: zero, total: zero, partial: true },
  };
  const key = "https://jsr.io/@seam/gateway/extensions/subagent/v1";
  const history = [{
    messageId: "load-1",
    role: "ROLE_USER",
    parts: [{ text: "hello from the load" }],
    taskId: id,
    contextId,
  }];
  const artifact = {
    artifactId: "output",
    name: "output",
    parts: [{ text: "hello from the load" }],
  };
  const task = {
    id,
    contextId,
    status: { state: "TASK_STATE_COMPLETED", timestamp: at },
    history,
    metadata: { [key]: ended },
    artifacts: [artifact],
  } as unknown as A2ATask;
  const status = (state: string, metadata: unknown) => ({
    statusUpdate: {
      taskId: id,
      contextId,
      status: { state, timestamp: at },
      metadata: { [key]: metadata },
    },
  });
  const events = [
    {
      task: {
        id,
        contextId,
        status: { state: "TASK_STATE_SUBMITTED", timestamp: at },
        history,
        metadata: { [key]: ext },
      },
    },
    status("TASK_STATE_WORKING", ext),
    { artifactUpdate: { taskId: id, contextId, artifact, append: false, lastChunk: true } },
    status("TASK_STATE_COMPLETED", ended),
  ];
  return { task, events };
}

interface Cost {
  wallUs: number;
  serverUs: number;
  clientUs: number;
}

async function measure(rows: number, synchronousCommit: boolean | undefined): Promise<Cost> {
  const schema = `bench_stmt_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const store = await createPostgresTaskStore({
    url: URL_!,
    schema,
    appendsInFlight: 1,
    synchronousCommit,
  });
  const batch = () =>
    Promise.all(Array.from({ length: rows }, () => {
      const { task, events } = sendMessageAppend(crypto.randomUUID());
      return store.append({
        record: { task, owner: undefined, provider: "echo", updatedAt: Date.now() },
        expected: 0,
        events,
        instance: undefined,
      });
    }));
  try {
    for (let i = 0; i < 20; i++) await batch(); // each connection prepares, plans, settles
    const statements = Math.ceil(APPENDS / rows);
    const server0 = await postgresSeconds();
    const client0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < statements; i++) await batch();
    const wallUs = (performance.now() - t0) * 1000 / statements;
    const client = process.cpuUsage(client0);
    const serverUs = (await postgresSeconds() - server0) * 1e6 / statements;
    return { wallUs, serverUs, clientUs: (client.user + client.system) / statements };
  } finally {
    await store.close();
    const sql = postgres(URL_!, { max: 1, onnotice: () => {} });
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await sql.end();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const KINDS = [["synchronous", undefined], ["synchronousCommit: false", false]] as const;
const costs = new Map<string, Cost[]>();
for (let round = 1; round <= ROUNDS; round++) {
  for (const rows of ROWS) {
    for (const [name, sync] of KINDS) {
      const cost = await measure(rows, sync);
      const key = `${name}|${rows}`;
      costs.set(key, [...(costs.get(key) ?? []), cost]);
      console.log(
        `round ${round} ${name}, ${rows} rows: ${cost.wallUs.toFixed(0)} µs/statement, PostgreSQL ${
          cost.serverUs.toFixed(0)
        } µs, client ${cost.clientUs.toFixed(0)} µs`,
      );
    }
  }
}

console.log(
  `\nOne statement of n appends, one at a time; medians of ${ROUNDS} alternating rounds of ${APPENDS} appends; Deno ${Deno.version.deno}\n`,
);
console.log(
  "| commit | appends per statement | µs per statement (wall) | µs CPU in PostgreSQL | per append | µs CPU in the client | per append |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const [name] of KINDS) {
  for (const rows of ROWS) {
    const list = costs.get(`${name}|${rows}`)!;
    const wall = median(list.map((c) => c.wallUs));
    const server = median(list.map((c) => c.serverUs));
    const client = median(list.map((c) => c.clientUs));
    console.log(
      `| ${name} | ${rows} | ${wall.toFixed(0)} | ${server.toFixed(0)} | ${
        (server / rows).toFixed(0)
      } | ${client.toFixed(0)} | ${(client / rows).toFixed(0)} |`,
    );
  }
}
