/**
 * The command line of a `seam` command: flags declared up front, each
 * checked, and the rest positional. Anything not declared is refused with
 * the flags that are.
 *
 * @module
 */

/** A flag a command takes: a switch, or one taking a value (`--port 8080`, `--port=8080`). */
export interface FlagSpec {
  /** The name without dashes (`port`). */
  readonly name: string;
  /** `"value"`: takes the next argument (or `=value`); `"switch"`: takes none. */
  readonly kind: "value" | "switch";
  /** Shown in the command's usage after the name (`PORT`). */
  readonly value?: string;
  /** One line for the usage. */
  readonly help: string;
}

/** Bad input on the command line; `code` is `"USAGE"` (the process exits 2). */
export class UsageError extends Error {
  /** Always `"USAGE"`. */
  readonly code = "USAGE";
  /** Builds the error; `message` names what was wrong and the fix. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** What {@linkcode parseArgs} found. */
export interface ParsedArgs {
  /** The flags given, by name: a string for a value flag, `true` for a switch. */
  readonly flags: Readonly<Record<string, string | true>>;
  /** The other arguments, in order (everything after `--` included as is). */
  readonly positionals: readonly string[];
}

/**
 * Parse `args` against `specs` (`--help` is always known). An unknown flag,
 * a value flag without its value, a switch given a value or a flag given
 * twice throws {@linkcode UsageError} naming it.
 *
 * @example
 * ```ts
 * import { parseArgs } from "@seam/cli";
 * import assert from "node:assert/strict";
 *
 * const parsed = parseArgs(["--port=0", "a", "b"], [
 *   { name: "port", kind: "value", help: "the port" },
 * ]);
 * assert.deepEqual(parsed.flags, { port: "0" });
 * assert.deepEqual(parsed.positionals, ["a", "b"]);
 * assert.throws(() => parseArgs(["--prot", "0"], []), /unknown option --prot \(known: --help\)/);
 * ```
 */
export function parseArgs(args: readonly string[], specs: readonly FlagSpec[]): ParsedArgs {
  const all = [...specs, { name: "help", kind: "switch", help: "" } as const];
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.startsWith("--")
      ? splitOnce(arg.slice(2), "=")
      : [arg === "-h" ? "help" : arg, undefined];
    const spec = all.find((candidate) => candidate.name === name);
    if (spec === undefined) {
      const known = all.map((candidate) => `--${candidate.name}`).join(", ");
      throw new UsageError(`unknown option ${arg.split("=")[0]} (known: ${known})`);
    }
    if (name in flags) throw new UsageError(`--${name} is given twice`);
    if (spec.kind === "switch") {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value, got "${inline}"`);
      flags[name] = true;
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined || (inline === undefined && value.startsWith("--"))) {
      throw new UsageError(`--${name} needs a value (--${name} ${spec.value ?? "VALUE"})`);
    }
    flags[name] = value;
  }
  return { flags, positionals };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/**
 * A flag's value as a whole number within `min`-`max`, or `fallback` when
 * absent; anything else throws {@linkcode UsageError} naming the flag.
 */
export function intFlag(
  flags: ParsedArgs["flags"],
  name: string,
  fallback: number | undefined,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const value = flags[name];
  if (value === undefined) return fallback;
  const number = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return number;
}

/** The usage text of a command: its synopsis, what it does, and its flags. */
export function usageOf(
  synopsis: string,
  description: string,
  specs: readonly FlagSpec[],
): string {
  const help: FlagSpec = { name: "help", kind: "switch", help: "print this help and exit" };
  const rows = [...specs, help]
    .map((spec) => {
      const left = `--${spec.name}${spec.kind === "value" ? ` ${spec.value ?? "VALUE"}` : ""}`;
      return `  ${left.padEnd(24)} ${spec.help}`;
    });
  return `usage: ${synopsis}\n\n${description}\n\noptions:\n${rows.join("\n")}\n`;
}
