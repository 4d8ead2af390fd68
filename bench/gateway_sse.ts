// Time to the first artifact event of a stream, against the SDK's servers in
// the same run:
//
//   deno run -A bench/gateway_sse.ts [--rounds=3] [--requests=500] [--only=gateway,sdk,sdk-hono]
//
// Each server (bench/gateway_load_server.ts, its own process) gets the same
// JSON-RPC `SendStreamingMessage` over loopback, one at a time, in
// alternating rounds; the time from sending the request to reading the first
// `artifactUpdate` frame is recorded per request. The gateway's echo child
// and the SDK's echo executor publish the same lifecycle (the task, WORKING,
// the output artifact, COMPLETED). Timings are printed, never asserted.
import { startServer } from "./_servers.ts";

const flags = new Map(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [k, v] = a.slice(2).split("=");
    return [k, v ?? "true"] as const;
  }),
);
const ROUNDS = Number(flags.get("rounds") ?? 3);
const REQUESTS = Number(flags.get("requests") ?? 500);
const KINDS = (flags.get("only") ?? "gateway,sdk,sdk-hono").split(",");

const BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "SendStreamingMessage",
  params: {
    message: { messageId: "sse-1", role: "ROLE_USER", parts: [{ text: "hello from the bench" }] },
  },
});

/** Milliseconds from the request to the first artifact frame; the rest is read to the end. */
async function firstArtifact(url: string): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: BODY,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let at: number | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    if (at === undefined && buffer.includes('"artifactUpdate"')) at = performance.now() - t0;
  }
  if (at === undefined) throw new Error(`no artifact event from ${url}: ${buffer.slice(0, 300)}`);
  return at;
}

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

const servers = new Map<string, Awaited<ReturnType<typeof startServer>>>();
const samples = new Map<string, number[]>();
try {
  for (const kind of KINDS) {
    servers.set(kind, await startServer(kind));
    samples.set(kind, []);
  }
  for (const server of servers.values()) {
    for (let i = 0; i < 100; i++) await firstArtifact(server.url); // warm-up
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const [kind, server] of servers) {
      const into = samples.get(kind)!;
      for (let i = 0; i < REQUESTS; i++) into.push(await firstArtifact(server.url));
      console.error(`round ${round + 1} ${kind}: median ${quantile(into, 0.5).toFixed(3)} ms`);
    }
  }
} finally {
  for (const server of servers.values()) await server.stop();
}

console.log(
  `\nSendStreamingMessage → first artifact event, ${ROUNDS} alternating rounds of ${REQUESTS} sequential requests; Deno ${Deno.version.deno}\n`,
);
console.log("| server | median ms | p90 ms | p99 ms |");
console.log("| --- | --- | --- | --- |");
for (const [kind, values] of samples) {
  console.log(
    `| ${kind} | ${quantile(values, 0.5).toFixed(3)} | ${quantile(values, 0.9).toFixed(3)} | ${
      quantile(values, 0.99).toFixed(3)
    } |`,
  );
}
