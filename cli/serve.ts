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
    const env = envOf("PORT");
    if (flags.port === undefined && env !== undefined && env !== "" && !/^\d+$/.test(env)) {
      throw new UsageError(`PORT must be a whole number from 0 to 65535, got "${env}"`);
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
    checkDatabaseUrl(flags["database-url"], overrides.DATABASE_URL ?? envOf("DATABASE_URL"));
    const { serveStart } = await import("@seam/start/main");
    await serveStart((name) => name in overrides ? overrides[name] : envOf(name));
    return 0;
  },
});

/**
 * A database URL the PostgreSQL driver would refuse with a stack trace (or
 * take for a host name) is bad usage: name where it came from and its form.
 */
function checkDatabaseUrl(flag: unknown, url: string | undefined): void {
  if (url === undefined || url === "") return;
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === "postgres:" || protocol === "postgresql:") return;
  const source = typeof flag === "string" ? "--database-url" : "DATABASE_URL";
  // The URL may hold a password: name only its scheme.
  const got = protocol === undefined ? "no URL" : `a URL of scheme "${protocol}"`;
  throw new UsageError(
    `${source} must be a PostgreSQL URL (postgres://user@host:5432/db), got ${got}; ` +
      "leave it unset to keep tasks in memory",
  );
}
