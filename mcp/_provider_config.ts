/** The MCP provider's options, checked once. */
import { type JsonValue, refuseUnknownOptions } from "@seam/host";
import type { SubagentRequest } from "@seam/subagent";
import type { SpawnSpec } from "./_child_process.ts";
import type { McpProviderOptions } from "./_provider_options.ts";

/** The options, resolved. */
export interface ResolvedProviderConfig {
  readonly name: string;
  readonly tool: string;
  readonly spawn?: SpawnSpec;
  readonly url?: string;
  /** The protocol line spoken (absent: `url`'s, detected by the provider). */
  readonly protocol?: "2025-11-25" | "2026-07-28";
  readonly headers: Readonly<Record<string, string>>;
  readonly arguments?: (prompt: string, request: SubagentRequest) => Record<string, JsonValue>;
  readonly inheritsParentContext: boolean;
  readonly startTimeoutMs: number;
  readonly callTimeoutMs: number;
  readonly teardownGraceMs: number;
}

const KNOWN = [
  "name",
  "tool",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "protocol",
  "arguments",
  "inheritsParentContext",
  "startTimeoutMs",
  "callTimeoutMs",
  "teardownGraceMs",
] satisfies (keyof McpProviderOptions)[];

const ACTION = "create the MCP provider";

function refuse(state: string): never {
  throw new TypeError(`Cannot ${ACTION}: ${state}`);
}

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) < 1) {
    refuse(`${name} must be a positive integer (ms), got ${String(value)}`);
  }
  return value as number;
}

/** Check `options`; throws a TypeError naming what is wrong. */
export function resolveProviderConfig(options: McpProviderOptions): ResolvedProviderConfig {
  if (options === null || typeof options !== "object") refuse("options must be an object");
  refuseUnknownOptions(ACTION, options, KNOWN);
  const { command, url, tool } = options;
  if (typeof tool !== "string" || tool === "") refuse("tool must name the server's tool");
  if ((command === undefined) === (url === undefined)) {
    refuse("give exactly one of command (a server process) and url (a remote server)");
  }
  if (command !== undefined && (typeof command !== "string" || command === "")) {
    refuse("command must be a non-empty string");
  }
  if (
    options.args !== undefined && (!Array.isArray(options.args) ||
      options.args.some((a) => typeof a !== "string"))
  ) refuse("args must be an array of strings");
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      refuse(`url is not a URL: ${JSON.stringify(url)}`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      refuse(`url must be http(s), got ${parsed.protocol}`);
    }
  }
  // A process speaks 2025-11-25 on stdio; a URL's line is detected unless given.
  const protocol = options.protocol ?? (url === undefined ? "2025-11-25" : undefined);
  if (protocol !== undefined && protocol !== "2025-11-25" && protocol !== "2026-07-28") {
    refuse(`protocol must be "2025-11-25" or "2026-07-28", got ${JSON.stringify(protocol)}`);
  }
  if (protocol === "2026-07-28" && url === undefined) {
    refuse(`protocol "2026-07-28" needs url (its servers are reached over HTTP)`);
  }
  if (options.arguments !== undefined && typeof options.arguments !== "function") {
    refuse("arguments must be a function of the prompt");
  }
  const name = options.name ?? "mcp";
  if (typeof name !== "string" || name === "") refuse("name must be a non-empty string");
  return {
    name,
    tool,
    ...(command !== undefined
      ? {
        spawn: {
          command,
          args: options.args ?? [],
          ...(options.env ? { env: options.env } : {}),
          ...(options.cwd ? { cwd: options.cwd } : {}),
        },
      }
      : { url }),
    ...(protocol !== undefined ? { protocol } : {}),
    headers: options.headers ?? {},
    ...(options.arguments ? { arguments: options.arguments } : {}),
    inheritsParentContext: options.inheritsParentContext ?? false,
    startTimeoutMs: positive(options.startTimeoutMs, "startTimeoutMs", 30_000),
    callTimeoutMs: positive(options.callTimeoutMs, "callTimeoutMs", 24 * 3_600_000),
    teardownGraceMs: positive(options.teardownGraceMs, "teardownGraceMs", 2_000),
  };
}
