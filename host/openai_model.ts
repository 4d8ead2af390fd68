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

/** Options of {@linkcode createOpenAICompatibleModel}. */
export interface OpenAICompatibleModelOptions {
  /**
   * The API's base URL; requests go to `<baseUrl>/chat/completions`.
   * Default `https://api.deepseek.com`.
   */
  readonly baseUrl?: string;
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
}

/** The default base URL: DeepSeek's API. */
export const DEEPSEEK_BASE_URL = "https://api.deepseek.com";

const EXCERPT = 500;

/**
 * A model adapter for any OpenAI-compatible chat-completions API (DeepSeek by
 * default), over plain `fetch` with `stream: true`.
 *
 * It streams text deltas, assembles streamed tool-call deltas by their
 * `index`, maps `finish_reason` (`stop` → `stop`, `tool_calls` →
 * `tool-calls`, `length` → `max-tokens`, `content_filter` → `refusal`),
 * reports usage (it asks for `stream_options.include_usage`) and aborts the
 * HTTP request with the request's signal. An HTTP error, a malformed event,
 * an error event or a stream that ends before its `finish_reason` throws an
 * `Error` whose message says what the server answered (status and body
 * excerpt), which ends the agent's turn `"error"`. Tool-call arguments that
 * are not valid JSON are passed on as the raw string, so the tool's
 * validation tells the model.
 *
 * @example
 * ```ts ignore
 * import { createHost, createOpenAICompatibleModel } from "@seam/host";
 *
 * const host = createHost();
 * host.models.register(
 *   host.scope,
 *   "deepseek-chat",
 *   createOpenAICompatibleModel({ apiKey: "sk-…" }),
 * );
 * const agent = await host.agents.create({ options: { model: "deepseek-chat" } });
 * agent.send("Hello!");
 * console.log(await agent.whenIdle());
 * ```
 */
export function createOpenAICompatibleModel(
  options: OpenAICompatibleModelOptions = {},
): ModelAdapter {
  const baseUrl = options.baseUrl ?? DEEPSEEK_BASE_URL;
  let url: string;
  try {
    url = new URL(`${baseUrl.replace(/\/+$/, "")}/chat/completions`).href;
  } catch {
    throw new TypeError(
      `Cannot create the OpenAI-compatible model: invalid baseUrl ${JSON.stringify(baseUrl)}`,
    );
  }
  const fetchFn = options.fetch ?? ((input: Request) => fetch(input));
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...options.headers,
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const name = options.name ?? "openai-compatible";
  const model = options.model;
  return Object.freeze({
    name,
    stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      return streamCompletion(url, fetchFn, headers, model ?? request.model, request);
    },
  });
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}…` : flat;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

class ModelStreamError extends Error {}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

async function* streamCompletion(
  url: string,
  fetchFn: (input: Request) => Promise<Response>,
  headers: Record<string, string>,
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
  let response: Response;
  try {
    response = await fetchFn(
      new Request(url, { method: "POST", headers, body: JSON.stringify(body), signal }),
    );
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new Error(`The model request to ${url} failed: ${messageOf(error)}`, { cause: error });
  }
  if (!response.ok) {
    let text = "";
    try {
      text = await response.text();
    } catch {
      // Keep the status line.
    }
    if (signal.aborted) throw signal.reason;
    throw new Error(
      `The model server at ${url} answered HTTP ${response.status}${
        response.statusText ? ` ${response.statusText}` : ""
      }: ${excerpt(text)}`,
    );
  }
  const type = response.headers.get("content-type") ?? "";
  if (!response.body || !type.includes("text/event-stream")) {
    let text = "";
    try {
      text = await response.text();
    } catch {
      // Keep the content type.
    }
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
    for await (const data of sseData(response.body)) {
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
        usage = {
          inputTokens: Number(reported.prompt_tokens) || 0,
          outputTokens: Number(reported.completion_tokens) || 0,
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
    else text += `[image ${block.mediaType}]`;
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
