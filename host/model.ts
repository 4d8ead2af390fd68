import type { ContentBlock } from "./content.ts";
import type { JsonSchema } from "./json_schema.ts";
import type { JsonValue } from "./json.ts";
import type { Scope } from "./scope.ts";

/** What a model is told about one tool it may call. */
export interface ToolSpec {
  /** The tool's name (`[A-Za-z0-9_-]{1,64}`). */
  readonly name: string;
  /** What the tool does, for the model. */
  readonly description: string;
  /** The JSON Schema of the tool's arguments (object-rooted). */
  readonly parameters: JsonSchema;
}

/** A tool call as the model made it. */
export interface ModelToolCall {
  /** The call's id, unique within its step (`call_0`). */
  readonly id: string;
  /** The tool's name. */
  readonly name: string;
  /** The arguments, as JSON. */
  readonly args: JsonValue;
}

/** A user message in a model request. */
export interface ModelUserMessage {
  /** Discriminator. */
  readonly role: "user";
  /** What the user said. */
  readonly content: readonly ContentBlock[];
}

/** One earlier assistant step: its text and the tool calls it made. */
export interface ModelAssistantMessage {
  /** Discriminator. */
  readonly role: "assistant";
  /** The text the model produced (may be empty). */
  readonly content: readonly ContentBlock[];
  /** The tool calls of the step (empty when it made none). */
  readonly toolCalls: readonly ModelToolCall[];
}

/** The result of one tool call, answering an assistant step's call. */
export interface ModelToolMessage {
  /** Discriminator. */
  readonly role: "tool";
  /** The id of the call this answers. */
  readonly callId: string;
  /** The tool's name. */
  readonly name: string;
  /** The tool's result. */
  readonly content: readonly ContentBlock[];
  /** Whether the call failed. */
  readonly isError: boolean;
}

/** One message of the conversation a model continues. */
export type ModelMessage = ModelUserMessage | ModelAssistantMessage | ModelToolMessage;

/** One call of a model: everything it needs for one step. */
export interface ModelRequest {
  /** The model id the agent runs on (`deepseek-chat`). */
  readonly model: string;
  /** The rendered system prompt (may be empty). */
  readonly system: string;
  /** The conversation so far, oldest first. */
  readonly messages: readonly ModelMessage[];
  /** The tools the model may call in this step. */
  readonly tools: readonly ToolSpec[];
  /** Aborted when the step is cancelled: the adapter must stop promptly. */
  readonly signal: AbortSignal;
  /** The most tokens the model may produce in this step, when capped. */
  readonly maxTokens?: number;
}

/** Why a model step ended. */
export type ModelFinishReason = "stop" | "tool-calls" | "max-tokens" | "refusal";

/** Token counts of a model step. */
export interface ModelUsage {
  /** Tokens read. */
  readonly inputTokens: number;
  /** Tokens produced. */
  readonly outputTokens: number;
  /** Of the tokens read, those served from the provider's prompt cache, when reported. */
  readonly cachedInputTokens?: number;
}

/** A piece of streamed text. */
export interface ModelTextDelta {
  /** Discriminator. */
  readonly type: "text-delta";
  /** The text to append. */
  readonly text: string;
}

/** A complete tool call. */
export interface ModelToolCallEvent {
  /** Discriminator. */
  readonly type: "tool-call";
  /** The call's id, unique within the step. */
  readonly id: string;
  /** The tool's name. */
  readonly name: string;
  /** The arguments, as JSON. */
  readonly args: JsonValue;
}

/** The end of a step. */
export interface ModelFinish {
  /** Discriminator. */
  readonly type: "finish";
  /** Why the step ended. */
  readonly reason: ModelFinishReason;
  /** Token counts, when the model reports them. */
  readonly usage?: ModelUsage;
}

/** What a model adapter streams for one step. */
export type ModelEvent = ModelTextDelta | ModelToolCallEvent | ModelFinish;

/**
 * A model behind one interface. `stream` yields text deltas, then any tool
 * calls, then one `finish`. A throw (or a rejected `next()`) is a model
 * failure: the agent's turn ends `"error"` with the error's message. The
 * adapter must honour `request.signal`: once it aborts, stop promptly
 * (throwing is fine) and leave no timer or connection behind.
 */
export interface ModelAdapter {
  /** A name for logs (`scripted`, `openai-compatible`). */
  readonly name: string;
  /** Run one step. */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

/**
 * The host's model adapters, registered per model id in a scope. An agent's
 * `options.model` resolves through its scope's ancestry: the nearest scope
 * holding that exact id wins; failing that, the nearest scope holding the
 * wildcard id `"*"`.
 */
export interface ModelRegistry {
  /**
   * Register `adapter` under `model` (an id, or `"*"` for any model) in
   * `scope`, owned by it. Returns the disposer.
   *
   * @throws {TypeError} for a malformed adapter or a second adapter with the
   * same id in the same scope.
   */
  register(scope: Scope, model: string, adapter: ModelAdapter): () => Promise<void>;
  /**
   * The adapter serving `model` for `scope`.
   *
   * @throws {RangeError} naming the model when none is registered.
   */
  resolve(scope: Scope, model: string): ModelAdapter;
  /** The model ids registered along `scope`'s ancestry, nearest first, each once. */
  list(scope: Scope): string[];
}
