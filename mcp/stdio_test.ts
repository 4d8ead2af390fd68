import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { testServer } from "./_test_servers.ts";

function transport(): StdioClientTransport {
  return new StdioClientTransport({
    ...testServer("stdio_server"),
    stderr: "pipe",
  });
}

Deno.test("serveMcpStdio() serves a real child process to the official stdio client", async (t) => {
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  const stdio = transport();
  await client.connect(stdio);
  try {
    await t.step("tools/list and a call with progress", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x: { name: string }) => x.name), ["subagent_test"]);
      const messages: string[] = [];
      const result = await client.callTool(
        { name: "subagent_test", arguments: { description: "Echo", prompt: "echo a b c" } },
        undefined,
        { onprogress: (p: { message?: string }) => messages.push(p.message ?? "") },
      );
      assert.deepEqual(result.content, [{ type: "text", text: "a b c" }]);
      assert.equal(messages.join(""), "a b c ");
    });
    await t.step("cancel over the wire ends the run in the child process", async () => {
      const controller = new AbortController();
      const call = client.callTool(
        { name: "subagent_test", arguments: { description: "Hang", prompt: "nest hang" } },
        undefined,
        { signal: controller.signal },
      );
      await new Promise((r) => setTimeout(r, 200));
      controller.abort();
      await assert.rejects(call);
      // The server reports its live runs in a tool of the test server.
      let live = -1;
      for (let i = 0; i < 100 && live !== 0; i++) {
        const r = await client.callTool({
          name: "subagent_test",
          arguments: { description: "Count", prompt: "live" },
        });
        live = Number((r.content as { text: string }[])[0].text);
        if (live !== 0) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(live, 0);
    });
  } finally {
    const closing = Date.now();
    await client.close();
    // The child exited at once when its stdin ended (no SIGTERM needed)...
    assert.ok(Date.now() - closing < 1_900, "the server ends when its client goes");
    // ...but the SDK's close leaves its 2 s fallback timer running (unref'd): let it end.
    await new Promise((r) => setTimeout(r, 2_050));
  }
});

Deno.test("serveMcpStdio() holds a bounded backlog for a client that never reads, and ends with it", async () => {
  const { command, args } = testServer("stdio_server");
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  const status = once(child, "exit");
  // Nothing reads stdout until the client has left: node's stream stays paused.
  const send = (message: unknown) =>
    new Promise<void>((resolve, reject) =>
      child.stdin.write(JSON.stringify(message) + "\n", (e) => e ? reject(e) : resolve())
    );
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "never-reads", version: "1" },
    },
  });
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  // 20 MB of streamed text, with a progress token: far more than a pipe holds.
  await send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: {
      name: "subagent_test",
      arguments: { description: "Flood", prompt: "flood 20000" },
      _meta: { progressToken: "p" },
    },
  });
  await new Promise((r) => setTimeout(r, 1_500));
  // The client leaves without ever having read: the server cancels the run and exits.
  child.stdin.end();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exited = await Promise.race([
    status.then(() => true),
    new Promise<boolean>((r) => timer = setTimeout(() => r(false), 10_000)),
  ]);
  clearTimeout(timer);
  let bytes = 0;
  for await (const chunk of child.stdout) bytes += (chunk as Uint8Array).length;
  if (!exited) child.kill("SIGKILL");
  await status;
  assert.ok(exited, "the server exited once its client went away");
  // What reached the pipe is what it holds plus the coalesced backlog, not the 20 MB streamed.
  assert.ok(bytes < 2_000_000, `the server wrote ${bytes} bytes`);
});
