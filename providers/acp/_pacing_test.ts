import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
import { serveAcpAgent } from "./mod.ts";
import { MAX_QUEUED_BYTES, MAX_UNREAD_BYTES } from "./_pacing.ts";

const encoder = new TextEncoder();
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

/** A host with the scripted model, and a server over `readable` writing to a stream nobody reads yet. */
function serve(readable: ReadableStream<Uint8Array>) {
  const { logger } = createMemoryLogger();
  const host = createHost({ logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const server = serveAcpAgent({
    host,
    model: "scripted",
    streams: { readable, writable: toClient.writable },
    logger,
  });
  return { host, server, output: toClient.readable };
}

const initialize = encoder.encode(
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }) +
    "\n",
);

Deno.test("serveAcpAgent() stops reading a client that does not read its answers", async () => {
  // Reading stops once answers worth MAX_QUEUED_BYTES wait (and those in
  // flight through the SDK land): each answer is >200 bytes, so well before
  // the client sent 8 × MAX_QUEUED_BYTES / 200 requests.
  const limit = Math.floor(8 * MAX_QUEUED_BYTES / 200);
  // A client that sends `initialize` requests, one line a pull, up to `limit`
  // (read at once, they would starve the timers below).
  let sent = 0;
  const { host, server, output } = serve(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === limit) return controller.close();
        sent++;
        controller.enqueue(initialize);
      },
    }, { highWaterMark: 0 }),
  );
  const reader = output.getReader();
  try {
    let last = -1;
    while (sent !== last && sent < limit) {
      last = sent;
      await tick();
      await tick();
    }
    assert.ok(sent < limit, `the server read ${sent} requests nobody took the answers of`);

    // A client that reads again is read from again.
    const stalled = sent;
    let taken = 0;
    while (sent === stalled) {
      const { value } = await reader.read();
      taken += value!.length;
    }
    assert.ok(taken > 0);
  } finally {
    reader.releaseLock();
    // close() does not wait for what is queued: the output is aborted.
    const drained = output.pipeTo(new WritableStream()).catch(() => {});
    await server.close();
    await drained;
    await host.scope.dispose();
  }
});

Deno.test("serveAcpAgent() close() ends though the client never reads", async () => {
  let sent = false;
  const { host, server } = serve(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) controller.enqueue(initialize);
        sent = true;
      },
    }, { highWaterMark: 0 }),
  );
  while (!sent) await tick();
  await tick(); // the answer is waiting for the client
  await server.close();
  await host.scope.dispose();
});

Deno.test("serveAcpAgent() lets go of a client that leaves MAX_UNREAD_BYTES of a turn's updates unread", async () => {
  // The SDK's own client, whose input stops at a gate once its prompt is
  // sent: it reads nothing more while a turn streams text without end.
  const { logger, records } = createMemoryLogger();
  const host = createHost({ logger });
  const delta = "x".repeat(64 * 1024);
  let produced = 0;
  host.models.register(host.scope, "endless", {
    name: "endless",
    async *stream(request) {
      // 4 × the bound at most, so a server without it ends the test (failing) instead of its memory.
      while (!request.signal.aborted && produced < 4 * MAX_UNREAD_BYTES) {
        produced += delta.length;
        yield { type: "text-delta", text: delta };
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      yield { type: "finish", reason: "stop" };
    },
  });
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const server = serveAcpAgent({
    host,
    model: "endless",
    streams: { readable: toServer.readable, writable: toClient.writable },
    logger,
  });
  let gated = false;
  const opened = Promise.withResolvers<void>();
  const gate = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      if (gated) await opened.promise;
      controller.enqueue(chunk);
    },
  });
  const client = acp.client({ name: "stalled" })
    .onNotification(acp.methods.client.session.update, () => {})
    .connect(acp.ndJsonStream(toServer.writable, toClient.readable.pipeThrough(gate)));
  try {
    await client.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    const { sessionId } = await client.agent.request(acp.methods.agent.session.new, {
      cwd: "/",
      mcpServers: [],
    });
    gated = true;
    const prompt = client.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "go on" }],
    });
    prompt.catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = await Promise.race([
      server.closed.then(() => true),
      new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), 20_000)),
    ]);
    clearTimeout(timer);
    assert.ok(ended, `the server still serves a client that left ${produced} bytes unread`);
    assert.ok(produced < 2 * MAX_UNREAD_BYTES, `the turn produced ${produced} bytes`);
    assert.ok(
      records.some((r) =>
        r.level === "warn" &&
        r.message.includes(`left ${MAX_UNREAD_BYTES} bytes of output unread`)
      ),
    );
    assert.equal(host.agents.list().length, 0);
  } finally {
    opened.resolve(); // the client reads again: it meets the end of its input
    await server.close();
    await toServer.writable.abort().catch(() => {});
    await client.closed;
    await host.scope.dispose();
  }
});
