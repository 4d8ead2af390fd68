/**
 * What a `seam` command is: a name, one line for `seam --help`, and what
 * it runs. The CLI is a table of these (`COMMANDS`); adding a command is
 * one entry.
 *
 * @module
 */
import process from "node:process";

/** One `seam` command. */
export interface CliCommand {
  /** What follows `seam` (`serve`). */
  readonly name: string;
  /** Its line in `seam --help`. */
  readonly summary: string;
  /** Run with the arguments after the name; resolves with the exit code. */
  run(args: readonly string[]): Promise<number>;
}

/** Write `text` to stdout. */
export function out(text: string): void {
  process.stdout.write(text);
}

/** Write one line to stderr, prefixed with the command (`seam send: …`). */
export function complain(command: string, message: string): void {
  process.stderr.write(`seam ${command}: ${message}\n`);
}

/** One environment variable, or `undefined` (also when the runtime may not read it). */
export function envOf(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

/** Whether this is Deno (the commands that serve need `Deno.serve`). */
export function isDeno(): boolean {
  return typeof (globalThis as { Deno?: unknown }).Deno === "object";
}
