import type { ContentBlock } from "./content.ts";
import type { JsonValue } from "./json.ts";
import type {
  ModelAdapter,
  ModelEvent,
  ModelFinishReason,
  ModelMessage,
  ModelRequest,
  ModelUsage,
} from "./model.ts";
import { sseData } from "./_sse.ts";
import { delay } from "./delay.ts";
import { messageOf } from "./unknown.ts";
import { cannot } from "./_invalid.ts";

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

const EXCERPT = 500;
/** The most of an error body read for its excerpt. */
const ERROR_BODY_LIMIT = 16 * 1024;
const MAX_TIMER_MS = 2_147_483_647;

const OPTION_KEYS = new Set([
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
]);

interface Config {
  readonly url: string;
  readonly fetch: (input: Request) => Promise<Response>;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
}

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
        `unknown preset ${JSON.stringify(preset)} (known: ${
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
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) invalid(`unknown option ${JSON.stringify(key)}`);
  }
  const baseUrl = baseUrlOf(options);
  let url: string;
  try {
    url = new URL(`${baseUrl.replace(/\/+$/, "")}/chat/completions`).href;
  } catch {
    invalid(`invalid baseUrl ${JSON.stringify(baseUrl)}`);
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
  const config: Config = Object.freeze({
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
  return Object.freeze({
    name,
    stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      return streamCompletion(config, model ?? request.model, request);
    },
  });
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}…` : flat;
}

class ModelStreamError extends Error {}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

/**
 * One HTTP attempt's signal: aborted by the caller's signal, or by the
 * attempt's own idle timer (then `timedOut` says what it waited for).
 */
class Attempt {
  readonly #controller = new AbortController();
  readonly #caller: AbortSignal;
  readonly #ms: number;
  readonly #onAbort: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #waitingFor = "";
  /** What the attempt waited for when its timer fired, else `undefined`. */
  timedOut: string | undefined;

