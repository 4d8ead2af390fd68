import {
  type JsonValue,
  messageOf,
  type ModelAdapter,
  type ModelEvent,
  type ModelFinishReason,
  type ModelRequest,
  type ModelUsage,
} from "@seam/host";
import { jsonSchema, type LanguageModel, streamText, tool, type ToolSet } from "ai";
import { cannot, checkOptions, isLanguageModel, notLanguageModel } from "./_checks.ts";
import { toModelMessages } from "./_messages.ts";

/**
 * An AI SDK language model as this package sees it: any object a provider
 * package (`@ai-sdk/openai`, `@ai-sdk/anthropic`, `ollama-ai-provider-v2`, …)
 * returns for a model id, of specification version `v2`, `v3` or `v4`.
 * Checked structurally, so a model made with another copy of `ai` works too.
 */
export interface AiSdkLanguageModel {
  /** `"v2"`, `"v3"` or `"v4"`. */
  readonly specificationVersion: string;
  /** The provider's id (`openai.chat`). */
  readonly provider: string;
  /** The model's id (`gpt-4o-mini`). */
  readonly modelId: string;
  /** One call, streaming (what the adapter uses, through `streamText`). */
  doStream(options: never): PromiseLike<unknown>;
  /** One call, not streaming. */
  doGenerate(options: never): PromiseLike<unknown>;
}

/** Options of {@linkcode aiSdkModel}. */
export interface AiSdkModelOptions {
  /** The adapter's name, for logs. Default `ai-sdk:<provider>:<modelId>`. */
  readonly name?: string;
  /**
   * How many times the AI SDK retries a call that failed retryably (HTTP
   * 429, 5xx) before any of it streamed, 0-10. Default 2 (the AI SDK's).
   */
  readonly maxRetries?: number;
  /**
   * Provider-specific options passed to every call (`{ openai: { … } }`),
   * as JSON.
   */
  readonly providerOptions?: { readonly [provider: string]: { readonly [key: string]: JsonValue } };
}

const OPTION_KEYS = ["name", "maxRetries", "providerOptions"] as const;

const ACTION = "create the AI SDK model adapter";

/**
 * Any AI SDK `LanguageModel` as a `@seam/host` model adapter, so seam's own
 * agents (spawn, fork, the ACP server, the gateway) run on every model the
 * AI SDK supports. Register it under a model id like any adapter.
 *
 * Each step is one `streamText` call of the AI SDK (the system prompt, the
 * conversation, the step's tools as JSON Schema tools without `execute`, so
 * the host runs them): text deltas stream as they come, tool calls follow
 * them, then one `finish` with the mapped reason (`stop` → `stop`,
 * `tool-calls` → `tool-calls`, `length` → `max-tokens`, `content-filter` →
 * `refusal`) and usage (input, output, cached input tokens). The request's
 * signal aborts the call. A model that fails (throws, streams an error, ends
 * `error` or `interrupted`) throws an `Error` naming the model and what it
 * said, which ends the agent's turn `"error"`.
 *
 * @param languageModel A model from an AI SDK provider package.
 * @param options See {@linkcode AiSdkModelOptions}.
 * @returns The host model adapter.
 * @throws {TypeError} for something that is not an AI SDK language model,
 *   or an unknown or malformed option.
 * @throws {RangeError} for `maxRetries` out of range.
 *
 * @example
 * ```ts
 * import { createHost } from "@seam/host";
 * import { aiSdkModel } from "@seam/ai-sdk";
 * import { MockLanguageModelV4, simulateReadableStream } from "ai/test";
 * import assert from "node:assert/strict";
 *
 * const model = new MockLanguageModelV4({
 *   doStream: async () => ({
 *     stream: simulateReadableStream({
 *       chunks: [
 *         { type: "text-start", id: "t" },
 *         { type: "text-delta", id: "t", delta: "Hello!" },
 *         { type: "text-end", id: "t" },
 *         {
 *           type: "finish",
 *           finishReason: { unified: "stop", raw: "stop" },
 *           usage: {
 *             inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
 *             outputTokens: { total: 2, text: 2, reasoning: 0 },
 *           },
 *         },
 *       ],
 *     }),
 *   }),
 * });
 * const host = createHost();
 * host.models.register(host.scope, "mock", aiSdkModel(model));
 * const agent = await host.agents.create({ options: { model: "mock" } });
 * agent.send("Hi");
 * const turn = await agent.whenIdle();
 * assert.equal(turn.reason, "completed");
 * await host.scope.dispose();
 * ```
 */
