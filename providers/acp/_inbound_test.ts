import assert from "node:assert/strict";
import { createMemoryLogger } from "@seam/host";
import { AcpError } from "./_failure.ts";
import { InboundScreen } from "./_inbound.ts";

Deno.test("InboundScreen passes requests and answers to requests sent, and nothing else", async (t) => {
  const { logger, records } = createMemoryLogger();
  const screen = new InboundScreen(logger);
  await t.step("a notification or a request from the agent passes", () => {
    assert.equal(screen.screen({ jsonrpc: "2.0", method: "session/update", params: {} }), "pass");
    assert.equal(screen.screen({ jsonrpc: "2.0", id: 7, method: "fs/read", params: {} }), "pass");
  });
  await t.step("an answer to a request sent passes once; a second one fails the connection", () => {
    screen.sent({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    assert.equal(screen.screen({ jsonrpc: "2.0", id: 1, result: {} }), "pass");
    const again = screen.screen({ jsonrpc: "2.0", id: 1, result: {} });
    assert.ok(again instanceof AcpError);
    assert.equal(again.code, "PROTOCOL_ERROR");
    assert.match(again.message, /answered a request this client never sent \(id 1\)/);
  });
  await t.step("an error tied to no request (id null) is dropped with a warning", () => {
    const verdict = screen.screen({ jsonrpc: "2.0", id: null, error: { message: "parse error" } });
    assert.equal(verdict, "drop");
    assert.ok(
      records.some((r) => r.level === "warn" && /tied to no request: parse error/.test(r.message)),
    );
  });
  await t.step("an object that is no JSON-RPC message is garbage", () => {
    assert.equal(screen.screen({ level: "info", msg: "hello" }), "garbage");
  });
});

Deno.test("InboundScreen gives up on a command that prints no JSON-RPC for 100 lines", () => {
  const { logger } = createMemoryLogger();
  const screen = new InboundScreen(logger);
  for (let i = 1; i <= 100; i++) assert.equal(screen.garbage(`banner ${i}`), undefined);
  assert.equal(
    screen.note(),
    '; it printed 100 lines on stdout that are not JSON-RPC (the first: "banner 1")',
  );
  const error = screen.garbage("banner 101");
  assert.ok(error instanceof AcpError);
  assert.match(error.message, /does not speak ACP: its first 101 lines/);
});

Deno.test("InboundScreen tolerates garbage once the agent spoke, and notes none", () => {
  const { logger } = createMemoryLogger();
  const screen = new InboundScreen(logger);
  screen.screen({ jsonrpc: "2.0", method: "session/update", params: {} });
  for (let i = 0; i < 150; i++) assert.equal(screen.garbage("debug line"), undefined);
  assert.equal(screen.note(), "");
});

Deno.test("InboundScreen forgets the oldest of 4096 unanswered requests", () => {
  const { logger } = createMemoryLogger();
  const screen = new InboundScreen(logger);
  for (let id = 0; id <= 4096; id++) screen.sent({ jsonrpc: "2.0", id, method: "session/close" });
  assert.ok(screen.screen({ jsonrpc: "2.0", id: 0, result: {} }) instanceof AcpError);
  assert.equal(screen.screen({ jsonrpc: "2.0", id: 4096, result: {} }), "pass");
});
