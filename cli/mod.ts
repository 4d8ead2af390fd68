/**
 * `@seam/cli`: the `seam` command. One executable for what seam serves and
 * sends: `seam serve` (the A2A gateway `deno task start` runs), `seam mcp`
 * (the same providers to an MCP client on stdio), `seam acp`
 * (a seam agent over ACP on stdio), `seam send <url> <prompt>` (an A2A
 * client that streams the answer, asks you when the remote needs input and
 * cancels on Ctrl-C) and `seam tasks <url>` (list, get, cancel).
 *
 * ```sh
 * deno install -g -A -n seam jsr:@seam/cli/main     # or, in a Node project: npm install dist/npm/*.tgz
 * seam serve --port 8787 &
 * seam send http://127.0.0.1:8787 "@reply hello"
 * ```
 *
 * This module exports the table of commands and the runner, for embedding
 * or for adding a command.
 *
 * @example The commands and their help
 * ```ts
 * import { COMMANDS, usage } from "@seam/cli";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(COMMANDS.map((command) => command.name), [
 *   "serve",
 *   "mcp",
 *   "acp",
 *   "send",
 *   "tasks",
 * ]);
 * assert.match(usage(), /send +send a task to an A2A agent/);
 * ```
 *
 * @module
 */
export { runCli, usage, VERSION } from "./cli.ts";
export { COMMANDS } from "./commands.ts";
export type { CliCommand } from "./command.ts";
export { type FlagSpec, intFlag, parseArgs, type ParsedArgs, UsageError, usageOf } from "./args.ts";
