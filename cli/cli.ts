/**
 * `seam`: find the command in the table and run it. `seam`, `seam --help`
 * and `seam help` print the commands; `seam <command> --help` that
 * command's usage. Bad usage exits 2 with the reason and the fix.
 *
 * @module
 */
import process from "node:process";
import { type CliCommand, complain, out } from "./command.ts";
import { COMMANDS } from "./commands.ts";
import { UsageError } from "./args.ts";
import config from "./deno.json" with { type: "json" };

/** The CLI's version, the release's (every seam package carries it). */
export const VERSION: string = config.version;

/** What `seam --help` prints for `commands`. */
export function usage(commands: readonly CliCommand[] = COMMANDS): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return `seam ${VERSION}: delegate to agents, and serve them (A2A, ACP)

usage: seam <command> [options]   (seam <command> --help for its options)

commands:
${commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join("\n")}
`;
}

/**
 * Run `seam` with `args` (what follows `seam` on the command line) against
 * `commands`; resolves with the exit status.
 */
export async function runCli(
  args: readonly string[],
  commands: readonly CliCommand[] = COMMANDS,
): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    out(usage(commands));
    return 0;
  }
  if (name === "--version" || name === "-V") {
    out(`seam ${VERSION}\n`);
    return 0;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (command === undefined) {
    const known = commands.map((candidate) => candidate.name).join(", ");
    const what = name.startsWith("-") ? "option" : "command";
    process.stderr.write(
      `seam: unknown ${what} ${JSON.stringify(name)} (known: ${known}); see seam --help\n`,
    );
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      complain(command.name, `${error.message}\n(see seam ${command.name} --help)`);
      return 2;
    }
    throw error;
  }
}
