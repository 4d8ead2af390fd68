import type { ContentBlock } from "./content.ts";
import type { JsonValue } from "./json.ts";
import type { ModelUsage } from "./model.ts";
import type { ToolErrorCode } from "./tools.ts";

/** Why a turn ended. */
export type TurnEndReason = "completed" | "max-tokens" | "aborted" | "error" | "refusal";

/** How a turn ended: what `Agent.whenIdle()` resolves with. Frozen. */
export interface TurnEnd {
  /** Why it ended. */
  readonly reason: TurnEndReason;
  /**
   * The turn's output: the content of its last assistant message (`[]` when
   * it recorded none, e.g. a model failure before any text).
   */
  readonly output: readonly ContentBlock[];
  /** What went wrong, for `"error"`. */
  readonly error?: string;
  /** Token counts summed over the turn's steps, when the model reported any. */
  readonly usage?: ModelUsage;
  /**
   * What the turn did: its model calls, how many of them reported no usage,
   * and its tool calls (each executed call, refused ones included).
   */
  readonly counts?: TurnCounts;
}

/** What a turn did, counted (see {@linkcode TurnEnd.counts}). */
export interface TurnCounts {
  /** Model calls made (streams opened). */
  readonly modelCalls: number;
  /** Of those, the calls that finished without reporting usage (or did not finish). */
  readonly unreportedModelCalls: number;
  /** Tool calls executed. */
  readonly toolCalls: number;
}

/** Fields every session event has. */
export interface SessionEventBase {
  /** Its position in the session: `session.events()[seq] === event`. */
  readonly seq: number;
}

/** A turn began. */
export interface TurnStartEvent extends SessionEventBase {
  /** Discriminator. */
  readonly type: "turn-start";
  /** The turn's number in the session, from 1. */
  readonly turn: number;
}

/** A user message (the one starting a turn, or a steering message). */
export interface UserMessageEvent extends SessionEventBase {
  /** Discriminator. */
  readonly type: "user-message";
  /** What was said. */
  readonly content: readonly ContentBlock[];
}

/** One model step's text; the step's tool calls follow as `tool-call` events. */
export interface AssistantMessageEvent extends SessionEventBase {
  /** Discriminator. */
  readonly type: "assistant-message";
  /** The text the model produced (may be empty). */
  readonly content: readonly ContentBlock[];
}

/** A tool call of the preceding assistant message. */
export interface ToolCallEvent extends SessionEventBase {
  /** Discriminator. */
  readonly type: "tool-call";
  /** The call's id. */
  readonly callId: string;
  /** The tool's name. */
  readonly name: string;
  /** The arguments, as the model gave them. */
  readonly args: JsonValue;
}

/** The result of a tool call. */
export interface ToolResultEvent extends SessionEventBase {
  /** Discriminator. */
  readonly type: "tool-result";
  /** The call's id. */
  readonly callId: string;
  /** The tool's name. */
  readonly name: string;
  /** What the model sees. */
  readonly content: readonly ContentBlock[];
  /** Whether it is an error result. */
  readonly isError: boolean;
  /** Set when the runtime made the error result. */
  readonly code?: ToolErrorCode;
}

/** A turn ended. */
export interface TurnEndEvent extends SessionEventBase {
  /** Discriminator. */
  readonly type: "turn-end";
  /** The turn's number. */
  readonly turn: number;
  /** Why it ended. */
  readonly reason: TurnEndReason;
  /** What went wrong, for `"error"`. */
  readonly error?: string;
}

/**
 * One entry of a session log. Every event is frozen. A turn is
 * `turn-start`, then messages, tool calls and results, then `turn-end`;
 * every tool call of a closed turn has its result (a call cut short by a
 * cancellation gets an `ABORTED` error result).
 */
export type SessionEvent =
  | TurnStartEvent
  | UserMessageEvent
  | AssistantMessageEvent
  | ToolCallEvent
  | ToolResultEvent
  | TurnEndEvent;

/** An agent's ordered log. */
export interface Session {
  /** How many events it holds. */
  readonly length: number;
  /** The events, oldest first (a copy). */
  events(): SessionEvent[];
  /**
   * The events up to and including the last closed turn's `turn-end` (a
   * turn is closed once it ended, whatever the reason): never the open turn
   * with its pending tool calls. What a fork is seeded with.
   */
  completedPrefix(): SessionEvent[];
}
