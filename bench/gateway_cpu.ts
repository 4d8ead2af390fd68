// CPU time per request of each server, measured in the server process
// (/proc/<pid>/stat: user + system time), so a busy machine slows the run
// but hardly changes the figure:
//
//   deno run -A bench/gateway_cpu.ts [--requests=20000] [--rounds=3] [--only=gateway,gateway@/tmp/before]
//     [--connections=10]
//
// autocannon sends `--requests` JSON-RPC `SendMessage`s at 10 connections (or
// `--connections`) per
// round; servers alternate. For a `gateway-pg` kind the CPU of every
// `postgres` process on the machine is counted too (the database's share of
// a request; other users of the server add to it). Linux only (reads /proc).
// Printed, never asserted.
import autocannon from "autocannon";
import { LOAD_BODY } from "./gateway_load_server.ts";
import { startServer } from "./_servers.ts";
import { cpuSeconds, postgresSeconds } from "./_proc_cpu.ts";

const flags = new Map(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [k, v] = a.slice(2).split("=");
    return [k, v ?? "true"] as const;
  }),
);
const REQUESTS = Number(flags.get("requests") ?? 20_000);
const ROUNDS = Number(flags.get("rounds") ?? 3);
const CONNECTIONS = Number(flags.get("connections") ?? 10);
const KINDS = (flags.get("only") ?? "gateway,sdk-hono,sdk,hono").split(",");
interface Server {
  readonly kind: string;
  readonly url: string;
  readonly pid: number;
  readonly stop: () => Promise<void>;
}

async function start(kind: string): Promise<Server> {
  return { kind, ...(await startServer(kind)) };
}

const load = (url: string, amount: number) =>
  autocannon({
    url,
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: LOAD_BODY,
    connections: CONNECTIONS,
    amount,
  });

const servers: Server[] = [];
const perRequest = new Map<string, number[]>();
const inPostgres = new Map<string, number[]>();
try {
  for (const kind of KINDS) {
    servers.push(await start(kind));
    perRequest.set(kind, []);
  }
  for (const server of servers) await load(server.url, 2_000); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of servers) {
      const pg = server.kind.startsWith("gateway-pg");
      const before = await cpuSeconds(server.pid);
      const pgBefore = pg ? await postgresSeconds() : 0;
      const result = await load(server.url, REQUESTS);
      const used = (await cpuSeconds(server.pid)) - before;
      const us = used * 1e6 / result.requests.total;
      perRequest.get(server.kind)!.push(us);
      if (pg) {
        const db = ((await postgresSeconds()) - pgBefore) * 1e6 / result.requests.total;
        inPostgres.set(server.kind, [...(inPostgres.get(server.kind) ?? []), db]);
      }
      console.error(`round ${round + 1} ${server.kind}: ${us.toFixed(1)} µs CPU per request`);
    }
  }
} finally {
  for (const server of servers) await server.stop();
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
console.log(
  `\nserver CPU per SendMessage (user+system), ${ROUNDS} alternating rounds of ${REQUESTS} at ${CONNECTIONS} connections\n`,
);
console.log(
  "| server | µs CPU per request (median) | rounds | µs in PostgreSQL (median) | rounds |",
);
console.log("| --- | --- | --- | --- | --- |");
for (const [kind, values] of perRequest) {
  const db = inPostgres.get(kind);
  console.log(
    `| ${kind} | ${median(values).toFixed(1)} | ${values.map((v) => v.toFixed(1)).join(" / ")} | ${
      db ? median(db).toFixed(1) : "–"
    } | ${db ? db.map((v) => v.toFixed(1)).join(" / ") : "–"} |`,
  );
}
