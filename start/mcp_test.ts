import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const ENV = {
  DEEPSEEK_API_KEY: "",
  OPENAI_API_KEY: "",
  SEAM_GATEWAY_TOKEN: "",
  SEAM_INSPECTOR: "",
  DATABASE_URL: "",
};

type Text = { type: string; text: string };

const MCP_ENTRIES: Readonly<Record<string, string[]>> = {
  "start/mcp.ts": [new URL("./mcp.ts", import.meta.url).pathname],
  "seam mcp (deno task mcp)": [new URL("../cli/main.ts", import.meta.url).pathname, "mcp"],
};

for (const [entry, entryArgs] of Object.entries(MCP_ENTRIES)) {
  Deno.test(`${entry} serves spawn and fork on stdio to the official client`, async () => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", "--allow-env", "--allow-sys=hostname", ...entryArgs],
      env: ENV,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    // The official client over this child's pipes (its own stdio transport spawns without a handle to wait on).
    const { StreamTransport } = await import("../mcp/_stream_transport.ts");
    const client = new Client({ name: "start-test", version: "1" });
    await client.connect(new StreamTransport(child.stdout, child.stdin) as never);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["subagent_spawn", "subagent_fork"]);
      const result = await client.callTool({
        name: "subagent_spawn",
        arguments: { description: "Hello", prompt: "@reply hello from deno task mcp" },
      });
      assert.deepEqual(result.content as Text[], [{
        type: "text",
        text: "hello from deno task mcp",
      }]);
    } finally {
      await client.close();
      const status = await child.status;
      assert.equal(status.success, true, "it exits cleanly once stdin closes");
    }
  });
}

Deno.test("deno task start serves /mcp beside A2A, behind SEAM_GATEWAY_TOKEN", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-env",
      new URL("./main.ts", import.meta.url).pathname,
    ],
    env: { ...ENV, PORT: "0", HOST: "127.0.0.1", SEAM_GATEWAY_TOKEN: "t0ken" },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const decoder = new TextDecoder();
  let banner = "";
  const reader = child.stdout.getReader();
  while (!banner.includes("MCP (Streamable HTTP)")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the gateway exited early: ${banner}`);
    banner += decoder.decode(value);
  }
  reader.releaseLock();
  const drained = child.stdout.pipeTo(new WritableStream());
  const base = banner.match(/listening on (http:\/\/\S+)/)![1].replace(/\/$/, "");
  try {
    const refused = await fetch(`${base}/mcp`, { method: "POST", body: "{}" });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const client = new Client({ name: "start-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: "Bearer t0ken" } },
      }),
    );
    const result = await client.callTool({
      name: "subagent_fork",
      arguments: { description: "Hello", prompt: "@reply hello over /mcp" },
    });
    assert.deepEqual(result.content as Text[], [{ type: "text", text: "hello over /mcp" }]);
    await client.close();
    // The 2026-07-28 line with Tasks at the same URL: a task handle, then its result.
    let id = 0;
    const modern = async (method: string, params: Record<string, unknown>) => {
      const name = params.name ?? params.taskId;
      const response = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: {
          authorization: "Bearer t0ken",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          "mcp-name": String(name),
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method,
          params: {
            ...params,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {
                extensions: { "io.modelcontextprotocol/tasks": {} },
              },
            },
          },
        }),
      });
      return (await response.json()).result;
    };
    const handle = await modern("tools/call", {
      name: "subagent_spawn",
      arguments: { description: "Hello", prompt: "@reply hello as a task" },
    });
    assert.equal(handle.resultType, "task");
    let task = handle;
    for (let i = 0; i < 200 && task.status !== "completed"; i++) {
      await new Promise((r) => setTimeout(r, 10));
      task = await modern("tasks/get", { taskId: handle.taskId });
    }
    assert.deepEqual(task.result.content, [{ type: "text", text: "hello as a task" }]);
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    await drained;
    assert.equal(status.success, true, "a clean exit on SIGTERM");
  }
});