export function aiSdkModel(
  languageModel: AiSdkLanguageModel,
  options: AiSdkModelOptions = {},
): ModelAdapter {
  if (!isLanguageModel(languageModel)) cannot(ACTION, notLanguageModel(languageModel));
  checkOptions(ACTION, options, OPTION_KEYS);
  const maxRetries = options.maxRetries ?? 2;
  if (
    typeof maxRetries !== "number" || !Number.isInteger(maxRetries) || maxRetries < 0 ||
    maxRetries > 10
  ) {
    cannot(ACTION, `maxRetries must be an integer from 0 to 10, got ${String(maxRetries)}`, true);
  }
  const name = options.name ?? `ai-sdk:${languageModel.provider}:${languageModel.modelId}`;
  if (typeof name !== "string" || name === "") cannot(ACTION, "name must be a non-empty string");
  const providerOptions = options.providerOptions;
  if (
    providerOptions !== undefined &&
    (providerOptions === null || typeof providerOptions !== "object" ||
      Array.isArray(providerOptions))
  ) {
    cannot(ACTION, "providerOptions must be an object ({ provider: { option: value } })");
  }
  const config: StepConfig = {
    model: languageModel as unknown as LanguageModel,
    label: `${languageModel.provider}:${languageModel.modelId}`,
    maxRetries,
    providerOptions: providerOptions as StepConfig["providerOptions"],
  };
  return Object.freeze({
    name,
    stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      return streamStep(config, request);
    },
  });
}

interface StepConfig {
  readonly model: LanguageModel;
  readonly label: string;
  readonly maxRetries: number;
  readonly providerOptions?: Parameters<typeof streamText>[0]["providerOptions"];
}

function toolsOf(request: ModelRequest): ToolSet | undefined {
  if (request.tools.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const spec of request.tools) {
    // No execute: the AI SDK ends the step at the call and the host runs it.
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters as Parameters<typeof jsonSchema>[0]),
    });
  }
  return tools;
}

function usageOf(usage: StreamUsage | undefined): ModelUsage | undefined {
  if (!usage || (usage.inputTokens === undefined && usage.outputTokens === undefined)) {
    return undefined;
  }
  const cached = usage.inputTokenDetails?.cacheReadTokens;
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    ...(cached !== undefined && cached > 0 ? { cachedInputTokens: cached } : {}),
  };
}

/** A failure this adapter diagnosed (told apart from what the AI SDK threw). */
class ModelFailure extends Error {
  override name = "Error";
}

interface StreamUsage {
  readonly inputTokens: number | undefined;
  readonly outputTokens: number | undefined;
  readonly inputTokenDetails?: { readonly cacheReadTokens: number | undefined };
}

async function* streamStep(config: StepConfig, request: ModelRequest): AsyncGenerator<ModelEvent> {
  const { signal } = request;
  signal.throwIfAborted();
  const failed = (what: string, cause?: unknown): Error =>
    new ModelFailure(
      `The AI SDK model ${config.label} ${what}`,
      cause === undefined ? {} : { cause },
    );
  const tools = toolsOf(request);
  const result = streamText({
    model: config.model,
    ...(request.system !== "" ? { system: request.system } : {}),
    messages: toModelMessages(request.messages),
    ...(tools ? { tools } : {}),
    ...(request.maxTokens !== undefined ? { maxOutputTokens: request.maxTokens } : {}),
    ...(config.providerOptions ? { providerOptions: config.providerOptions } : {}),
    maxRetries: config.maxRetries,
    abortSignal: signal,
    // Errors come back as stream parts and are thrown from here; without
    // this the AI SDK would also print them.
    onError: () => {},
  });
  const calls: ModelEvent[] = [];
  let reason: string | undefined;
  let usage: ModelUsage | undefined;
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "text-delta":
          if (part.text !== "") yield { type: "text-delta", text: part.text };
          break;
        case "tool-call":
          calls.push({
            type: "tool-call",
            id: part.toolCallId,
            name: part.toolName,
            // An unparsable call's input is its raw text: the tool's check tells the model.
            args: (part.input ?? {}) as JsonValue,
          });
          break;
        case "finish-step":
          reason = part.finishReason;
          usage = usageOf(part.usage);
          break;
        case "error":
          throw failed(`failed: ${messageOf(part.error)}`, part.error);
        case "abort":
          signal.throwIfAborted();
          throw failed("was aborted");
      }
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof ModelFailure) throw error;
    throw failed(`failed: ${messageOf(error)}`, error);
  }
  signal.throwIfAborted();
  let finish: ModelFinishReason;
  switch (reason) {
    case "stop":
      finish = "stop";
      break;
    case "length":
      finish = "max-tokens";
      break;
    case "content-filter":
      finish = "refusal";
      break;
    case "tool-calls":
      finish = "tool-calls";
      break;
    case "error":
      throw failed("ended its response with an error");
    case "interrupted":
      throw failed("stream ended before the response was complete (interrupted)");
    case undefined:
      throw failed("stream ended without finishing a step");
    default:
      finish = calls.length > 0 ? "tool-calls" : "stop";
  }
  yield* calls;
  yield usage ? { type: "finish", reason: finish, usage } : { type: "finish", reason: finish };
}
