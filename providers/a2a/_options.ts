// The A2A provider's options, read once: each checked (a bad one named, an
// unknown one refused with the known ones), the defaults filled in, in the
// order the checks have always run. `createA2AProvider` (provider.ts) then
// only connects.
import { isRecord, type Logger, refuseUnknownOptions } from "@seam/host";
import type { ReconnectLimits } from "./_reconnect.ts";
import type { A2ABinding, A2AProviderOptions, A2AReconnectPolicy } from "./types.ts";

/** The checked, defaulted snapshot of {@linkcode A2AProviderOptions}. */
export interface ResolvedOptions {
  readonly url: string | URL | undefined;
  readonly card: Record<string, unknown> | undefined;
  readonly name: string;
  /** The seam gateway's provider to address (`options.provider`). */
  readonly wanted: string | undefined;
  readonly binding: A2ABinding | undefined;
  readonly token: string | undefined;
  readonly fetch: typeof fetch | undefined;
  readonly resume: boolean;
  readonly sendMessage: boolean | undefined;
  readonly logger: Logger | undefined;
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly deadlineMs: number | undefined;
  readonly maxOutputChars: number;
  readonly redirects: "refuse" | "same-origin";
  readonly sameOriginInterfaces: boolean;
  /** The reconnect bounds (`pollIntervalMs` with them). */
  readonly reconnect: ReconnectLimits;
}

const ACTION = "create A2A provider";
const OPTION_KEYS = [
  "url",
  "card",
  "name",
  "provider",
  "binding",
  "token",
  "fetch",
  "timeoutMs",
  "idleTimeoutMs",
  "deadlineMs",
  "maxOutputChars",
  "redirects",
  "sameOriginInterfaces",
  "reconnect",
  "pollIntervalMs",
  "resume",
  "sendMessage",
  "logger",
] satisfies (keyof A2AProviderOptions)[];

function bad(message: string): never {
  throw new TypeError(`Cannot ${ACTION}: ${message}`);
}

/** The longest wait a timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_WAIT_MS = 2_147_483_647;

function checkInteger(
  value: unknown,
  name: string,
  fallback: number,
  min = 0,
  max = MAX_WAIT_MS,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(
      `Cannot create A2A provider: ${name} must be an integer from ${min} to ${max}, got ${
        String(value)
      }`,
    );
  }
  return value;
}

/**
 * Read every option once, check it and fill in the defaults.
 *
 * @throws {TypeError | RangeError} naming the first bad option.
 */
export function resolveOptions(options: A2AProviderOptions): ResolvedOptions {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    bad("options must be an object");
  }
  refuseUnknownOptions(ACTION, options, OPTION_KEYS);
  const {
    url,
    card,
    name = "a2a",
    provider: wanted,
    binding,
    token,
    fetch: customFetch,
    resume = true,
    sendMessage,
    logger,
  } = options;
  if ((url === undefined) === (card === undefined)) {
    bad("give exactly one of options.url and options.card");
  }
  if (card !== undefined && !isRecord(card)) bad("options.card must be an agent card object");
  if (typeof name !== "string" || name === "") bad("options.name must be a non-empty string");
  if (wanted !== undefined && (typeof wanted !== "string" || wanted === "")) {
    bad("options.provider must be a non-empty string");
  }
  if (binding !== undefined && binding !== "JSONRPC" && binding !== "HTTP+JSON") {
    bad(`options.binding must be "JSONRPC" or "HTTP+JSON", got ${JSON.stringify(binding)}`);
  }
  if (token !== undefined && (typeof token !== "string" || token === "" || /\s/.test(token))) {
    bad("options.token must be a non-empty string without whitespace");
  }
  if (customFetch !== undefined && typeof customFetch !== "function") {
    bad("options.fetch must be a function");
  }
  if (typeof resume !== "boolean") bad("options.resume must be a boolean");
  if (sendMessage !== undefined && typeof sendMessage !== "boolean") {
    bad("options.sendMessage must be a boolean");
  }
  if (
    logger !== undefined &&
    (logger === null || typeof (logger as { warn?: unknown }).warn !== "function")
  ) {
    bad("options.logger must be a Logger");
  }
  const { pollIntervalMs, ...bounds } = checkBounds(options);
  const { redirects, sameOriginInterfaces } = checkWire(options, url);
  const reconnect = checkReconnect(options);
  return {
    url,
    card: card as Record<string, unknown> | undefined,
    name,
    wanted,
    binding,
    token,
    fetch: customFetch,
    resume,
    sendMessage,
    logger,
    ...bounds,
    redirects,
    sameOriginInterfaces,
    reconnect: { ...reconnect, pollIntervalMs },
  };
}

