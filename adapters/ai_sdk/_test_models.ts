// Mock models for the package's tests, on the AI SDK's own `ai/test` mocks:
// stream parts for a reply, a tool call, a finish, and a stream that waits
// for its abort signal.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, simulateReadableStream } from "ai/test";

export type Part = LanguageModelV4StreamPart;

/** A `finish` part with the given reason and usage. */
export function finish(
  unified: "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other",
  usage: { input?: number; output?: number; cached?: number } = {},
): Part {
  return {
    type: "finish",
    finishReason: { unified, raw: unified },
    usage: {
      inputTokens: {
        total: usage.input,
        noCache: usage.input === undefined ? undefined : usage.input - (usage.cached ?? 0),
        cacheRead: usage.cached,
        cacheWrite: undefined,
      },
      outputTokens: { total: usage.output, text: usage.output, reasoning: undefined },
    },
  };
}

/** Text parts for `text`, one delta per word. */
export function textParts(text: string, id = "t"): Part[] {
  const words = text.split(/(?<= )/);
  return [
    { type: "text-start", id },
    ...words.map((delta): Part => ({ type: "text-delta", id, delta })),
    { type: "text-end", id },
  ];
}

/** A tool call part. */
export function toolCall(toolCallId: string, toolName: string, input: unknown): Part {
  return { type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) };
}

/** A stream of `parts`, as `doStream` returns it. */
export function streamOf(parts: Part[]): { stream: ReadableStream<Part> } {
  return {
    stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }),
  };
}

/** A model answering each call with the next of `replies` (the last repeats). */
export function scriptedModel(replies: Part[][]): MockLanguageModelV4 {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: () => {
      const parts = replies[Math.min(call++, replies.length - 1)];
      return Promise.resolve(streamOf(parts));
    },
  });
}

/** A stream that sends `first` parts, then waits until `signal` aborts (and errors then). */
export function hangingStream(
  signal: AbortSignal | undefined,
  first: Part[] = [],
): ReadableStream<Part> {
  return new ReadableStream<Part>({
    start(controller) {
      for (const part of first) controller.enqueue(part);
      const stop = () => controller.error(signal?.reason ?? new Error("aborted"));
      if (signal?.aborted) stop();
      else signal?.addEventListener("abort", stop, { once: true });
    },
  });
}

/** The text of the last user message of a model call's prompt. */
export function lastUserText(prompt: readonly { role: string; content: unknown }[]): string {
  const user = prompt.findLast((message) => message.role === "user");
  if (!user || !Array.isArray(user.content)) return "";
  return user.content.map((part: { type: string; text?: string }) => part.text ?? "").join("");
}

/** The system prompt of a model call, or "". */
export function systemText(prompt: readonly { role: string; content: unknown }[]): string {
  const system = prompt.find((message) => message.role === "system");
  return typeof system?.content === "string" ? system.content : "";
}

/**
 * A model driven by the first word of the last user message, as the
 * conformance suite needs: `complete` replies "hello from the child",
 * `hang` streams until aborted, `fail` throws, `max-tokens` stops at the
 * token limit, `structured` answers `{"answer":"42"}`, `persona` replies
 * with its system prompt. `open` counts the streams not yet closed.
 */
export function conformanceModel(): { model: MockLanguageModelV4; open: () => number } {
  let open = 0;
  const model = new MockLanguageModelV4({
    doStream: (options) => {
      const verb = lastUserText(options.prompt).trim().split(/\s+/)[0];
      const usage = { input: 11, output: 3, cached: 4 };
      switch (verb) {
        case "complete":
          return Promise.resolve(
            streamOf([...textParts("hello from the child"), finish("stop", usage)]),
          );
        case "hang": {
          const signal = options.abortSignal;
          if (!signal?.aborted) {
            open++;
            signal?.addEventListener("abort", () => open--, { once: true });
          }
          return Promise.resolve({ stream: hangingStream(signal, textParts("working")) });
        }
        case "fail":
          return Promise.reject(new Error("the model exploded"));
        case "max-tokens":
          return Promise.resolve(streamOf([...textParts("partial"), finish("length", usage)]));
        case "structured":
          return Promise.resolve(
            streamOf([...textParts('{"answer":"42"}'), finish("stop", usage)]),
          );
        case "persona":
          return Promise.resolve(
            streamOf([
              ...textParts(systemText(options.prompt) || "no persona"),
              finish("stop", usage),
            ]),
          );
        default:
          return Promise.resolve(
            streamOf([...textParts(`unknown verb ${verb}`), finish("stop", usage)]),
          );
      }
    },
  });
  return { model, open: () => open };
}
