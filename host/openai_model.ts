import type { ModelAdapter, ModelEvent, ModelRequest } from "./model.ts";
import { cannot } from "./_invalid.ts";
import { type Config, open } from "./_openai_http.ts";
import { toWire } from "./_openai_messages.ts";
import { readStream } from "./_openai_stream.ts";
import { freeze, stringify } from "./_builtins.ts";
import { refuseUnknownOptions } from "./unknown_options.ts";

/** Options of {@linkcode createOpenAICompatibleModel}. Give `baseUrl` or `preset`. */
export interface OpenAICompatibleModelOptions {
  /**
   * The API's base URL; requests go to `<baseUrl>/chat/completions`
   * (`https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`, …). Required
   * unless `preset` names the API: the key goes wherever this points.
   */
  readonly baseUrl?: string;
  /**
   * A named API instead of `baseUrl` (see
   * {@linkcode OPENAI_COMPATIBLE_PRESETS}): `"openai"` sends requests to
   * `https://api.openai.com/v1`, `"deepseek"` to `https://api.deepseek.com`.
   */
  readonly preset?: OpenAICompatiblePreset;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  readonly apiKey?: string;
  /** The model name sent to the server. Default: the agent's model id. */
  readonly model?: string;
  /** The fetch to use (a test double, a proxy). Default: the global `fetch`. */
  readonly fetch?: (input: Request) => Promise<Response>;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The adapter's name. Default `"openai-compatible"`. */
  readonly name?: string;
  /**
   * How long to wait for the response's headers, and then for each next
   * piece of the stream, before the request fails (an idle timeout: an
   * answer that keeps streaming is never cut). Default 60 000 ms.
   */
  readonly timeoutMs?: number;
  /**
   * How many times to retry a request the server answered HTTP 429 or 5xx
   * (before any of the answer streamed), 0-10. Default 2.
   */
  readonly retries?: number;
  /**
   * The first retry's backoff; each next one doubles it (with jitter), up to
   * `maxRetryDelayMs`. Default 500 ms.
   */
  readonly retryDelayMs?: number;
  /**
   * The longest wait before a retry. A `Retry-After` header is honoured up to
   * it; one asking for longer fails the request at once, saying so.
   * Default 10 000 ms.
   */
  readonly maxRetryDelayMs?: number;
}

/** A name of {@linkcode OPENAI_COMPATIBLE_PRESETS}. */
export type OpenAICompatiblePreset = "openai" | "deepseek";

/** DeepSeek's API (the `"deepseek"` preset). */
export const DEEPSEEK_BASE_URL = "https://api.deepseek.com";

/** OpenAI's API (the `"openai"` preset). */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Where each preset of {@linkcode createOpenAICompatibleModel} sends requests (and the key). */
// Marked pure: a bundle that never reads it leaves it out.
export const OPENAI_COMPATIBLE_PRESETS: Readonly<Record<OpenAICompatiblePreset, string>> =
  /* @__PURE__ */ Object
    .freeze({ openai: OPENAI_BASE_URL, deepseek: DEEPSEEK_BASE_URL });

const MAX_TIMER_MS = 2_147_483_647;

const OPTION_KEYS = [
  "baseUrl",
  "preset",
  "apiKey",
  "model",
  "fetch",
  "headers",
  "name",
  "timeoutMs",
  "retries",
  "retryDelayMs",
  "maxRetryDelayMs",
] satisfies (keyof OpenAICompatibleModelOptions)[];

function invalid(message: string): never {
  cannot("create the OpenAI-compatible model", message);
}

function milliseconds(name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== "number" || !Number.isFinite(value) || value < min || value > MAX_TIMER_MS
  ) {
    throw new RangeError(
      `Cannot create the OpenAI-compatible model: ${name} must be a number of milliseconds from ${min} to ${MAX_TIMER_MS}, got ${
        typeof value === "number" ? value : typeof value
      }`,
    );
  }
  return value;
}

function baseUrlOf(options: OpenAICompatibleModelOptions): string {
  const { baseUrl, preset } = options;
  if (baseUrl !== undefined && preset !== undefined) {
    invalid("give baseUrl or preset, not both");
  }
  if (preset !== undefined) {
    if (typeof preset !== "string" || !Object.hasOwn(OPENAI_COMPATIBLE_PRESETS, preset)) {
      invalid(
        `unknown preset ${stringify(preset)} (known: ${
          Object.keys(OPENAI_COMPATIBLE_PRESETS).join(", ")
        })`,
      );
    }
    return OPENAI_COMPATIBLE_PRESETS[preset];
  }
  if (baseUrl === undefined) {
    invalid(
      'baseUrl is required (where requests and the API key go, e.g. "https://api.openai.com/v1"), or a preset: "openai" or "deepseek"',
    );
  }
  if (typeof baseUrl !== "string") invalid(`baseUrl must be a string, got ${typeof baseUrl}`);
  return baseUrl;
}

