import type { AgentRef } from "./agent_ref.ts";
import type { ContentBlock, ContentInput } from "./content.ts";
import type { Host } from "./host.ts";
import type { JsonValue } from "./json.ts";
import { defineEvent, type EventKey, type Scope } from "./scope.ts";
import type { Session, SessionEvent, TurnEnd } from "./session.ts";
import type { ToolErrorCode } from "./tools.ts";

/** Options an agent is created with. Plain JSON; unknown keys are rejected. */
export interface AgentOptions {
  /** The model id; resolved through the agent's scope (see `ModelRegistry`). */
  readonly model: string;
  /** How deep in a delegation chain the agent sits (a top agent is 0). Default 0. */
  readonly subagentDepth?: number;
  /** The most tokens each model step may produce (a positive integer). */
  readonly maxTokens?: number;
}

/** An agent's options as accepted: a frozen copy with defaults filled in. */
export interface ResolvedAgentOptions {
  /** The model id. */
  readonly model: string;
  /** The agent's depth (0 for a top agent). */
  readonly subagentDepth: number;
  /** The per-step token cap, when set. */
  readonly maxTokens?: number;
}

/**
 * Where an agent is in its life: `"creating"` during the setup window (not
 * yet published, cannot run), `"idle"`, `"running"` a turn, `"disposed"`.
 */
export type AgentState = "creating" | "idle" | "running" | "disposed";

/**
 * An agent: a model loop over a session, living in its own scope.
 *
 * `send` starts a turn when idle; while a turn runs it queues the message,
 * which joins the conversation at the turn's next model step (steering) and
 * keeps the turn going if the model had just answered. A turn that ends
 * otherwise (stop requested by a tool, token limit, refusal, error,
 * cancellation) records the queued messages before its end, unanswered. A
 * message sent after `cancel()`, while the cancelled turn unwinds, opens the
 * next turn instead. A turn renders the
 * system prompt from the agent's scope, calls the model with the visible
 * tools, streams text deltas as `agent/text-delta` events, runs each step's
 * tool calls in parallel and feeds the results back, until a final answer,
 * a tool result asking to stop the turn, the token limit, a refusal, a
 * cancellation or an error.
 */
export interface Agent extends AgentRef {
  /** Unique within its host. */
  readonly id: string;
  /** The agent's scope: a child of the scope it was created under. */
  readonly scope: Scope;
  /** The host it runs in. */
  readonly host: Host;
  /** The accepted options, frozen. */
  readonly options: ResolvedAgentOptions;
  /** The agent's log. */
  readonly session: Session;
  /** Where it is in its life. */
  readonly state: AgentState;
  /**
   * Send a user message: start a turn when idle, or steer the running turn.
   *
   * @throws {TypeError} for invalid content, or when the agent is still
   * being created or is disposed.
   */
  send(content: ContentInput): void;
  /**
   * How the agent's work ends: the current turn (including any steering that
   * keeps it going, and a turn opened by a message sent after a
   * cancellation), or the last turn when idle. Rejects with a `TypeError`
   * when the agent never ran a turn.
   */
  whenIdle(): Promise<TurnEnd>;
  /**
   * Abort the running turn: its model call and tool calls get an aborted
   * signal, and the turn ends `"aborted"`. A no-op when idle.
   */
  cancel(reason?: string): void;
  /**
   * Dispose the agent's scope: abort the running turn, wait for the loop to
   * unwind, undo everything registered in the scope. Memoized.
   */
  dispose(): Promise<void>;
}

/** What {@linkcode AgentRegistry.create} takes. Read once. */
export interface CreateAgentOptions {
  /** The scope the agent's scope is nested in. Default: the host's root scope. */
  readonly parentScope?: Scope;
  /** The agent's options. */
  readonly options: AgentOptions;
  /**
   * The setup window: compose the agent's scoped world (sections, tools,
   * restrictions, guards on `agent.scope`) before the agent is published.
   * A throw or rejection fails the creation.
   */
  readonly setup?: (agent: Agent) => void | Promise<void>;
  /**
   * Seed events (a fork's parent prefix, e.g. `parent.session.completedPrefix()`):
   * whole closed turns only. Renumbered from `seq` 0 when needed.
   */
  readonly session?: readonly SessionEvent[];
  /** The agent's id. Default: `agent-<n>`. Must be unused in the host. */
  readonly id?: string;
  /** Aborting it cancels the creation (nothing is published, nothing emitted). */
  readonly signal?: AbortSignal;
}