  constructor(caller: AbortSignal, ms: number) {
    this.#caller = caller;
    this.#ms = ms;
    this.#onAbort = () => this.#controller.abort(caller.reason);
    caller.addEventListener("abort", this.#onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** (Re)start the idle timer: `what` is what we are waiting for. */
  arm(what: string): void {
    this.#waitingFor = what;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.timedOut = this.#waitingFor;
      this.#controller.abort(new Error(`timed out waiting for ${this.#waitingFor}`));
    }, this.#ms);
  }

  /** Restart the timer for the same wait (a piece of the stream arrived). */
  touch = (): void => this.arm(this.#waitingFor);

  /** Stop the timer (the consumer holds the next event: waiting on it is not the server's fault). */
  pause(): void {
    clearTimeout(this.#timer);
  }

  /** `source`'s items, the timer armed only while the next one is awaited from the server. */
  async *watch<T>(source: AsyncGenerator<T>, what: string): AsyncGenerator<T> {
    try {
      for (;;) {
        this.arm(what);
        const next = await source.next();
        this.pause();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      this.pause();
      await source.return(undefined);
    }
  }

  /** Release the timer and the caller's listener. */
  close(): void {
    clearTimeout(this.#timer);
    this.#caller.removeEventListener("abort", this.#onAbort);
  }
}

/** Read at most {@linkcode ERROR_BODY_LIMIT} bytes of `response`'s body as text. */
async function boundedText(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  try {
    while (size < ERROR_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      size += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel().catch(() => {});
    return text;
  } catch {
    return text; // keep what arrived
  } finally {
    reader.releaseLock();
  }
}

/** The wait `Retry-After` asks for in ms (delta seconds or an HTTP date), if readable. */
function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function retryable(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** POST `body` with retries; the successful event-stream response and its live attempt. */
async function open(
  config: Config,
  body: string,
  signal: AbortSignal,
): Promise<{ response: Response; attempt: Attempt }> {
  const { url } = config;
  for (let tries = 1;; tries++) {
    const attempt = new Attempt(signal, config.timeoutMs);
    let keep = false;
    try {
      attempt.arm("the response headers");
      let response: Response;
      try {
        response = await config.fetch(
          new Request(url, {
            method: "POST",
            headers: config.headers,
            body,
            signal: attempt.signal,
          }),
        );
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (attempt.timedOut) {
          throw new Error(
            `The model server at ${url} did not answer within ${config.timeoutMs} ms`,
          );
        }
        throw new Error(`The model request to ${url} failed: ${messageOf(error)}`, {
          cause: error,
        });
      }
      if (response.ok) {
        keep = true;
        return { response, attempt };
      }
      const text = await boundedText(response);
      if (signal.aborted) throw signal.reason;
      const answered = `The model server at ${url} answered HTTP ${response.status}${
        response.statusText ? ` ${response.statusText}` : ""
      }: ${excerpt(text)}`;
      const after = tries > 1 ? ` (attempt ${tries} of ${config.retries + 1})` : "";
      if (!retryable(response.status) || tries > config.retries) throw new Error(answered + after);
      const asked = retryAfterMs(response.headers);
      if (asked !== undefined && asked > config.maxRetryDelayMs) {
        throw new Error(
          `${answered}${after} (it asked to retry after ${
            Math.ceil(asked / 1000)
          } s, longer than maxRetryDelayMs ${config.maxRetryDelayMs})`,
        );
      }
      const backoff = Math.min(config.maxRetryDelayMs, config.retryDelayMs * 2 ** (tries - 1));
      attempt.close();
      await delay(asked ?? backoff * (0.5 + Math.random() / 2), signal);
    } finally {
      if (!keep) attempt.close();
    }
  }
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
  const { response, attempt } = await open(config, JSON.stringify(body), signal);
  try {
    yield* readStream(config, response, attempt, signal);
  } finally {
    attempt.close();
  }
}

async function* readStream(
  config: Config,
  response: Response,
  attempt: Attempt,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  const { url } = config;
  const type = response.headers.get("content-type") ?? "";
  if (!response.body || !type.includes("text/event-stream")) {
    const text = await boundedText(response);
    throw new Error(
      `The model server at ${url} answered ${
        type || "without a content type"
      } instead of an event stream: ${excerpt(text)}`,
    );
  }
  const calls = new Map<number, PendingCall>();
  let finish: string | undefined;
  let refused = false;
  let usage: ModelUsage | undefined;
  let done = false;
  try {
    const events = sseData(response.body, attempt.touch);
    for await (const data of attempt.watch(events, "the next piece of the stream")) {
      if (data === "[DONE]") {
        done = true;
        break;
      }
      let chunk: Record<string, unknown>;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new ModelStreamError(
          `The model server at ${url} sent a malformed event: ${excerpt(data)}`,
        );
      }
      if (chunk === null || typeof chunk !== "object") {
        throw new ModelStreamError(
          `The model server at ${url} sent a malformed event: ${excerpt(data)}`,
        );
      }
      if (chunk.error !== undefined && chunk.error !== null) {
        const error = chunk.error as { message?: unknown };
        throw new ModelStreamError(
          `The model server at ${url} sent an error: ${
            typeof error.message === "string" ? error.message : excerpt(JSON.stringify(chunk.error))
          }`,
        );
      }
      const reported = chunk.usage as Record<string, unknown> | null | undefined;
      if (reported && typeof reported === "object") {
        const details = reported.prompt_tokens_details as Record<string, unknown> | null;
        const cached = Number(details?.cached_tokens);
        usage = {
          inputTokens: Number(reported.prompt_tokens) || 0,
          outputTokens: Number(reported.completion_tokens) || 0,
          ...(cached > 0 ? { cachedInputTokens: cached } : {}),
        };
      }
      const choices = chunk.choices;
      if (!Array.isArray(choices) || choices.length === 0) continue;
      const choice = choices[0] as Record<string, unknown>;
      const delta = (choice.delta ?? {}) as Record<string, unknown>;
      if (typeof delta.content === "string" && delta.content !== "") {
        yield { type: "text-delta", text: delta.content };
      }
      if (typeof delta.refusal === "string" && delta.refusal !== "") {
        refused = true;
        yield { type: "text-delta", text: delta.refusal };
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const part of delta.tool_calls as Record<string, unknown>[]) {
          const index = typeof part?.index === "number" ? part.index : calls.size;
          let call = calls.get(index);
          if (!call) calls.set(index, call = { id: "", name: "", args: "" });
          if (typeof part.id === "string" && part.id !== "") call.id = part.id;
          const fn = part.function as Record<string, unknown> | undefined;
          if (fn && typeof fn.name === "string" && fn.name !== "" && fn.name !== call.name) {
            call.name += fn.name;
          }
          if (fn && typeof fn.arguments === "string") call.args += fn.arguments;
        }
      }
      if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
        finish = choice.finish_reason;
      }
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof ModelStreamError) throw new Error(error.message);
    if (attempt.timedOut) {
      throw new Error(`The model stream from ${url} sent nothing for ${config.timeoutMs} ms`);
    }
    throw new Error(`The model stream from ${url} broke: ${messageOf(error)}`, { cause: error });
  }
  if (!done && finish === undefined) {
    throw new Error(
      `The model stream from ${url} ended before the response was complete (no finish_reason, no [DONE])`,
    );
  }
  let reason: ModelFinishReason;
  switch (finish) {
    case "length":
      reason = "max-tokens";
      break;
    case "content_filter":
      reason = "refusal";
      break;
    case "tool_calls":
    case "function_call":
      reason = "tool-calls";
      break;
    case "insufficient_system_resource":
      throw new Error(
        `The model server at ${url} stopped the response: insufficient_system_resource`,
      );
    default:
      reason = calls.size > 0 ? "tool-calls" : "stop";
  }
  if (refused) reason = "refusal";
  const ordered = [...calls.entries()].sort((a, b) => a[0] - b[0]);
  for (const [index, call] of ordered) {
    if (call.name === "") {
      throw new Error(`The model server at ${url} streamed tool call #${index} without a name`);
    }
    yield {
      type: "tool-call",
      id: call.id || `call_${index}`,
      name: call.name,
      args: parseArgs(call.args),
    };
  }
  yield usage ? { type: "finish", reason, usage } : { type: "finish", reason };
}

function parseArgs(text: string): JsonValue {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function plainText(content: readonly ContentBlock[]): string {
  let text = "";
  for (const block of content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "resource") text += block.text ?? `[resource ${block.uri}]`;
    else if (block.type === "data") text += JSON.stringify(block.data);
    else if (block.type === "file") {
      text += `[file ${block.filename ?? "(unnamed)"} ${block.mediaType}]`;
    } else text += `[image ${block.mediaType}]`;
  }
  return text;
}

function userContent(content: readonly ContentBlock[]): unknown {
  if (!content.some((block) => block.type === "image")) return plainText(content);
  return content.map((block) =>
    block.type === "image"
      ? { type: "image_url", image_url: { url: `data:${block.mediaType};base64,${block.data}` } }
      : { type: "text", text: plainText([block]) }
  );
}

function toWire(system: string, messages: readonly ModelMessage[]): unknown[] {
  const wire: unknown[] = [];
  if (system !== "") wire.push({ role: "system", content: system });
  for (const message of messages) {
    switch (message.role) {
      case "user":
        wire.push({ role: "user", content: userContent(message.content) });
        break;
      case "assistant": {
        const text = plainText(message.content);
        if (message.toolCalls.length === 0) {
          wire.push({ role: "assistant", content: text });
        } else {
          wire.push({
            role: "assistant",
            content: text === "" ? null : text,
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.args) },
            })),
          });
        }
        break;
      }
      case "tool":
        wire.push({
          role: "tool",
          tool_call_id: message.callId,
          content: plainText(message.content),
        });
        break;
    }
  }
  return wire;
}
