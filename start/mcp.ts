/**
 * `deno task mcp`: serve seam over MCP on stdio (the way coding agents start
 * MCP servers), with the same providers and model choice as `deno task
 * start` (`spawn` and `fork` on the scripted model, or on a real model when
 * `DEEPSEEK_API_KEY` or `OPENAI_API_KEY` (+ `OPENAI_BASE_URL`, `SEAM_MODEL`)
 * is set). Every log line goes to stderr: stdout carries only MCP. Exits
 * once the client closes stdin, its runs cancelled (`seam mcp` runs this).
 *
 * @module
 */
import { createLogger } from "@seam/host";
import { createMcpServer } from "@seam/mcp";
import { serveMcpStdio } from "@seam/mcp/stdio";
import { createStartWorld } from "./app.ts";

/**
 * Serve seam over MCP on stdio until the client closes stdin (`seam mcp`,
 * `deno task mcp`), with the providers and model `env` chooses (the
 * variables above). Resolves once the client left, its runs cancelled and
 * every child disposed. Deno only (`Deno.stdin`, signals).
 */
export async function serveStartMcp(env: (name: string) => string | undefined): Promise<void> {
  const logger = createLogger({
    level: "warn",
    sink: (record) => console.error(`[${record.name}] ${record.level}: ${record.message}`),
  });
  const world = await createStartWorld(env, logger);
  const server = createMcpServer({ scope: world.host.scope, parent: world.parent });
  console.error(
    `seam MCP on stdio; model: ${world.modelLabel}; providers: ${
      world.subagents.list().join(", ")
    }`,
  );
  const connection = await serveMcpStdio(server);
  const stop = () => void connection.close();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await connection.closed;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  await server.close();
  await world.host.scope.dispose();
}

if (import.meta.main) {
  await serveStartMcp((name) => Deno.env.get(name));
  // A write to a client that left without reading may still be pending: do not wait for it.
  Deno.exit(0);
}
