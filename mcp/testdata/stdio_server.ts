/** A stdio MCP server over the test provider (for stdio_test.ts); `live` answers its live runs. */
import { createHost, createMemoryLogger } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createMcpServer } from "../server.ts";
import { serveMcpStdio } from "../stdio.ts";
import { createTestProvider } from "../_test_provider.ts";
import { writeFile } from "node:fs/promises";
import process from "node:process";

// Tests that count server processes give a directory to note this one's pid in.
// Node APIs only: under Node (`deno task test:node`) this file runs bundled, with `node`.
const pidDir = process.env.MCP_PID_DIR;
if (pidDir) await writeFile(`${pidDir}/${process.pid}`, "");
const host = createHost({ logger: createMemoryLogger().logger });
const subagents = createSubagentService(host.scope);
const provider = createTestProvider("test", { subagents: () => subagents });
const start = provider.start.bind(provider);
subagents.registerProvider({
  ...provider,
  start: (request) => {
    const prompt = request.prompt[0]?.type === "text" ? request.prompt[0].text : "";
    if (prompt === "live") {
      // Itself excluded: it has not been added to `live` yet.
      const count = provider.live.size;
      return {
        id: `live-${crypto.randomUUID()}`,
        started: Promise.resolve(),
        result: Promise.resolve({ output: String(count), stopReason: "completed" }),
        cancel() {},
        dispose: () => Promise.resolve(),
      };
    }
    return start(request);
  },
});
const server = createMcpServer({ scope: host.scope });
const connection = await serveMcpStdio(server);
await connection.closed;
await server.close();
await host.scope.dispose();
// What `deno task mcp` does too: stdout may still hold what a client that
// left never read, and a pending write would keep the process alive.
process.exit(0);
