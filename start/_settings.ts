// The settings that can stop `serveStart` at start-up, checked before
// anything is built, and the error that names the one at fault (by its
// variable; `seam serve` names its flag instead) with the fix.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * A setting `serveStart` cannot start with: `variable` names it (`HOST`),
 * `detail` says what is wrong and the fix, and `usage` whether the value
 * itself can never work (`true`: fix the setting) or the world is in the way
 * (`false`: a port in use, a database out of reach). The message is
 * `${variable} ${detail}`.
 */
export class StartSettingError extends Error {
  /** The environment variable at fault (`HOST`, `PORT`, `DATABASE_URL`, `SEAM_DATABASE_SCHEMA`). */
  readonly variable: string;
  /** What follows its name in the message: what is wrong, and the fix. */
  readonly detail: string;
  /** Whether no value like this one can work (bad usage) rather than the moment being wrong. */
  readonly usage: boolean;
  /** Builds the error; `cause` is what failed underneath, if anything. */
  constructor(variable: string, detail: string, usage: boolean, cause?: unknown) {
    super(`${variable} ${detail}`, cause === undefined ? undefined : { cause });
    this.name = "StartSettingError";
    this.variable = variable;
    this.detail = detail;
    this.usage = usage;
  }
}

/** Where to listen and what to keep tasks in, checked. */
export interface StartSettings {
  readonly hostname: string;
  readonly port: number;
  /** A PostgreSQL URL, or `undefined` to keep tasks in memory. */
  readonly databaseUrl: string | undefined;
}

/**
 * Read and check `HOST`, `PORT` and `DATABASE_URL` from `env`; a value that
 * can never work throws {@linkcode StartSettingError}.
 */
export async function startSettings(
  env: (name: string) => string | undefined,
): Promise<StartSettings> {
  const portText = env("PORT") || "8787";
  const port = /^\d+$/.test(portText) ? Number(portText) : NaN;
  if (!(port <= 65_535)) {
    throw new StartSettingError(
      "PORT",
      `must be a whole number from 0 to 65535, got "${portText}"`,
      true,
    );
  }
  const hostname = env("HOST") || "127.0.0.1";
  // Resolved here, not by the listener: its failure has no error class to tell it by.
  if (isIP(hostname) === 0) {
    try {
      await lookup(hostname);
    } catch (error) {
      // A lookup that failed for another reason (DNS out of reach) is not the name's fault.
      if ((error as { code?: unknown }).code !== "ENOTFOUND") throw error;
      throw new StartSettingError(
        "HOST",
        `must be an IP address or a host name of this machine, got "${hostname}" (no such name); ` +
          "use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)",
        true,
        error,
      );
    }
  }
  return { hostname, port, databaseUrl: checkDatabaseUrl(env("DATABASE_URL")) };
}

/**
 * A database URL the PostgreSQL driver would refuse with a stack trace (or
 * take for a host name) is bad usage: name its form.
 */
function checkDatabaseUrl(url: string | undefined): string | undefined {
  if (url === undefined || url === "") return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === "postgres:" || protocol === "postgresql:") return url;
  // The URL may hold a password: name only its scheme.
  const got = protocol === undefined ? "no URL" : `a URL of scheme "${protocol}"`;
  throw new StartSettingError(
    "DATABASE_URL",
    `must be a PostgreSQL URL (postgres://user@host:5432/db), got ${got}; ` +
      "leave it unset to keep tasks in memory",
    true,
  );
}

/** Why listening on `settings`' address failed, as the setting at fault (else `error` as is). */
export function listenFailure(error: unknown, settings: StartSettings): unknown {
  const { hostname, port } = settings;
  if (error instanceof Deno.errors.AddrInUse) {
    return new StartSettingError(
      "PORT",
      `${port} is in use on ${hostname}: stop what listens there, or use another port (0: any free one)`,
      false,
      error,
    );
  }
  if (error instanceof Deno.errors.AddrNotAvailable) {
    return new StartSettingError(
      "HOST",
      `"${hostname}" is not an address of this machine; ` +
        "use 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or one of its addresses",
      true,
      error,
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new StartSettingError(
      "PORT",
      `${port} may not be listened on by this user (ports below 1024 need privileges); ` +
        "use a port from 1024 (0: any free one)",
      false,
      error,
    );
  }
  return error;
}

/** Why the PostgreSQL task store did not open, as the setting at fault. */
export function storeFailure(error: unknown): StartSettingError {
  const why = error instanceof Error ? error.message : String(error);
  // The store refuses its options (here only the schema: the URL was checked) with a TypeError.
  if (error instanceof TypeError) {
    return new StartSettingError(
      "SEAM_DATABASE_SCHEMA",
      `is refused: ${why}; use one such as "seam"`,
      true,
      error,
    );
  }
  return new StartSettingError(
    "DATABASE_URL",
    `names a database that could not be reached or set up: ${why}; ` +
      "check the URL and that PostgreSQL runs there, or leave it unset to keep tasks in memory",
    false,
    error,
  );
}
