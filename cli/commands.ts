/**
 * The `seam` commands, one entry each: `seam <name>` runs the entry's
 * `run`. A new command is one more entry.
 *
 * @module
 */
import type { CliCommand } from "./command.ts";
import { serveCommand } from "./serve.ts";
import { mcpCommand } from "./mcp.ts";
import { acpCommand } from "./acp.ts";
import { sendCommand } from "./send.ts";
import { tasksCommand } from "./tasks.ts";

/** Every `seam` command, in the order `seam --help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  serveCommand,
  mcpCommand,
  acpCommand,
  sendCommand,
  tasksCommand,
];
