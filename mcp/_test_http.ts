/**
 * A fetch handler served on loopback for the tests: with `Deno.serve` under
 * Deno, with `node:http` under Node (`deno task test:node`), so that the
 * HTTP tests run in both runtimes against a real socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { once } from "node:events";
import { Readable } from "node:stream";
import { IS_DENO } from "./_test_servers.ts";

/** A server on 127.0.0.1 and an ephemeral port. */
export interface TestHttpServer {
  /** Its origin, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Stop it, its connections closed. */
  shutdown(): Promise<void>;
}

type Handler = (request: Request) => Promise<Response>;

/** Serve `handler` on loopback. */
export async function serveOnLoopback(handler: Handler): Promise<TestHttpServer> {
  if (IS_DENO) {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
    return {
      origin: `http://127.0.0.1:${server.addr.port}`,
      shutdown: () => server.shutdown(),
    };
  }
  const server = createServer((req, res) => {
    answer(handler, req, res).catch(() => res.destroy());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    async shutdown() {
      const closed = once(server, "close");
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

async function answer(handler: Handler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
  }
  const body = req.method === "GET" || req.method === "HEAD"
    ? undefined
    : Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body,
    signal: controller.signal,
    duplex: "half",
  } as RequestInit);
  const response = await handler(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  // As Deno.serve does: the body is read only as fast as the socket takes it.
  const reader = response.body.getReader();
  const closed = once(res, "close");
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        const drained = await Promise.race([
          once(res, "drain").then(() => true),
          closed.then(() => false),
        ]);
        if (!drained) break;
      }
    }
  } finally {
    if (res.writableEnded || res.destroyed) await reader.cancel().catch(() => {});
    else res.end();
  }
}
