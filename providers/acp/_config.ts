import { describe, type Logger, refuseUnknownOptions } from "@seam/host";
import { isAbsolute, resolve } from "node:path";
import process from "node:process";
import type { PoolSettings } from "./_pool.ts";
import type {
  AcpLauncher,
  AcpPermissionPolicy,
  AcpPoolOptions,
  AcpProviderConfig,
} from "./types.ts";

/** The validated, defaulted snapshot of an {@linkcode AcpProviderConfig}. */
export interface ResolvedConfig {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly permission: AcpPermissionPolicy;
  readonly disposeEofGraceMs: number;
  readonly disposeGraceMs: number;
  readonly cancelGraceMs: number;
  readonly turnTimeoutMs: number | undefined;
  readonly authMethod: string | undefined;
  readonly startupTimeoutMs: number;
  readonly maxMessageBytes: number;
  readonly reuseProcess: boolean;
  readonly logger: Logger | undefined;
  readonly launcher: AcpLauncher;
  readonly pool: PoolSettings | undefined;
}

const ACTION = "create the ACP provider";
const POOL_OPTIONS = ["size", "maxIdleMs"] satisfies (keyof AcpPoolOptions)[];

// Every option of AcpProviderConfig (the Record keeps this list in step with the type).
const OPTION_KEYS: Readonly<Record<keyof AcpProviderConfig, true>> = {
  command: true,
  args: true,
  cwd: true,
  env: true,
  name: true,
  permission: true,
  disposeEofGraceMs: true,
  disposeGraceMs: true,
  cancelGraceMs: true,
  turnTimeoutMs: true,
  authMethod: true,
  startupTimeoutMs: true,
  maxMessageBytes: true,
  reuseProcess: true,
  logger: true,
  launcher: true,
  pool: true,
};
const OPTIONS = Object.keys(OPTION_KEYS);
const MAX_POOL_SIZE = 64;

/** Check `config.pool` and fill in its defaults. */
function resolvePool(pool: unknown, reuseProcess: unknown): PoolSettings | undefined {
  if (pool === undefined) return undefined;
  if (pool === null || typeof pool !== "object" || Array.isArray(pool)) {
    fail("pool", "an object", pool);
  }
  refuseUnknownOptions(ACTION, pool, POOL_OPTIONS, { under: "pool" });
  if (reuseProcess === true) {
    fail("pool", "absent with reuseProcess (one shared process needs no pool)", pool);
  }
  const { size, maxIdleMs } = pool as { size?: unknown; maxIdleMs?: unknown };
  if (size !== undefined) {
    if (typeof size !== "number") fail("pool.size", `an integer from 1 to ${MAX_POOL_SIZE}`, size);
    if (!Number.isInteger(size) || size < 1 || size > MAX_POOL_SIZE) {
      fail("pool.size", `an integer from 1 to ${MAX_POOL_SIZE}`, size, RangeError);
    }
  }
  return Object.freeze({
    size: (size as number | undefined) ?? 1,
    maxIdleMs: positive("pool.maxIdleMs", maxIdleMs, 300_000),
  });
}

const LAUNCHERS: readonly AcpLauncher[] = ["auto", "setsid", "perl", "direct"];

function fail(field: string, expected: string, value: unknown, kind = TypeError): never {
  const name = field === "" ? "config" : `config.${field}`;
  throw new kind(
    `Cannot ${ACTION}: ${name} must be ${expected}, got ${describe(value)}`,
  );
}

function positive(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number") fail(field, "a positive finite number of ms", value);
  if (!Number.isFinite(value) || value <= 0) {
    fail(field, "a positive finite number of ms", value, RangeError);
  }
  return value;
}

/**
 * Read every field of `config` once, check it and fill in the defaults.
 *
 * @throws {TypeError | RangeError} naming the first bad field.
 */
