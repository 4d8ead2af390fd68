/**
 * A plain MCP server on the official SDK's high-level `McpServer` (no seam
 * inside), for the provider tests: `slow` streams progress, `confirm` asks a
 * yes/no elicitation, `ask_name` a one-field form (two fields for the prompt "and age"), `wait` runs until
 * cancelled (noting its start in `$MCP_PID_DIR/waiting`, the cancellation in `$MCP_PID_DIR/cancelled`), `boom`
 * throws.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { writeFile } from "node:fs/promises";
import process from "node:process";

// Node APIs only: under Node (`deno task test:node`) this file runs bundled, with `node`.
const pidDir = process.env.MCP_PID_DIR;
if (pidDir) await writeFile(`${pidDir}/${process.pid}`, "");

const server = new McpServer({ name: "plain", version: "1.0.0" });
const input = { prompt: z.string() };
type Args = { prompt: string };
type Extra = {
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: unknown) => Promise<void>;
  signal: AbortSignal;
};

server.registerTool("slow", { inputSchema: input }, async ({ prompt }: Args, extra: Extra) => {
  const token = extra._meta?.progressToken;
  for (let i = 1; i <= 3; i++) {
    if (token !== undefined) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: i, total: 3, message: `step ${i}` },
      });
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return { content: [{ type: "text", text: `done: ${prompt}` }] };
});

server.registerTool("confirm", { inputSchema: input }, async ({ prompt }: Args) => {
  const answer = await server.server.elicitInput({
    mode: "form",
    message: `Run ${prompt}?`,
    requestedSchema: { type: "object", properties: {} },
  });
  return { content: [{ type: "text", text: `confirm: ${answer.action}` }] };
});

server.registerTool("ask_name", { inputSchema: input }, async ({ prompt }: Args) => {
  // Prompt "and age": a two-field form, answered with both fields.
  const both = prompt === "and age";
  const answer = await server.server.elicitInput({
    mode: "form",
    message: both ? "Your name and age?" : "Your name?",
    requestedSchema: {
      type: "object",
      properties: both
        ? { name: { type: "string" }, age: { type: "integer" } }
        : { name: { type: "string" } },
      required: both ? ["name", "age"] : ["name"],
    },
  });
  const said = answer.action !== "accept"
    ? "nobody"
    : both
    ? JSON.stringify(answer.content)
    : answer.content?.name;
  return { content: [{ type: "text", text: `hello ${said}` }] };
});

server.registerTool("wait", { inputSchema: input }, async (_args: Args, extra: Extra) => {
  if (pidDir) await writeFile(`${pidDir}/waiting`, String(process.pid));
  await new Promise<void>((resolve) =>
    extra.signal.addEventListener("abort", () => resolve(), { once: true })
  );
  if (pidDir) await writeFile(`${pidDir}/cancelled`, String(process.pid));
  return { content: [{ type: "text", text: "cancelled" }] };
});

server.registerTool("boom", { inputSchema: input }, () => {
  throw new Error("the tool blew up");
});

await server.connect(new StdioServerTransport());
