// The ACP server's options, checked once (a bad one named).
import { refuseUnknownOptions } from "@seam/host";
import type { AcpServerOptions } from "./types.ts";

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new TypeError(`Cannot serve an ACP agent: ${message}`);
}

// Every option of AcpServerOptions (the Record keeps this list in step with the type).
const OPTION_KEYS: Readonly<Record<keyof AcpServerOptions, true>> = {
  host: true,
  streams: true,
  model: true,
  maxTokens: true,
  maxSessions: true,
  setup: true,
  parentScope: true,
  name: true,
  title: true,
  version: true,
  logger: true,
};
const OPTIONS = Object.keys(OPTION_KEYS);

/**
 * Check every option of {@linkcode AcpServerOptions}.
 *
 * @throws {TypeError} naming the first bad one.
 */
export function checkOptions(options: AcpServerOptions): void {
  check(
    options !== null && typeof options === "object" && !Array.isArray(options),
    "options must be an object",
  );
  refuseUnknownOptions("serve an ACP agent", options, OPTIONS);
  const { host, streams, model, setup, parentScope, logger, maxSessions } = options;
  check(
    host !== null && typeof host === "object" && typeof host.agents?.create === "function",
    "options.host must be a Host (from createHost)",
  );
  check(
    streams !== null && typeof streams === "object" &&
      streams.readable instanceof ReadableStream && streams.writable instanceof WritableStream,
    "options.streams must hold a ReadableStream `readable` and a WritableStream `writable`",
  );
  check(typeof model === "string" && model !== "", "options.model must be a non-empty string");
  check(setup === undefined || typeof setup === "function", "options.setup must be a function");
  check(
    maxSessions === undefined ||
      (Number.isSafeInteger(maxSessions) && maxSessions >= 1 && maxSessions <= 1_000_000),
    `options.maxSessions must be an integer from 1 to 1000000, got ${String(maxSessions)}`,
  );
  check(
    parentScope === undefined || (parentScope !== null && typeof parentScope === "object" &&
      typeof parentScope.child === "function"),
    "options.parentScope must be a Scope",
  );
  for (const key of ["name", "title", "version"] as const) {
    const value = options[key];
    check(
      value === undefined || (typeof value === "string" && value !== ""),
      `options.${key} must be a non-empty string`,
    );
  }
  check(
    logger === undefined ||
      (logger !== null && typeof logger === "object" && typeof logger.warn === "function"),
    "options.logger must be a Logger",
  );
}
