// The gateway on PostgreSQL (issue 18), each figure against its baseline in
// the same run:
//
//   DATABASE_URL=postgres://… deno run -A bench/postgres_figures.ts [--events=20000]
//
// 1. events appended per second: a run's text deltas through the journal
//    (batched, coalesced) against one commit per event;
// 2. replay of 1,000 events from a cursor: the store's read, and a whole
//    SubscribeToTask replay over HTTP;
// 3. cross-instance fan-out: an append on one store handle until another
//    handle (its own connections, as another instance) has read the entry;
// 4. owner SIGKILL → terminal: two instances (gateway_postgres/testdata),
//    a streaming task on one, killed; until the other's stream ends FAILED.
// SendMessage req/s on PostgreSQL against memory is bench/gateway_load.ts
// with `--only=gateway,gateway-pg`. Timings are printed, never asserted.
import postgres from "postgres";
import { createLogger } from "@seam/host";
import { Journal } from "../gateway/cluster/_journal.ts";
import type { StoredTask } from "../gateway/mod.ts";
import { createPostgresTaskStore, type PostgresTaskStore } from "../gateway_postgres/mod.ts";
import { openStream, rpc, startInstance, textOf } from "../gateway_postgres/_test_support.ts";

const URL_ = Deno.env.get("DATABASE_URL");
if (!URL_) throw new Error("bench/postgres_figures.ts needs DATABASE_URL");
const flags = new Map(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => a.slice(2).split("=") as [string, string]),
);
const EVENTS = Number(flags.get("events") ?? 20_000);
const schema = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
const logger = createLogger({ level: "silent" });

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};
const record = (id: string, state = "TASK_STATE_WORKING"): StoredTask => ({
  task: { id, contextId: "c", status: { state: state as "TASK_STATE_WORKING" } },
  owner: undefined,
  provider: "p",
  updatedAt: Date.now(),
});
const delta = (text: string, append = true) => ({
  artifactUpdate: {
    taskId: "t",
    artifact: { artifactId: "output", name: "output", parts: [{ text }] },
    append,
    lastChunk: false,
  },
});