/** The host's agents. */
export interface AgentRegistry {
  /**
   * Create an agent: validate everything, make its scope, run `setup`, check
   * that its model resolves, then publish it (visible to `get` and `list`,
   * `agent/created` emitted in its scope). A creation that fails, is
   * cancelled or whose scope is disposed before publication rejects,
   * disposes the scope, publishes nothing and emits nothing.
   */
  create(init: CreateAgentOptions): Promise<Agent>;
  /** The published, not yet disposed agent with this id. */
  get(id: string): Agent | undefined;
  /** The published, not yet disposed agents, in creation order. */
  list(): Agent[];
}

/** Payload of {@linkcode agentCreated}. */
export interface AgentCreatedInfo {
  /** The agent, just published. */
  readonly agent: Agent;
}

/** Payload of {@linkcode agentDisposed}. */
export interface AgentDisposedInfo {
  /** The disposed agent's id. */
  readonly agentId: string;
}

/** Payload of {@linkcode agentTextDelta}. */
export interface AgentTextDeltaInfo {
  /** The agent's id. */
  readonly agentId: string;
  /** The streamed text. */
  readonly text: string;
}

/** Payload of {@linkcode agentToolCallStart}. */
export interface AgentToolCallStartInfo {
  /** The agent's id. */
  readonly agentId: string;
  /** The call's id. */
  readonly callId: string;
  /** The tool's name. */
  readonly name: string;
  /** The arguments as the model gave them. */
  readonly args: JsonValue;
}

/** Payload of {@linkcode agentToolCallEnd}. */
export interface AgentToolCallEndInfo {
  /** The agent's id. */
  readonly agentId: string;
  /** The call's id. */
  readonly callId: string;
  /** The tool's name. */
  readonly name: string;
  /** The result the model sees. */
  readonly content: readonly ContentBlock[];
  /** Whether it is an error result. */
  readonly isError: boolean;
  /** Set when the runtime made the error result. */
  readonly code?: ToolErrorCode;
}

/** Payload of {@linkcode agentTurnStart}. */
export interface AgentTurnStartInfo {
  /** The agent's id. */
  readonly agentId: string;
  /** The turn's number. */
  readonly turn: number;
}

/** Payload of {@linkcode agentTurnEnd}. */
export interface AgentTurnEndInfo {
  /** The agent's id. */
  readonly agentId: string;
  /** The turn's number. */
  readonly turn: number;
  /** How it ended. */
  readonly end: TurnEnd;
}

/** `agent/created`: an agent was published. Emitted in the agent's scope. */
export const agentCreated: EventKey<AgentCreatedInfo> = defineEvent("agent/created");
/** `agent/disposed`: a published agent was disposed (after its loop unwound). Emitted in its scope. */
export const agentDisposed: EventKey<AgentDisposedInfo> = defineEvent("agent/disposed");
/** `agent/text-delta`: a piece of the model's streamed text. Emitted in the agent's scope. */
export const agentTextDelta: EventKey<AgentTextDeltaInfo> = defineEvent("agent/text-delta");
/** `agent/tool-call-start`: a tool call is about to run. Emitted in the agent's scope. */
export const agentToolCallStart: EventKey<AgentToolCallStartInfo> = defineEvent(
  "agent/tool-call-start",
);
/** `agent/tool-call-end`: a tool call finished. Emitted in the agent's scope. */
export const agentToolCallEnd: EventKey<AgentToolCallEndInfo> = defineEvent(
  "agent/tool-call-end",
);
/** `agent/turn-start`: a turn began. Emitted in the agent's scope. */
export const agentTurnStart: EventKey<AgentTurnStartInfo> = defineEvent("agent/turn-start");
/** `agent/turn-end`: a turn ended. Emitted in the agent's scope. */
export const agentTurnEnd: EventKey<AgentTurnEndInfo> = defineEvent("agent/turn-end");
