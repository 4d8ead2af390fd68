// How a `seam` command is declared: its flags and usage once, and what it
// runs with them checked. `--help` and arguments a command does not take are
// handled here, the same for every command.
import { type CliCommand, out } from "./command.ts";
import { type FlagSpec, parseArgs, type ParsedArgs, UsageError, usageOf } from "./args.ts";

/** A command as its file declares it. */
export interface CommandDefinition {
  /** What follows `seam` (`serve`). */
  readonly name: string;
  /** Its line in `seam --help`. */
  readonly summary: string;
  /** The usage's first line (`seam serve [options]`). */
  readonly synopsis: string;
  /** What the command does, for its `--help`. */
  readonly description: string;
  /** The flags it takes (`--help` is always known). */
  readonly flags: readonly FlagSpec[];
  /** Whether it takes arguments besides its flags; when not, any is refused. */
  readonly positionals: boolean;
  /** Run with the parsed command line (not `--help`); resolves with the exit code. */
  run(args: ParsedArgs): Promise<number>;
}

/** A declared command: what `COMMANDS` lists, and its usage. */
export interface DefinedCommand extends CliCommand {
  /** What `seam <name> --help` prints. */
  readonly usage: string;
}

/** The command `definition` declares: parses, answers `--help`, refuses stray arguments. */
export function defineCommand(definition: CommandDefinition): DefinedCommand {
  const usage = usageOf(definition.synopsis, definition.description, definition.flags);
  return {
    name: definition.name,
    summary: definition.summary,
    usage,
    async run(args) {
      const parsed = parseArgs(args, definition.flags);
      if (parsed.flags.help) {
        out(usage);
        return 0;
      }
      if (!definition.positionals && parsed.positionals.length > 0) {
        throw new UsageError(`takes no arguments, got "${parsed.positionals.join(" ")}"`);
      }
      return await definition.run(parsed);
    },
  };
}

/** A value flag's value, or `undefined` when absent. */
export function stringFlag(flags: ParsedArgs["flags"], name: string): string | undefined {
  const value = flags[name];
  return typeof value === "string" ? value : undefined;
}