const a: PostgresTaskStore = await createPostgresTaskStore({ url: URL_, schema });
const b: PostgresTaskStore = await createPostgresTaskStore({ url: URL_, schema });
try {
  // 1. events per second
  {
    const id = crypto.randomUUID();
    const journal = new Journal({
      storage: a,
      logger,
      instance: "bench",
      snapshot: () => record(id),
      lost: () => {},
      reached: () => {},
    });
    journal.emit({ task: record(id).task });
    const t0 = performance.now();
    for (let i = 0; i < EVENTS; i++) {
      journal.emit(delta(`token ${i} `, i > 0));
      // A model's tokens arrive a few per read of its stream: a macrotask
      // each read (an I/O callback: `setImmediate`, not `setTimeout(0)`,
      // which Deno clamps to ~1–2 ms and so bounded this figure until
      // session 7).
      if (i % 4 === 3) await new Promise((r) => setImmediate(r));
    }
    await journal.persist();
    const ms = performance.now() - t0;
    const rows = (await a.read(id, 0, 100_000)).length;
    const id2 = crypto.randomUUID();
    let g = await a.append({
      record: record(id2),
      expected: 0,
      events: [{ task: {} }],
      instance: "bench",
    });
    const n2 = Math.min(EVENTS, 500);
    const t1 = performance.now();
    for (let i = 0; i < n2; i++) {
      g = await a.append({
        record: record(id2),
        expected: g,
        events: [delta(`token ${i} `)],
        instance: "bench",
      });
    }
    const ms2 = performance.now() - t1;
    console.log(
      `events/s: journal (batched, coalesced) ${
        (EVENTS / ms * 1000).toFixed(0)
      } deltas/s (${EVENTS} deltas → ${rows - 1} rows in ${
        ms.toFixed(0)
      } ms); one commit per event ${(n2 / ms2 * 1000).toFixed(0)} deltas/s (${n2} in ${
        ms2.toFixed(0)
      } ms); × ${((EVENTS / ms) / (n2 / ms2)).toFixed(1)}`,
    );
  }

  // 2. replay of 1,000 events
  {
    const id = crypto.randomUUID();
    let g = 0;
    for (let batch = 0; batch < 10; batch++) {
      const events = Array.from({ length: 100 }, (_, i) => delta(`token ${batch * 100 + i} `));
      if (batch === 0) events[0] = { task: record(id).task } as never;
      g = await a.append({ record: record(id), expected: g, events, instance: "bench" });
    }
    await a.append({
      record: record(id, "TASK_STATE_COMPLETED"),
      expected: g,
      events: [{ statusUpdate: { taskId: id, status: { state: "TASK_STATE_COMPLETED" } } }],
      instance: undefined,
    });
    const reads: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      const got = await b.read(id, 0, 1_000);
      reads.push(performance.now() - t);
      if (got.length !== 1_000) throw new Error(`read ${got.length}`);
    }
    // The same replay through a gateway instance, over HTTP, to the last frame.
    const instance = await startInstance(schema);
    const replays: number[] = [];
    try {
      for (let i = 0; i < 15; i++) {
        const t = performance.now();
        const response = await fetch(`${instance.url}/`, {
          method: "POST",
          headers: { "content-type": "application/json", "last-event-id": "0" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "SubscribeToTask",
            params: { id },
          }),
        });
        const frames = (await response.text()).split("\n\n").filter((f) => f.startsWith("id: "));
        replays.push(performance.now() - t);
        if (frames.length !== 1_001) throw new Error(`replayed ${frames.length}`);
      }
    } finally {
      await instance.stop();
    }
    console.log(
      `replay of 1,000 events: store read p50 ${pct(reads, 0.5).toFixed(1)} ms (p90 ${
        pct(reads, 0.9).toFixed(1)
      }); SubscribeToTask with Last-Event-ID over HTTP, 1,001 frames, p50 ${
        pct(replays, 0.5).toFixed(1)
      } ms (p90 ${pct(replays, 0.9).toFixed(1)})`,
    );
  }

  // 3. cross-instance fan-out
  {
    const id = crypto.randomUUID();
    let g = await a.append({
      record: record(id),
      expected: 0,
      events: [{ task: {} }],
      instance: "bench",
    });
    let cursor = g;
    let resolveSeen: (() => void) | undefined;
    const off = b.subscribe(id, async () => {
      const entries = await b.read(id, cursor, 10);
      if (entries.length) {
        cursor = entries[entries.length - 1].generation;
        resolveSeen?.();
      }
    });
    await new Promise((r) => setTimeout(r, 300)); // the watcher row in place
    const samples: number[] = [];
    for (let i = 0; i < 200; i++) {
      const seen = new Promise<void>((r) => resolveSeen = r);
      const t = performance.now();
      g = await a.append({
        record: record(id),
        expected: g,
        events: [delta(`x${i}`)],
        instance: "bench",
      });
      const committed = performance.now();
      await seen;
      samples.push(performance.now() - t);
      if (i === 0) console.error(`first commit ${(committed - t).toFixed(1)} ms`);
    }
    off();
    console.log(
      `cross-instance fan-out (append → the other instance has read it): p50 ${
        pct(samples, 0.5).toFixed(2)
      } ms, p90 ${pct(samples, 0.9).toFixed(2)} ms, p99 ${
        pct(samples, 0.99).toFixed(2)
      } ms (${samples.length} samples)`,
    );
  }

  // 4. SIGKILL → terminal
  {
    for (const ttl of [1_000, 3_000]) {
      const times: number[] = [];
      for (let round = 0; round < 3; round++) {
        const owner = await startInstance(schema, { LEASE_TTL_MS: String(ttl) });
        const other = await startInstance(schema, { LEASE_TTL_MS: String(ttl) });
        try {
          const sent = await rpc(owner.url, "SendMessage", {
            message: {
              messageId: crypto.randomUUID(),
              role: "ROLE_USER",
              parts: [{ text: "stream forever" }],
            },
            configuration: { returnImmediately: true },
          });
          const watch = await openStream(other.url, "SubscribeToTask", { id: sent.result.task.id });
          await watch.until((f) => textOf(f.data).includes("chunk 3"));
          const t = performance.now();
          await owner.kill();
          const rest = await watch.rest();
          times.push(performance.now() - t);
          const last = rest.at(-1)?.data.statusUpdate?.status?.state;
          if (last !== "TASK_STATE_FAILED") throw new Error(`ended ${last}`);
        } finally {
          await owner.kill();
          await other.stop();
        }
      }
      console.log(
        `owner SIGKILL → FAILED on another instance, lease TTL ${ttl} ms: ${
          times.map((t) => t.toFixed(0)).join(" / ")
        } ms`,
      );
    }
  }
} finally {
  await a.close();
  await b.close();
  const sql = postgres(URL_, { max: 1, onnotice: () => {} });
  await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await sql.end();
}
