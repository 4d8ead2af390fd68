// What one A2A run holds of a remote that streams without end: the client's
// resident memory while a loopback agent streams 30 MB of text as artifact
// appends, with `maxOutputChars` at 1 M characters, at its default (4 M),
// at 16 M, and out of the way (2^40: what the provider did before it had a bound).
// Each variant runs in its own child process (RSS is per process and does
// not come back down), in alternating rounds; the agent serves from this one.
// Run: deno run --allow-net=127.0.0.1 --allow-run --allow-read bench/a2a_memory.ts
import { type ContentBlock, createMemoryLogger, createRootScope } from "@seam/host";
import { createA2AProvider } from "@seam/subagent-a2a";

const TOTAL_CHARS = 30_000_000;
const CHUNK_CHARS = 10_000;
const ROUNDS = 3;
const VARIANTS: Record<string, number> = {
  "maxOutputChars 1 M": 1_000_000,
  "maxOutputChars 4 M (default)": 4_000_000,
  "maxOutputChars 16 M": 16_000_000,
  "no bound (2^40)": 2 ** 40,
};
const MiB = 1024 * 1024;

/** The child: one run against `url` with `max`, RSS sampled every 5 ms; prints one JSON line. */
async function client(url: string, max: number): Promise<void> {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const provider = await createA2AProvider({ url, maxOutputChars: max, timeoutMs: 60_000 });
  const before = Deno.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 5);
  const t0 = performance.now();
  const run = provider.start({
    prompt: [{ type: "text", text: "go" }],
    parent: { id: "main", scope: root.child("main") },
  });
  const result = await run.result;
  const ms = performance.now() - t0;
  peak = Math.max(peak, Deno.memoryUsage().rss);
  clearInterval(sampler);
  let held = 0;
  for (const block of result.output as readonly ContentBlock[]) {
    if (block.type === "text") held += block.text.length;
  }
  await run.dispose();
  await provider.dispose();
  await root.dispose();
  console.log(JSON.stringify({
    before,
    peak,
    ms,
    held,
    stopReason: result.stopReason,
    code: result.error?.code ?? "",
  }));
}

/** The agent: a card, and a stream of 30 MB of appends that ends COMPLETED. */
function agent(): { url: string; close(): Promise<void> } {
  const encoder = new TextEncoder();
  const chunk = "x".repeat(CHUNK_CHARS);
  const frame = (id: unknown, result: unknown) =>
    encoder.encode(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`);
  let url = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    if (request.method === "GET") {
      return Response.json({
        name: "endless",
        supportedInterfaces: [{
          url: `${url}/`,
          protocolBinding: "JSONRPC",
          protocolVersion: "1.0",
        }],
        capabilities: { streaming: true },
      });
    }
    const body = await request.json();
    if (body.method !== "SendStreamingMessage") {
      return Response.json({
        jsonrpc: "2.0",
        id: body.id,
        result: { id: "t", contextId: "c", status: { state: "TASK_STATE_CANCELED" } },
      });
    }
    let sent = 0;
    const update = (append: boolean) =>
      frame(body.id, {
        artifactUpdate: {
          taskId: "t",
          contextId: "c",
          artifact: { artifactId: "out", parts: [{ text: chunk }] },
          append,
          lastChunk: false,
        },
      });
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(
          frame(body.id, {
            task: { id: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } },
          }),
        );
      },
      pull(c) {
        if (sent >= TOTAL_CHARS) {
          c.enqueue(
            frame(body.id, {
              statusUpdate: {
                taskId: "t",
                contextId: "c",
                status: { state: "TASK_STATE_COMPLETED" },
              },
            }),
          );
          c.close();
          return;
        }
        c.enqueue(update(sent > 0));
        sent += CHUNK_CHARS;
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  });
  url = `http://127.0.0.1:${server.addr.port}`;
  return { url, close: () => server.shutdown() };
}

const [mode, url, max] = Deno.args;
if (mode === "--client") {
  await client(url, Number(max));
} else {
  const served = agent();
  const rows: Record<
    string,
    { before: number; peak: number; ms: number; held: number; end: string }[]
  > = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, limit] of Object.entries(VARIANTS)) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-net=127.0.0.1",
          import.meta.filename!,
          "--client",
          served.url,
          String(limit),
        ],
        stdout: "piped",
        stderr: "inherit",
      }).output();
      const line = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
      (rows[name] ??= []).push({
        before: line.before,
        peak: line.peak,
        ms: line.ms,
        held: line.held,
        end: `${line.stopReason}${line.code ? ` (${line.code})` : ""}`,
      });
    }
  }
  await served.close();
  const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `Deno ${Deno.version.deno}, ${
      TOTAL_CHARS / 1e6
    } M characters streamed as ${CHUNK_CHARS}-character appends, ${ROUNDS} rounds (medians)\n`,
  );
  console.log(
    "| variant | RSS before the run | RSS peak | growth | output held | run ends | time |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const [name, samples] of Object.entries(rows)) {
    const before = median(samples.map((s) => s.before)) / MiB;
    const peak = median(samples.map((s) => s.peak)) / MiB;
    console.log(
      `| ${name} | ${before.toFixed(0)} MiB | ${peak.toFixed(0)} MiB | +${
        (peak - before).toFixed(0)
      } MiB | ${(median(samples.map((s) => s.held)) / 1e6).toFixed(1)} M chars | ${
        samples[0].end
      } | ${median(samples.map((s) => s.ms)).toFixed(0)} ms |`,
    );
  }
}