export function resolveConfig(config: AcpProviderConfig): ResolvedConfig {
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    fail("", "an object", config);
  }
  // A misspelled option would otherwise fall back to its default (`permission` to "reject").
  refuseUnknownOptions(ACTION, config, OPTIONS);
  const {
    command,
    args,
    cwd,
    env,
    name,
    permission,
    disposeEofGraceMs,
    disposeGraceMs,
    cancelGraceMs,
    turnTimeoutMs,
    authMethod,
    startupTimeoutMs,
    maxMessageBytes,
    reuseProcess,
    logger,
    launcher,
    pool,
  } = config;
  if (typeof command !== "string" || command === "") {
    fail("command", "a non-empty string", command);
  }
  let argList: string[] = [];
  if (args !== undefined) {
    if (!Array.isArray(args)) fail("args", "an array of strings", args);
    argList = args.map((arg, i) =>
      typeof arg === "string" ? arg : fail(`args[${i}]`, "a string", arg)
    );
  }
  if (cwd !== undefined && (typeof cwd !== "string" || cwd === "")) {
    fail("cwd", "a non-empty string", cwd);
  }
  const extraEnv: Record<string, string> = {};
  if (env !== undefined) {
    if (env === null || typeof env !== "object" || Array.isArray(env)) {
      fail("env", "an object of strings", env);
    }
    for (const [key, value] of Object.entries(env)) {
      if (key === "" || key.includes("=") || key.includes("\0")) {
        fail(`env`, "variable names without '=' or NUL", key);
      }
      if (typeof value !== "string") fail(`env.${key}`, "a string", value);
      extraEnv[key] = value;
    }
  }
  if (name !== undefined && (typeof name !== "string" || name === "")) {
    fail("name", "a non-empty string", name);
  }
  if (authMethod !== undefined && (typeof authMethod !== "string" || authMethod === "")) {
    fail("authMethod", "a non-empty string", authMethod);
  }
  if (
    permission !== undefined && permission !== "reject" && permission !== "allow" &&
    permission !== "ask" && typeof permission !== "function"
  ) {
    fail("permission", '"reject", "allow", "ask" or a function', permission);
  }
  if (reuseProcess !== undefined && typeof reuseProcess !== "boolean") {
    fail("reuseProcess", "a boolean", reuseProcess);
  }
  if (
    logger !== undefined &&
    (logger === null || typeof logger !== "object" || typeof logger.child !== "function")
  ) {
    fail("logger", "a Logger", logger);
  }
  if (launcher !== undefined && !LAUNCHERS.includes(launcher)) {
    fail("launcher", `one of ${LAUNCHERS.map((l) => `"${l}"`).join(", ")}`, launcher);
  }
  let messageBytes = 32 * 1024 * 1024;
  if (maxMessageBytes !== undefined) {
    if (typeof maxMessageBytes !== "number") {
      fail("maxMessageBytes", "a positive integer", maxMessageBytes);
    }
    if (!Number.isSafeInteger(maxMessageBytes) || maxMessageBytes <= 0) {
      fail("maxMessageBytes", "a positive integer", maxMessageBytes, RangeError);
    }
    messageBytes = maxMessageBytes;
  }
  const graces = {
    disposeEofGraceMs: positive("disposeEofGraceMs", disposeEofGraceMs, 200),
    disposeGraceMs: positive("disposeGraceMs", disposeGraceMs, 2_000),
    cancelGraceMs: positive("cancelGraceMs", cancelGraceMs, 5_000),
    turnTimeoutMs: turnTimeoutMs === undefined
      ? undefined
      : positive("turnTimeoutMs", turnTimeoutMs, 0),
    startupTimeoutMs: positive("startupTimeoutMs", startupTimeoutMs, 30_000),
  };
  let directory: string;
  try {
    directory = cwd !== undefined && isAbsolute(cwd)
      ? resolve(cwd)
      : resolve(process.cwd(), cwd ?? ".");
  } catch (error) {
    throw new TypeError(
      `Cannot create the ACP provider: config.cwd is relative or absent and the current directory cannot be read (${
        (error as Error).message
      }); pass an absolute cwd`,
    );
  }
  return Object.freeze({
    name: name ?? "acp",
    command,
    args: Object.freeze(argList),
    cwd: directory,
    env: Object.freeze(extraEnv),
    permission: permission ?? "reject",
    authMethod,
    ...graces,
    maxMessageBytes: messageBytes,
    reuseProcess: reuseProcess ?? false,
    logger,
    launcher: launcher ?? "auto",
    pool: resolvePool(pool, reuseProcess),
  });
}