/** The time and size bounds. */
function checkBounds(options: A2AProviderOptions): {
  timeoutMs: number;
  pollIntervalMs: number;
  idleTimeoutMs: number;
  deadlineMs: number | undefined;
  maxOutputChars: number;
} {
  const timeoutMs = checkInteger(options.timeoutMs, "options.timeoutMs", 30_000, 1);
  const pollIntervalMs = checkInteger(options.pollIntervalMs, "options.pollIntervalMs", 500, 1);
  const idleTimeoutMs = checkInteger(options.idleTimeoutMs, "options.idleTimeoutMs", 300_000, 1);
  const deadlineMs = options.deadlineMs === undefined
    ? undefined
    : checkInteger(options.deadlineMs, "options.deadlineMs", 0, 1);
  const maxOutputChars = checkInteger(
    options.maxOutputChars,
    "options.maxOutputChars",
    4_000_000,
    1,
    Math.floor(Number.MAX_SAFE_INTEGER / 4),
  );
  return { timeoutMs, pollIntervalMs, idleTimeoutMs, deadlineMs, maxOutputChars };
}

/** Where requests may go: redirects and the card's interfaces. */
function checkWire(
  options: A2AProviderOptions,
  url: string | URL | undefined,
): { redirects: "refuse" | "same-origin"; sameOriginInterfaces: boolean } {
  const { redirects = "refuse", sameOriginInterfaces = false } = options;
  if (redirects !== "refuse" && redirects !== "same-origin") {
    bad(`options.redirects must be "refuse" or "same-origin", got ${JSON.stringify(redirects)}`);
  }
  if (typeof sameOriginInterfaces !== "boolean") {
    bad("options.sameOriginInterfaces must be a boolean");
  }
  if (sameOriginInterfaces && url === undefined) {
    bad("options.sameOriginInterfaces needs options.url (a card given as is has no origin)");
  }
  return { redirects, sameOriginInterfaces };
}

/** The reconnect policy (`false`: a dropped stream is given up at once). */
function checkReconnect(options: A2AProviderOptions): Omit<ReconnectLimits, "pollIntervalMs"> {
  const { reconnect } = options;
  if (reconnect !== undefined && reconnect !== false && !isRecord(reconnect)) {
    bad("options.reconnect must be a policy object or false");
  }
  const policy = reconnect === false ? undefined : reconnect;
  refuseUnknownOptions(
    ACTION,
    policy,
    [
      "retries",
      "delayMs",
      "maxDelayMs",
      "maxReattaches",
    ] satisfies (keyof A2AReconnectPolicy)[],
    { under: "reconnect" },
  );
  const retries = reconnect === false
    ? 0
    : checkInteger(policy?.retries, "options.reconnect.retries", 3);
  const delayMs = checkInteger(policy?.delayMs, "options.reconnect.delayMs", 200);
  const maxDelayMs = checkInteger(policy?.maxDelayMs, "options.reconnect.maxDelayMs", 5_000);
  const maxReattaches = checkInteger(
    policy?.maxReattaches,
    "options.reconnect.maxReattaches",
    100,
    0,
    1_000_000,
  );

  return { retries, delayMs, maxDelayMs, maxReattaches };
}
