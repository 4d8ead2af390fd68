/**
 * `seam mcp`: serve the spawn and fork providers to an MCP client on stdio
 * (what a coding agent's MCP config starts), what `deno task mcp` runs
 * (`@seam/start/mcp`). stdout carries only MCP; everything else goes to
 * stderr.
 *
 * @module
 */
import process from "node:process";
import { complain, envOf, isDeno } from "./command.ts";
import { defineCommand, type DefinedCommand } from "./_command.ts";

/** `seam mcp`. */
export const mcpCommand: DefinedCommand = defineCommand({
  name: "mcp",
  summary: "serve spawn and fork to an MCP client on stdio (deno task mcp)",
  synopsis: "seam mcp [options]",
  description: `Serve the spawn and fork providers over MCP on stdio, one tool each (subagent_spawn,
subagent_fork), until the client closes stdin; its runs are then cancelled. The model is the
scripted one, or a real one when DEEPSEEK_API_KEY or OPENAI_API_KEY (with OPENAI_BASE_URL,
SEAM_MODEL) is set. For MCP over HTTP, \`seam serve\` answers at /mcp. Needs Deno.`,
  flags: [],
  positionals: false,
  async run() {
    if (!isDeno()) {
      complain(
        "mcp",
        "Cannot serve MCP: seam mcp needs Deno (it reads stdin with Deno.stdin); run it with " +
          "`deno install -g -A -n seam jsr:@seam/cli/main`",
      );
      return 1;
    }
    const { serveStartMcp } = await import("@seam/start/mcp");
    await serveStartMcp(envOf);
    // A write to a client that left without reading may still be pending: do not wait for it.
    process.exit(0);
  },
});
