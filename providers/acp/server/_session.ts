// One session of the ACP server: a host agent, what it does forwarded to the
// client as `session/update`s, and its prompt turns (one at a time).
// @ts-types="@agentclientprotocol/sdk"
import * as acp from "../_acp_sdk.bundle.js";
import {
  type Agent,
  agentTextDelta,
  agentToolCallEnd,
  agentToolCallStart,
  type Logger,
  messageOf,
  traceParentKey,
  type TurnEnd,
} from "@seam/host";
import { endPromptSpan, isTracing, type PromptSpan, startPromptSpan } from "../_trace.ts";
import { fromAcpPrompt, toAcpBlock } from "../_content.ts";
import { acpPlan } from "../events.ts";
import { SessionTree, type TreeContext } from "./_tree.ts";

const PRIORITIES: readonly string[] = ["high", "medium", "low"];
const STATUSES: readonly string[] = ["pending", "in_progress", "completed"];

/** A live prompt turn on a session. */
interface Turn {
  /** The client asked to stop it (`session/cancel`, `$/cancel_request`, `session/close`). */
  cancelled: boolean;
}

/** What every session of a connection shares. */
export interface SessionContext {
  readonly logger: Logger;
  /** The agent's name (`agentInfo.name`) and model, for the prompt's span. */
  readonly agentName: string;
  readonly model: string;
  /** Send one `session/update` to the client (dropped once the connection closed). */
  notify(sessionId: string, update: acp.SessionUpdate): void;
  /** What a session's tree of descendants needs. */
  readonly tree: TreeContext;
}

/** How a turn's end is answered: a stop reason, or a JSON-RPC error for a failure. */
function promptAnswer(end: TurnEnd, turn: Turn): acp.PromptResponse {
  if (turn.cancelled) return { stopReason: "cancelled" };
  switch (end.reason) {
    case "completed":
      return { stopReason: "end_turn" };
    case "max-tokens":
      return { stopReason: "max_tokens" };
    case "refusal":
      return { stopReason: "refusal" };
    case "aborted":
      return { stopReason: "cancelled" };
    case "error":
      throw new acp.RequestError(
        -32603,
        `The agent's turn failed: ${end.error ?? "unknown error"}`,
        { reason: "error" },
      );
  }
}

/** A session: its agent and its running turn. */
export class ServerSession {
  readonly id: string;
  readonly agent: Agent;
  readonly #context: SessionContext;
  /** The running prompt turn; `undefined` between turns. */
  #turn: Turn | undefined;
  /** The running prompt's span, when tracing: the agent's spans hang under it. */
  #trace: PromptSpan | undefined;
  /** The agent's descendants, told to the client. */
  readonly #tree: SessionTree;

  /** A session of `agent` (being created: `setup` has not run yet). */
  constructor(id: string, agent: Agent, context: SessionContext) {
    this.id = id;
    this.agent = agent;
    this.#context = context;
    this.#tree = new SessionTree(id, agent, context.tree);
    // The agent's model and tool calls hang under the running prompt's span.
    if (isTracing()) {
      const running = () => this.#trace?.context;
      agent.scope.provide(traceParentKey, {
        get context() {
          return running();
        },
      });
    }
  }

  /** Whether a prompt turn is running. */
  get prompting(): boolean {
    return this.#turn !== undefined;
  }

  /** Send one `session/update` for the running turn (dropped between turns). */
  #update(value: acp.SessionUpdate): void {
    if (!this.#turn) {
      this.#context.logger.debug(
        `Dropped a ${value.sessionUpdate} update of session ${this.id} between turns`,
      );
      return;
    }
    this.#context.notify(this.id, value);
  }

  /**
   * Forward what the session's own agent does as updates, and its
   * descendants' (see `SessionTree`).
   */
  wire(): void {
    const { agent } = this;
    this.#tree.wire();
    agent.scope.on(agentTextDelta, ({ agentId, text }) => {
      if (agentId !== agent.id || text === "") return;
      this.#update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    });
    agent.scope.on(agentToolCallStart, ({ agentId, callId, name, args }) => {
      if (agentId !== agent.id) return;
      this.#update({
        sessionUpdate: "tool_call",
        toolCallId: callId,
        title: name,
        status: "in_progress",
        rawInput: args,
      });
    });
    agent.scope.on(agentToolCallEnd, ({ agentId, callId, content, isError, code }) => {
      if (agentId !== agent.id) return;
      this.#update({
        sessionUpdate: "tool_call_update",
        toolCallId: callId,
        status: isError ? "failed" : "completed",
        content: content.map((block) => ({
          type: "content" as const,
          content: toAcpBlock(block) as acp.ContentBlock,
        })),
        rawOutput: code === undefined ? { isError } : { isError, code },
      });
    });
    agent.scope.on(acpPlan, ({ agentId, entries }) => {
      if (agentId !== agent.id) return;
      this.#update({
        sessionUpdate: "plan",
        // The event is untyped at runtime: keep to the values ACP allows.
        entries: entries.map(({ content, priority, status }) => ({
          content: String(content),
          priority: PRIORITIES.includes(priority) ? priority as acp.PlanEntryPriority : "medium",
          status: STATUSES.includes(status) ? status as acp.PlanEntryStatus : "pending",
        })),
      });
    });
  }

  /**
   * Run one prompt turn (`session/prompt`): its updates streamed while it
   * runs, its end mapped to the answer; `signal` (the request's
   * `$/cancel_request`) cancels it.
   */
  async prompt(params: acp.PromptRequest, signal: AbortSignal): Promise<acp.PromptResponse> {
    if (this.#turn) {
      throw acp.RequestError.invalidRequest(
        { sessionId: this.id },
        `session "${this.id}" is already running a prompt`,
      );
    }
    let content;
    try {
      content = fromAcpPrompt(params.prompt);
    } catch (error) {
      throw acp.RequestError.invalidParams(undefined, messageOf(error));
    }
    const turn: Turn = { cancelled: false };
    const onAbort = () => {
      turn.cancelled = true;
      this.agent.cancel("the ACP client cancelled the prompt");
    };
    this.#turn = turn;
    // Under the caller's trace context, when its `_meta` carries one.
    const { agentName, model, logger } = this.#context;
    const traced = startPromptSpan(params._meta, agentName, this.id, model);
    this.#trace = traced;
    let answered: acp.PromptResponse | undefined;
    let failure: unknown;
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      this.agent.send(content);
      const end = await this.agent.whenIdle();
      logger.debug(`ACP session ${this.id}: the turn ended ${end.reason}`);
      return answered = promptAnswer(end, turn);
    } catch (error) {
      failure = error;
      if (error instanceof acp.RequestError) throw error;
      if (turn.cancelled) return answered = { stopReason: "cancelled" };
      throw new acp.RequestError(-32603, `The agent's turn failed: ${messageOf(error)}`, {
        reason: "error",
      });
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#turn = undefined;
      if (traced) {
        this.#trace = undefined;
        endPromptSpan(traced, answered?.stopReason, answered ? undefined : failure);
      }
    }
  }

  /** `session/cancel`: cancel the running turn; `false` when none runs. */
  cancel(): boolean {
    if (!this.#turn) return false;
    this.#turn.cancelled = true;
    this.agent.cancel("the ACP client cancelled the prompt");
    return true;
  }

  /** The client's `session/cancel` for one of its child sessions; `false` when none. */
  cancelChild(childSessionId: string): boolean {
    return this.#tree.cancelChild(childSessionId);
  }

  /** The session closes (or the server stops): a running prompt is answered `cancelled`. */
  closing(): void {
    if (this.#turn) this.#turn.cancelled = true;
  }
}
