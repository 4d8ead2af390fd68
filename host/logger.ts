import { cannot } from "./_invalid.ts";
import { refuseUnknownOptions } from "./unknown_options.ts";

/** Severity of a log record, from the most to the least verbose. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** Everything a level filter passes for `"silent"`: nothing. */
export type LogThreshold = LogLevel | "silent";

/** One message given to a {@linkcode LogSink}. */
export interface LogRecord {
  /** Severity of the record. */
  readonly level: LogLevel;
  /** The logger's name (`"seam"`, `"seam:subagent"`, …). */
  readonly name: string;
  /** Human-readable message. */
  readonly message: string;
  /** Extra values passed after the message (errors, payloads). */
  readonly data: readonly unknown[];
}

/** Where log records go. */
export type LogSink = (record: LogRecord) => void;

/** A levelled logger. Every method is safe to call with any data. */
export interface Logger {
  /** The name carried by this logger's records. */
  readonly name: string;
  /** Log a debugging detail. */
  debug(message: string, ...data: unknown[]): void;
  /** Log an informational note. */
  info(message: string, ...data: unknown[]): void;
  /** Log something unexpected that was handled. */
  warn(message: string, ...data: unknown[]): void;
  /** Log a failure that was contained. */
  error(message: string, ...data: unknown[]): void;
  /** A logger with the same sink and level and a sub-name (`name:sub`). */
  child(name: string): Logger;
}

/** Options of {@linkcode createLogger}. */
export interface LoggerOptions {
  /** Records below this level are dropped. Default `"warn"`. */
  level?: LogThreshold;
  /** Where records go. Default: the console (`console.error` for warn and error). */
  sink?: LogSink;
  /** The logger's name. Default `"seam"`. */
  name?: string;
}

const LOGGER_OPTIONS = ["level", "sink", "name"] satisfies (keyof LoggerOptions)[];

const ORDER: Record<LogThreshold, number> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
  silent: 100,
};

const consoleSink: LogSink = (record) => {
  const line = `[${record.name}] ${record.level}: ${record.message}`;
  if (record.level === "error" || record.level === "warn") {
    console.error(line, ...record.data);
  } else {
    console.log(line, ...record.data);
  }
};

/**
 * Create a levelled logger writing to an injectable sink.
 *
 * @example Capture records in a test
 * ```ts
 * import { createLogger, type LogRecord } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const records: LogRecord[] = [];
 * const logger = createLogger({ level: "info", sink: (r) => records.push(r) });
 * logger.debug("dropped");
 * logger.child("tool").info("kept");
 * assert.equal(records.length, 1);
 * assert.equal(records[0].name, "seam:tool");
 * ```
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  refuseUnknownOptions("create logger", options, LOGGER_OPTIONS);
  const level = options.level ?? "warn";
  if (!(level in ORDER)) {
    cannot("create logger", `unknown level "${String(level)}"`, true);
  }
  return makeLogger(
    options.name ?? "seam",
    ORDER[level],
    options.sink ?? consoleSink,
  );
}

function makeLogger(name: string, threshold: number, sink: LogSink): Logger {
  const emit = (level: LogLevel, message: string, data: unknown[]) => {
    if (ORDER[level] < threshold) return;
    try {
      sink({ level, name, message, data });
    } catch {
      // A broken sink must never turn logging into a failure of the caller.
    }
  };
  return {
    name,
    debug: (message, ...data) => emit("debug", message, data),
    info: (message, ...data) => emit("info", message, data),
    warn: (message, ...data) => emit("warn", message, data),
    error: (message, ...data) => emit("error", message, data),
    child: (sub) => makeLogger(`${name}:${sub}`, threshold, sink),
  };
}

/** A logger that drops everything; handy for benchmarks. */
// Marked pure: a bundle that never reads it leaves it out.
export const silentLogger: Logger = /* @__PURE__ */ createLogger({ level: "silent" });

/** A logger that keeps its records in memory, from {@linkcode createMemoryLogger}. */
export interface MemoryLogger {
  /** The logger to hand to the code under test. */
  readonly logger: Logger;
  /** Every record it received, in order. */
  readonly records: LogRecord[];
}

/**
 * Create a logger that records everything (debug and up) in memory and prints
 * nothing: tests stay quiet and can assert on what was logged.
 *
 * @example
 * ```ts
 * import { createMemoryLogger } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const { logger, records } = createMemoryLogger();
 * logger.error("boom");
 * assert.equal(records[0].message, "boom");
 * ```
 */
export function createMemoryLogger(): MemoryLogger {
  const records: LogRecord[] = [];
  return {
    logger: createLogger({ level: "debug", sink: (r) => records.push(r) }),
    records,
  };
}
