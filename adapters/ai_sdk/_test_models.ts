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
