/**
 * `seam mcp`: serve the spawn and fork providers to an MCP client on stdio
 * (what a coding agent's MCP config starts), what `deno task mcp` runs
 * (`@seam/start/mcp`). stdout carries only MCP; everything else goes to
 * stderr.
 *
 * @module
 */
import process from "node:process";
import { type CliCommand, complain, envOf, isDeno, out } from "./command.ts";
import { type FlagSpec, parseArgs, UsageError, usageOf } from "./args.ts";

const FLAGS: readonly FlagSpec[] = [];

/** The usage `seam mcp --help` prints. */
export const MCP_USAGE: string = usageOf(
  "seam mcp [options]",
  `Serve the spawn and fork providers over MCP on stdio, one tool each (subagent_spawn,
subagent_fork), until the client closes stdin; its runs are then cancelled. The model is the
scripted one, or a real one when DEEPSEEK_API_KEY or OPENAI_API_KEY (with OPENAI_BASE_URL,
SEAM_MODEL) is set. For MCP over HTTP, \`seam serve\` answers at /mcp. Needs Deno.`,
  FLAGS,
);

/** `seam mcp`. */
export const mcpCommand: CliCommand = {
  name: "mcp",
  summary: "serve spawn and fork to an MCP client on stdio (deno task mcp)",
  async run(args) {
    const { flags, positionals } = parseArgs(args, FLAGS);
    if (flags.help) {
      out(MCP_USAGE);
      return 0;
    }
    if (positionals.length > 0) {
      throw new UsageError(`takes no arguments, got "${positionals.join(" ")}"`);
    }
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
};
