// The flags of the commands that call an agent at a URL (`seam send`,
// `seam tasks`): the URL itself and the bearer token, checked the same way.
import { envOf } from "./command.ts";
import { type FlagSpec, type ParsedArgs, UsageError } from "./args.ts";

/** `--token-env`, for the commands that call an agent with a bearer token. */
export const TOKEN_ENV_FLAG: FlagSpec = {
  name: "token-env",
  kind: "value",
  value: "VAR",
  help: "the variable holding the bearer token (default SEAM_TOKEN)",
};

/**
 * The bearer token: from the variable `--token-env` names, else SEAM_TOKEN
 * (`undefined` when unset or empty).
 *
 * @throws {UsageError} when the variable `--token-env` names is not set.
 */
export function tokenOf(flags: ParsedArgs["flags"]): string | undefined {
  const named = flags["token-env"];
  const variable = typeof named === "string" ? named : "SEAM_TOKEN";
  const token = envOf(variable) || undefined;
  if (named !== undefined && token === undefined) {
    throw new UsageError(`--token-env ${variable}: that variable is not set`);
  }
  return token;
}

/**
 * Refuse `url` unless it is an http(s) URL.
 *
 * @throws {UsageError} naming `<url>` otherwise.
 */
export function assertHttpUrl(url: string): void {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new UsageError(`<url> must be an http(s) URL, got "${url}"`);
  }
}
