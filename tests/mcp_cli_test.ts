// A real MCP client CLI from npm, written by no one here, uses seam as its
// MCP server: the official MCP Inspector's CLI mode starts `deno task mcp`'s
// entry as its stdio server, lists its tools and calls one.
import assert from "node:assert/strict";

const INSPECTOR_CLI = "npm:@modelcontextprotocol/inspector@2.12.0/clients/cli/build/index.js";
const SEAM_MCP = [
  "run",
  "--allow-net",
  "--allow-env",
  new URL("../start/mcp.ts", import.meta.url).pathname,
];

async function inspector(...args: string[]): Promise<Record<string, unknown>> {
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    // --no-lock: the CLI is a tool of the test, not a dependency in the workspace lock file.
    args: ["run", "--allow-all", "--no-lock", INSPECTOR_CLI, Deno.execPath(), ...SEAM_MCP, ...args],
    env: { DEEPSEEK_API_KEY: "", OPENAI_API_KEY: "", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(stdout);
  assert.ok(success, `the inspector failed: ${new TextDecoder().decode(stderr)}\n${out}`);
  return JSON.parse(out);
}

Deno.test("the MCP Inspector CLI lists seam's tools and delegates through one", async () => {
  const listed = await inspector("--method", "tools/list");
  const tools = listed.tools as { name: string; description: string }[];
  assert.deepEqual(tools.map((t) => t.name), ["subagent_spawn", "subagent_fork"]);
  assert.match(tools[1].description, /already sees the completed turns/);
  const called = await inspector(
    "--method",
    "tools/call",
    "--tool-name",
    "subagent_spawn",
    "--tool-arg",
    "description=Say hello",
    "--tool-arg",
    "prompt=@reply hello from the inspector",
  );
  assert.deepEqual(called.content, [{ type: "text", text: "hello from the inspector" }]);
  const meta = called._meta as Record<string, { self?: { modelCalls: number } }>;
  assert.equal(meta["seam/stopReason"] as unknown, "completed");
  assert.equal(meta["seam/usage"].self?.modelCalls, 1);
});
