// Every descendant of a session's agent (in-process, ACP and A2A children,
// at any depth) told to the ACP client: as a child session of its own
// (ACP's unstable `subagent_update`, then its traffic under that session id)
// when the client advertised `clientCapabilities.subagents`, else as one
// thought line per start, end and input request. A descendant's input request
// is "needs action" and goes to the client as `session/request_permission`
// (a question as an elicitation form, when the client takes those: _ask.ts);
// the client's `session/cancel` for a child session cancels that child and so
// its subtree, nothing above or beside it: whatever run it is (in-process, a
// provider's run, a nested run a provider reports), through the canceller its
// starter registered (`registerRunControl` of @seam/subagent).
// @ts-types="@agentclientprotocol/sdk"
import type * as acp from "../_acp_sdk.bundle.js";
import { type Agent, deepFreeze, type Logger, textOf } from "@seam/host";
import {
  findRunControl,
  handleSubagentInput,
  onSubagentNestedRun,
  subagentEnd,
  type SubagentInputAnswer,
  type SubagentInputRequest,
  subagentInputRequired,
  subagentProgress,
  type SubagentProgressInfo,
  subagentStart,
} from "@seam/subagent";
import { cut } from "../_failure.ts";
import { askClient, type ClientQuestions } from "./_ask.ts";

/** The most descendants told per session; the rest are not (logged once). */
export const MAX_TOLD_DESCENDANTS = 1024;

/** What a tree needs of its connection. */
export interface TreeContext extends ClientQuestions {
  readonly logger: Logger;
  /** Whether the client advertised `clientCapabilities.subagents`. */
  subagents(): boolean;
  notify(sessionId: string, update: acp.SessionUpdate): void;
}

interface Told {
  readonly runId: string;
  /** Its child session id. */
  readonly sessionId: string;
  /** The session it was announced on (the session's own, or its parent's child session). */
  readonly parentSessionId: string;
  ended: boolean;
  /** Whether the client was last told it may cancel it (`capabilities.cancel`). */
  cancellable: boolean;
}

/** The descendants of one session's agent, told to the client. */
export class SessionTree {
  readonly #sessionId: string;
  readonly #agent: Agent;
  readonly #context: TreeContext;
  /** By run id. */
  readonly #told = new Map<string, Told>();
  /** Child session id → run id. */
  readonly #bySession = new Map<string, string>();
  #full = false;

  constructor(sessionId: string, agent: Agent, context: TreeContext) {
    this.#sessionId = sessionId;
    this.#agent = agent;
    this.#context = context;
  }

  /** Listen in the agent's scope (descendants' events travel up to it). */
  wire(): void {
    const scope = this.#agent.scope;
    scope.on(subagentStart, (info) => {
      const fields = {
        title: info.label ?? info.provider,
        description: cut(textOf(info.prompt), 200),
      };
      const known = this.#told.get(info.runId);
      // Its progress came first (a provider may emit before the service's start): patch it.
      if (known) return this.#patch(known, fields);
      if (this.#ensure(info.runId, info.parentRunId, fields)) {
        this.#plain(`started ${info.runId} (${info.provider})`);
      }
    });
    scope.on(subagentProgress, (info) => this.#progress(info));
    scope.on(subagentEnd, (info) => {
      const told = this.#ensure(info.runId, info.parentRunId);
      if (!told || told.ended) return;
      // Ended: no cancel offered any more.
      this.#state(told, "idle", { stopReason: info.stopReason, usage: info.usage.total }, false);
      told.ended = true;
      this.#plain(`${info.runId} ended ${info.stopReason}`);
    });
    // A nested run a provider reports: its own word of whether it may be cancelled, no search.
    onSubagentNestedRun(scope, (info) => {
      const { title, cancellable } = info;
      const told = this.#ensure(info.runId, info.parentRunId, title ? { title } : {}, cancellable);
      // Its end is told by the `subagent/end` that follows (with how it ended).
      if (!told || told.ended) return;
      const state = info.state === "needs-action"
        ? "requires_action"
        : info.state === "running" || info.state === "idle"
        ? info.state
        : undefined;
      if (state) this.#state(told, state, { usage: info.usage }, cancellable);
      else if (cancellable !== told.cancellable) this.#patch(told, {}, cancellable);
    });
    scope.on(subagentInputRequired, (request) => {
      const told = this.#ensure(request.runId, request.path.at(-2));
      if (told && !told.ended) this.#state(told, "requires_action");
      this.#plain(`${request.runId} needs action: ${cut(request.message, 200)}`);
    });
    handleSubagentInput(scope, (request, { signal }) => this.#ask(request, signal));
  }

  /**
   * The client's `session/cancel` for `childSessionId`: cancel that child
   * (and so its subtree); `false` when it is none of this session's.
   */
  cancelChild(childSessionId: string): boolean {
    const runId = this.#bySession.get(childSessionId);
    if (runId === undefined) return false;
    const cancel = findRunControl(this.#agent.scope, runId);
    try {
      if (cancel) cancel("the ACP client cancelled this child");
      else {
        // Debug: a client may cancel what just ended, as often as it likes.
        this.#context.logger.debug(
          `Ignored session/cancel for child session ${
            cut(childSessionId, 200)
          }: run ${runId} has ended or cannot be cancelled`,
        );
      }
    } catch (error) {
      this.#context.logger.warn(`Cancelling run ${runId} for the ACP client failed`, error);
    }
    return true;
  }

  /** The told descendant `runId`, announced to the client when new; `undefined` past the bound. */
  #ensure(
    runId: string,
    parentRunId: string | undefined,
    fields: { title?: string; description?: string } = {},
    cancellable?: boolean,
  ): Told | undefined {
    let told = this.#told.get(runId);
    if (told) return told;
    if (runId === this.#agent.id) return undefined;
    if (this.#told.size >= MAX_TOLD_DESCENDANTS) {
      if (!this.#full) {
        this.#full = true;
        this.#context.logger.warn(
          `ACP session ${this.#sessionId}: more than ${MAX_TOLD_DESCENDANTS} descendants; not telling the rest`,
        );
      }
      return undefined;
    }
    const above = parentRunId === undefined ? undefined : this.#told.get(parentRunId);
    told = {
      runId,
      sessionId: `${this.#sessionId}/${runId}`,
      parentSessionId: above?.sessionId ?? this.#sessionId,
      ended: false,
      // A run the service started is cancellable while live: only a new one is searched for.
      cancellable: cancellable ?? findRunControl(this.#agent.scope, runId) !== undefined,
    };
    this.#told.set(runId, told);
    this.#bySession.set(told.sessionId, runId);
    if (this.#context.subagents()) {
      this.#context.notify(told.parentSessionId, {
        sessionUpdate: "subagent_update",
        sessionId: told.sessionId,
        ...fields,
        capabilities: told.cancellable ? { cancel: {} } : null,
        state: { state: "running" },
      } as unknown as acp.SessionUpdate);
    }
    return told;
  }

