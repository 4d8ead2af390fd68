import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { banner, serveGateway } from "./serve.ts";

Deno.test("serveGateway() serves on loopback, prints the card URL and a request, shuts down", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  const lines: string[] = [];
  const served = serveGateway({ scope: root }, {
    hostname: "127.0.0.1",
    port: 0,
    log: (line) => lines.push(line),
  });
  try {
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(served.cardUrl, `${served.url}/.well-known/agent-card.json`);
    assert.deepEqual(lines, banner(served.url));
    assert.match(lines[3], /^curl -s http:\/\/127\.0\.0\.1:\d+\/ .*A2A-Version: 1\.0.*SendMessage/);
    const card = await (await fetch(served.cardUrl)).json();
    assert.equal(card.supportedInterfaces[0].url, `${served.url}/`);
  } finally {
    await served.shutdown();
    await root.dispose();
  }
});

Deno.test("serveGateway() refuses a port outside 0-65535", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  assert.throws(() => serveGateway({ scope: root }, { port: 70_000, quiet: true }), RangeError);
  await root.dispose();
});