/**
 * A model adapter for any OpenAI-compatible chat-completions API, over plain
 * `fetch` with `stream: true`. Say where it goes: `baseUrl` (the API key is
 * sent there) or a `preset` (`"openai"`, `"deepseek"`).
 *
 * It streams text deltas, assembles streamed tool-call deltas by their
 * `index`, maps `finish_reason` (`stop` → `stop`, `tool_calls` →
 * `tool-calls`, `length` → `max-tokens`, `content_filter` → `refusal`),
 * reports usage (it asks for `stream_options.include_usage`) and aborts the
 * HTTP request with the request's signal. A request the server answers HTTP
 * 429 or 5xx is retried (`retries`, default 2) after an exponential backoff
 * with jitter, or after the server's `Retry-After` when that is at most
 * `maxRetryDelayMs`; a server that sends nothing for `timeoutMs` (default
 * 60 s), before the headers or mid-stream, fails the request. An HTTP
 * error, a malformed event, an error event, a timeout or a stream that ends
 * before its `finish_reason` throws an `Error` whose message says what the
 * server answered (status and body excerpt), which ends the agent's turn
 * `"error"`. Tool-call arguments that are not valid JSON are passed on as
 * the raw string, so the tool's validation tells the model.
 *
 * @throws {TypeError} without `baseUrl` or `preset`, with both, with an
 *   unknown preset or option, or an invalid URL.
 * @throws {RangeError} for a `timeoutMs`, `retries`, `retryDelayMs` or
 *   `maxRetryDelayMs` out of range.
 *
 * @example
 * ```ts ignore
 * import { createHost, createOpenAICompatibleModel } from "@seam/host";
 *
 * const host = createHost();
 * host.models.register(
 *   host.scope,
 *   "gpt-4o-mini",
 *   createOpenAICompatibleModel({ preset: "openai", apiKey: Deno.env.get("OPENAI_API_KEY") }),
 *   // or { baseUrl: "http://127.0.0.1:11434/v1" } for a local server
 * );
 * const agent = await host.agents.create({ options: { model: "gpt-4o-mini" } });
 * agent.send("Hello!");
 * console.log(await agent.whenIdle());
 * ```
 *
 * @example Options are checked at creation
 * ```ts
 * import { createOpenAICompatibleModel } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => createOpenAICompatibleModel({ apiKey: "sk-…" }), /baseUrl is required/);
 * const model = createOpenAICompatibleModel({ baseUrl: "http://127.0.0.1:11434/v1", retries: 0 });
 * assert.equal(model.name, "openai-compatible");
 * ```
 */
export function createOpenAICompatibleModel(options: OpenAICompatibleModelOptions): ModelAdapter {
  if (options === null || typeof options !== "object") {
    invalid("options must be an object with baseUrl or preset");
  }
  refuseUnknownOptions("create the OpenAI-compatible model", options, OPTION_KEYS);
  const baseUrl = baseUrlOf(options);
  let url: string;
  try {
    url = new URL(`${baseUrl.replace(/\/+$/, "")}/chat/completions`).href;
  } catch {
    invalid(`invalid baseUrl ${stringify(baseUrl)}`);
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    invalid("fetch must be a function");
  }
  const fetchFn = options.fetch ?? ((input: Request) => fetch(input));
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...options.headers,
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const retries = options.retries ?? 2;
  if (!Number.isInteger(retries) || retries < 0 || retries > 10) {
    throw new RangeError(
      `Cannot create the OpenAI-compatible model: retries must be an integer from 0 to 10, got ${
        String(retries)
      }`,
    );
  }
  const retryDelayMs = milliseconds("retryDelayMs", options.retryDelayMs, 500, 0);
  const maxRetryDelayMs = milliseconds(
    "maxRetryDelayMs",
    options.maxRetryDelayMs,
    Math.max(10_000, retryDelayMs),
    retryDelayMs,
  );
  const config: Config = freeze({
    url,
    fetch: fetchFn,
    headers,
    timeoutMs: milliseconds("timeoutMs", options.timeoutMs, 60_000, 1),
    retries,
    retryDelayMs,
    maxRetryDelayMs,
  });
  const name = options.name ?? "openai-compatible";
  const model = options.model;
  return freeze({
    name,
    stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      return streamCompletion(config, model ?? request.model, request);
    },
  });
}

async function* streamCompletion(
  config: Config,
  model: string,
  request: ModelRequest,
): AsyncGenerator<ModelEvent> {
  const signal = request.signal;
  signal.throwIfAborted();
  const body: Record<string, unknown> = {
    model,
    messages: toWire(request.system, request.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  const { response, attempt } = await open(config, stringify(body), signal);
  try {
    yield* readStream(config, response, attempt, signal);
  } finally {
    attempt.close();
  }
}
