/**
 * The gateway served by Node's own `http` module: bundled with
 * `deno bundle --platform node` and run with `node` by
 * `compat/gateway_node_test.ts`, to prove a bundled build serves under Node.
 * Listens on 127.0.0.1 and a free port, prints `listening <port>`, and
 * stops cleanly on SIGTERM.
 */
import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { createGateway } from "@seam/gateway";
import { createStartWorld } from "../../start/app.ts";

const world = await createStartWorld(() => undefined);
const gateway = createGateway({ scope: world.host.scope, parent: world.parent });

const server = createServer(async (incoming, outgoing) => {
  const chunks: Uint8Array[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Uint8Array);
  const method = incoming.method ?? "GET";
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) { for (const item of value) headers.append(name, item); }
  }
  const request = new Request(`http://127.0.0.1${incoming.url ?? "/"}`, {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks),
  });
  const response = await gateway.fetch(request);
  outgoing.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) {
    for await (const chunk of response.body) outgoing.write(chunk);
  }
  outgoing.end();
});

server.listen(0, "127.0.0.1", () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});

process.on("SIGTERM", async () => {
  server.close();
  await gateway.close();
  await world.host.scope.dispose();
  process.exit(0);
});
