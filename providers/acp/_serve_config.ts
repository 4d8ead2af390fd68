// What `serve.ts` serves, from its arguments and environment: pure, so it is
// tested without a process.
import {
  createOpenAICompatibleModel,
  createScriptedModel,
  DEEPSEEK_BASE_URL,
  type LogThreshold,
  type ModelAdapter,
} from "@seam/host";

/** The environment variables `serve.ts` reads (the same as the demo's). */
export const SERVE_ENV: readonly string[] = [
  "DEEPSEEK_API_KEY",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "SEAM_MODEL",
];

/** What to serve. */
export interface ServeConfig {
  /** The model id the session agents use. */
  readonly model: string;
  /** Its adapter. */
  readonly adapter: ModelAdapter;
  /** For the start-up log line (`scripted`, `deepseek-chat at https://…`). */
  readonly label: string;
  /** The log threshold (logs go to stderr). */
  readonly logLevel: LogThreshold;
}

/** The usage text. */
export const USAGE = `Serve a seam agent over ACP (Agent Client Protocol) on stdin/stdout.

Usage: deno run --allow-env --allow-net providers/acp/serve.ts [options]

Options:
  --model scripted|<name>  the model: "scripted" (deterministic, no network), or a
                           model name on the API chosen by the environment.
                           Default: SEAM_MODEL when an API key is set, else scripted.
  --log-level <level>      debug, info, warn (default), error or silent; logs go to stderr.
  --help                   print this text.

Environment (the demo's): DEEPSEEK_API_KEY (DeepSeek), or OPENAI_API_KEY with
OPENAI_BASE_URL (default https://api.openai.com/v1); SEAM_MODEL (default
deepseek-chat on DeepSeek, gpt-4o-mini otherwise).`;

const LEVELS: readonly string[] = ["debug", "info", "warn", "error", "silent"];

/** Thrown for bad arguments; `serve.ts` prints it with the usage and exits 2. */
export class UsageError extends Error {
  /** Make the error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Read `args` (`--model`, `--log-level`, `--help`) and the environment.
 *
 * @returns The config, or `"help"` when `--help` was given.
 * @throws {UsageError} for an unknown option, a missing value, or a real
 *   model asked for without an API key.
 */
export function parseServeArgs(
  args: readonly string[],
  env: (name: string) => string | undefined,
): ServeConfig | "help" {
  let model: string | undefined;
  let logLevel: LogThreshold = "warn";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") return "help";
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    if (flag !== "--model" && flag !== "--log-level") {
      throw new UsageError(`unknown argument ${JSON.stringify(arg)}`);
    }
    const value = inline ?? args[++i];
    if (value === undefined || value === "") throw new UsageError(`${flag} needs a value`);
    if (flag === "--model") {
      model = value;
    } else {
      if (!LEVELS.includes(value)) {
        throw new UsageError(`--log-level must be one of ${LEVELS.join(", ")}, got ${value}`);
      }
      logLevel = value as LogThreshold;
    }
  }
  const scripted = (): ServeConfig => ({
    model: "scripted",
    adapter: createScriptedModel(),
    label: "the scripted model",
    logLevel,
  });
  if (model === "scripted") return scripted();
  const deepseek = env("DEEPSEEK_API_KEY");
  const openai = env("OPENAI_API_KEY");
  if (!deepseek && !openai) {
    if (model === undefined) return scripted();
    throw new UsageError(
      `--model ${model} needs DEEPSEEK_API_KEY or OPENAI_API_KEY in the environment (or use --model scripted)`,
    );
  }
  const baseUrl = deepseek
    ? DEEPSEEK_BASE_URL
    : env("OPENAI_BASE_URL") || "https://api.openai.com/v1";
  const id = model ?? (env("SEAM_MODEL") || (deepseek ? "deepseek-chat" : "gpt-4o-mini"));
  return {
    model: id,
    adapter: createOpenAICompatibleModel({ apiKey: (deepseek || openai)!, baseUrl }),
    label: `${id} at ${baseUrl}`,
    logLevel,
  };
}