  /** A `subagent_update` of `told` with `fields`, and its `capabilities` when `cancellable` changed them. */
  #patch(told: Told, fields: Record<string, unknown>, cancellable = told.cancellable): void {
    if (!this.#context.subagents() || told.ended) return;
    const changed = cancellable !== told.cancellable;
    told.cancellable = cancellable;
    this.#context.notify(told.parentSessionId, {
      sessionUpdate: "subagent_update",
      sessionId: told.sessionId,
      ...fields,
      ...(changed ? { capabilities: cancellable ? { cancel: {} } : null } : {}),
    } as unknown as acp.SessionUpdate);
  }

  /** `told`'s new state (with seam's own figures in `_meta`, and any change of `cancellable`). */
  #state(
    told: Told,
    state: string,
    seam?: Record<string, unknown>,
    cancellable?: boolean,
  ): void {
    this.#patch(told, {
      state: { state },
      ...(seam ? { _meta: { seam: deepFreeze(structuredClone(seam)) } } : {}),
    }, cancellable);
  }

  /** A descendant's progress, under its child session (told only with the capability). */
  #progress(info: SubagentProgressInfo): void {
    const told = this.#ensure(info.runId, info.parentRunId);
    if (!told || told.ended || !this.#context.subagents()) return;
    const update = progressUpdate(info);
    if (update) this.#context.notify(told.sessionId, update);
  }

  /** Without the capability: one thought line on the session. */
  #plain(text: string): void {
    if (this.#context.subagents()) return;
    this.#context.notify(this.#sessionId, {
      sessionUpdate: "agent_thought_chunk",
      content: { type: "text", text: `[subagent] ${text}\n` },
    });
  }

  /** A descendant's input request, asked of the client when it is the one to ask (`_ask.ts`). */
  async #ask(
    request: SubagentInputRequest,
    signal: AbortSignal,
  ): Promise<SubagentInputAnswer | undefined> {
    const told = this.#told.get(request.runId);
    const sessionId = told && this.#context.subagents() ? told.sessionId : this.#sessionId;
    const answer = await askClient(this.#context, this.#context.logger, request, sessionId, signal);
    if (answer && told && !told.ended) this.#state(told, "running");
    return answer;
  }
}

/** A descendant's progress as an ACP update of its child session. */
function progressUpdate(info: SubagentProgressInfo): acp.SessionUpdate | undefined {
  switch (info.kind) {
    case "text":
      return info.text
        ? { sessionUpdate: "agent_message_chunk", content: { type: "text", text: info.text } }
        : undefined;
    case "thought":
    case "plan":
      return info.text
        ? { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: info.text } }
        : undefined;
    case "tool-call":
      return {
        sessionUpdate: "tool_call",
        toolCallId: info.callId ?? "call",
        title: info.name ?? "tool call",
        status: "in_progress",
      };
    case "tool-result":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: info.callId ?? "call",
        status: "completed",
        ...(info.text
          ? { content: [{ type: "content", content: { type: "text", text: info.text } }] }
          : {}),
      };
    case "remote":
      return info.remote
        ? {
          sessionUpdate: "agent_thought_chunk",
          content: {
            type: "text",
            text: `on ${info.remote.agentName}, task ${info.remote.taskId}\n`,
          },
        }
        : undefined;
    default:
      return undefined;
  }
}
