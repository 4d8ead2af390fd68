// The answer's event stream read into model events: text deltas, tool-call
// deltas assembled by their `index`, usage, `finish_reason` mapped, and a
// malformed event, an error event, a timeout or an early end as an `Error`
// saying what the server sent.
import type { JsonValue } from "./json.ts";
import type { ModelEvent, ModelFinishReason, ModelUsage } from "./model.ts";
import { sseData } from "./_sse.ts";
import { messageOf } from "./unknown.ts";
import { type Attempt, boundedText, type Config, excerpt } from "./_openai_http.ts";
import { isArray, stringify } from "./_builtins.ts";

class ModelStreamError extends Error {}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

export async function* readStream(
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
            typeof error.message === "string" ? error.message : excerpt(stringify(chunk.error))
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
      if (!isArray(choices) || choices.length === 0) continue;
      const choice = choices[0] as Record<string, unknown>;
      const delta = (choice.delta ?? {}) as Record<string, unknown>;
      if (typeof delta.content === "string" && delta.content !== "") {
        yield { type: "text-delta", text: delta.content };
      }
      if (typeof delta.refusal === "string" && delta.refusal !== "") {
        refused = true;
        yield { type: "text-delta", text: delta.refusal };
      }
      if (isArray(delta.tool_calls)) {
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
