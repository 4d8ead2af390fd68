/**
 * `seam serve`: serve `ctx.subagents` (spawn and fork) as an A2A v1.0
 * gateway, what `deno task start` always did (`@seam/start/main`): flags
 * beat the environment variables they stand for.
 *
 * @module
 */
import { complain, envOf, isDeno } from "./command.ts";
import { type FlagSpec, intFlag, UsageError } from "./args.ts";
import { defineCommand, type DefinedCommand } from "./_command.ts";

const FLAGS: readonly FlagSpec[] = [
  { name: "host", kind: "value", value: "HOST", help: "interface to listen on (HOST; 127.0.0.1)" },
  { name: "port", kind: "value", value: "PORT", help: "port, 0 for any free one (PORT; 8787)" },
  {
    name: "inspector",
    kind: "switch",
    help: "serve the run inspector at /_inspect (SEAM_INSPECTOR=1)",
  },
  {
    name: "database-url",
    kind: "value",
    value: "URL",
    help: "keep tasks in PostgreSQL (DATABASE_URL; memory when unset)",
  },
  {
    name: "schema",
    kind: "value",
    value: "NAME",
    help: "PostgreSQL schema (SEAM_DATABASE_SCHEMA; seam)",
  },
];

const ENV_OF_FLAG: Readonly<Record<string, string>> = {
  host: "HOST",
  port: "PORT",
  "database-url": "DATABASE_URL",
  schema: "SEAM_DATABASE_SCHEMA",
};

/** `seam serve`. */
export const serveCommand: DefinedCommand = defineCommand({
  name: "serve",
  summary: "serve spawn and fork as an A2A gateway (deno task start)",
  synopsis: "seam serve [options]",
  description:
    `Serve the spawn and fork providers as an A2A v1.0 agent until Ctrl-C (live tasks are then
cancelled). The model is the scripted one, or a real one when DEEPSEEK_API_KEY or OPENAI_API_KEY
(with OPENAI_BASE_URL, SEAM_MODEL) is set. SEAM_GATEWAY_TOKEN turns bearer auth on (a secret: it is
read from the environment only); serving beyond loopback without it prints a WARNING. Needs Deno.`,
  flags: FLAGS,
  positionals: false,
  async run({ flags }) {
    intFlag(flags, "port", undefined, 0, 65_535);
    if (typeof flags.schema === "string" && !flags["database-url"] && !envOf("DATABASE_URL")) {
      throw new UsageError(
        "--schema needs a database: pass --database-url too (or set DATABASE_URL); " +
          "without one tasks live in memory",
      );
    }
    if (!isDeno()) {
      complain(
        "serve",
        "Cannot serve: seam serve needs Deno (it serves with Deno.serve); run it with " +
          "`deno install -g -A -n seam jsr:@seam/cli/main`, or serve createGateway()'s fetch handler with " +
          "node:http (README, The gateway and A2A from Node)",
      );
      return 1;
    }
    const overrides: Record<string, string> = {};
    for (const [flag, variable] of Object.entries(ENV_OF_FLAG)) {
      const value = flags[flag];
      if (typeof value === "string") overrides[variable] = value;
    }
    if (flags.inspector) overrides.SEAM_INSPECTOR = "1";
    const { serveStart, StartSettingError } = await import("@seam/start/main");
    try {
      await serveStart((name) => name in overrides ? overrides[name] : envOf(name));
    } catch (error) {
      if (!(error instanceof StartSettingError)) throw error;
      // Named as the user gave it: the flag when given, else its variable.
      const flag = Object.keys(ENV_OF_FLAG).find((name) => ENV_OF_FLAG[name] === error.variable);
      const name = flag !== undefined && typeof flags[flag] === "string"
        ? `--${flag}`
        : error.variable;
      if (error.usage) throw new UsageError(`${name} ${error.detail}`);
      complain("serve", `${name} ${error.detail}`);
      return 1;
    }
    return 0;
  },
});
