// The gateway under load, against its peers in the same run:
//
//   deno run -A bench/gateway_load.ts [--rounds=3] [--duration=5]
//     [--tasks=100000] [--runner=deno|node] [--only=hono,gateway,sdk,sdk-hono]
//     [--connections=10]
//
// Each server runs in its own process (bench/gateway_load_server.ts) and
// gets the same JSON-RPC `SendMessage` from autocannon at 10 connections (or
// `--connections`), in
// alternating timed rounds (medians reported): the seam gateway over an echo provider, the @a2a-js/sdk 1.3
// request handler on Express with an echo executor, the same handler on Hono
// under Deno (`sdk-hono`), and a bare Hono route
// answering the gateway's JSON (the ceiling). Then each A2A server completes
// `--tasks` more tasks and reports its RSS after a full GC. With `gateway` among the kinds, each
// other kind's median is also given as a share of it (`of gateway`: the
// same server on its memory store, same load, same run). `--runner=node`
// drives the load from Node (`npx autocannon@9.0.0`) instead of from Deno.
// Timings are printed, never asserted.
import autocannon from "autocannon";
import { LOAD_BODY } from "./gateway_load_server.ts";
import { startServer } from "./_servers.ts";

const flags = new Map(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [k, v] = a.slice(2).split("=");
    return [k, v ?? "true"] as const;
  }),
);
const DURATION = Number(flags.get("duration") ?? 5);
const ROUNDS = Number(flags.get("rounds") ?? 3);
const TASKS = Number(flags.get("tasks") ?? 100_000);
const RUNNER = flags.get("runner") ?? "deno";
const KINDS = (flags.get("only") ?? "hono,gateway,sdk,sdk-hono").split(",");
const CONNECTIONS = Number(flags.get("connections") ?? 10);
const HEADERS = { "content-type": "application/json", "a2a-version": "1.0" };

interface Load {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  readonly failures: number;
}

async function loadWithDeno(
  url: string,
  opts: { duration?: number; amount?: number },
): Promise<Load> {
  const result = await autocannon({
    url,
    method: "POST",
    headers: HEADERS,
    body: LOAD_BODY,
    connections: CONNECTIONS,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration }),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures: result.errors + result.non2xx + result.timeouts,
  };
}

async function loadWithNode(
  url: string,
  opts: { duration?: number; amount?: number },
): Promise<Load> {
  const args = ["-y", "autocannon@9.0.0", "--json", "-c", String(CONNECTIONS), "-m", "POST"];
  for (const [k, v] of Object.entries(HEADERS)) args.push("-H", `${k}=${v}`);
  args.push("-b", LOAD_BODY);
  if (opts.amount) args.push("-a", String(opts.amount));
  else args.push("-d", String(opts.duration));
  args.push(url);
  const out = await new Deno.Command("npx", { args, stdout: "piped", stderr: "null" }).output();
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures: result.errors + result.non2xx + result.timeouts,
  };
}

const load = RUNNER === "node" ? loadWithNode : loadWithDeno;

async function rss(url: string): Promise<number> {
  const response = await fetch(new URL("/__rss", url));
  return (await response.json()).rss;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

interface Row {
  kind: string;
  rounds: Load[];
  rssBefore?: number;
  rssMid?: number;
  rssAfter?: number;
  memoryTasks?: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// All servers up at once (an idle one costs nothing); the timed rounds
// alternate between them, so a burst of noise on this shared machine hits
// every server alike. Then each A2A server completes TASKS more tasks.
const servers = new Map<string, Awaited<ReturnType<typeof startServer>>>();
const rows = new Map<string, Row>();
try {
  for (const kind of KINDS) {
    servers.set(kind, await startServer(kind));
    rows.set(kind, { kind, rounds: [] });
  }
  for (const [kind, server] of servers) {
    await load(server.url, { duration: 2 }); // warm-up
    if (kind !== "hono") rows.get(kind)!.rssBefore = await rss(server.url);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [kind, server] of servers) {
      const timed = await load(server.url, { duration: DURATION });
      rows.get(kind)!.rounds.push(timed);
      console.error(
        `round ${round + 1} ${kind}: ${
          timed.rps.toFixed(0)
        } req/s, p99 ${timed.p99} ms, ${timed.failures} failures`,
      );
    }
  }
  if (TASKS > 0) {
    for (const [kind, server] of servers) {
      if (kind === "hono") continue;
      const row = rows.get(kind)!;
      row.rssMid = await rss(server.url);
      const more = await load(server.url, { amount: TASKS });
      row.memoryTasks = more.requests;
      row.rssAfter = await rss(server.url);
      console.error(`${kind}: +${more.requests} tasks, RSS ${mb(row.rssAfter)} MB`);
    }
  }
} finally {
  for (const server of servers.values()) await server.stop();
}

const rps = (kind: string) => {
  const row = rows.get(kind);
  return row ? median(row.rounds.map((r) => r.rps)) : undefined;
};
const ceiling = rps("hono");
const sdk = rps("sdk");
const sdkHono = rps("sdk-hono");
const memory = rps("gateway"); // the memory store: what the other gateway kinds compare with
console.log(
  `\nautocannon (${RUNNER}) -c ${CONNECTIONS}, ${ROUNDS} alternating rounds of ${DURATION} s, medians; Deno ${Deno.version.deno}\n`,
);
console.log(
  "| server | req/s (median) | rounds | p99 ms (median) | failures | × SDK (Express) | × SDK (Hono/Deno) | of the ceiling | of `gateway` | RSS after warm-up | after the rounds | after +tasks |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows.values()) {
  const value = median(row.rounds.map((r) => r.rps));
  console.log(
    `| ${row.kind} | ${value.toFixed(0)} | ${
      row.rounds.map((r) => r.rps.toFixed(0)).join(" / ")
    } | ${median(row.rounds.map((r) => r.p99))} | ${
      row.rounds.reduce((n, r) => n + r.failures, 0)
    } | ${sdk ? (value / sdk).toFixed(2) : "–"} | ${
      sdkHono ? (value / sdkHono).toFixed(2) : "–"
    } | ${ceiling ? `${(100 * value / ceiling).toFixed(1)}%` : "–"} | ${
      memory && row.kind !== "gateway" ? `${(100 * value / memory).toFixed(1)}%` : "–"
    } | ${row.rssBefore ? `${mb(row.rssBefore)} MB` : "–"} | ${
      row.rssMid ? `${mb(row.rssMid)} MB` : "–"
    } | ${row.rssAfter ? `${mb(row.rssAfter)} MB (+${row.memoryTasks} tasks)` : "–"} |`,
  );
}
