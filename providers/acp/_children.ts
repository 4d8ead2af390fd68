// The child sessions an ACP agent tells of (ACP's unstable `subagent_update`)
// while one run's turn is live: each is a nested run of its own id, with its
// state and usage (`acp/child`) and its progress (`subagent/progress` with
// `parentRunId` and `depth`), `subagent/start` and, when the run ends,
// `subagent/end` as for any nested run, and their usage rolled up into the
// run's total.
// Everything here is the agent's word: bounded, and a bad piece is logged
// and skipped, never a failure of the run.
import { deepFreeze, isRecord, type Logger, type Scope } from "@seam/host";
import {
  registerRunControl,
  type SubagentBudgetMeter,
  subagentEnd,
  subagentProgress,
  type SubagentRunInfo,
  type SubagentRunPlace,
  subagentStart,
  type SubagentStopReason,
  type SubagentUsageInput,
} from "@seam/subagent";
import { fromAcpUpdate } from "./_content.ts";
import { cut } from "./_failure.ts";
import { OpenCodeTasks } from "./_opencode_tasks.ts";
import { toProgress } from "./_progress.ts";
import { MAX_CHILD_SESSIONS } from "./_session_routes.ts";
import { acpChild, type AcpChildInfo, type AcpChildState } from "./events.ts";

/** ACP's state words, in ours. */
const STATES: Readonly<Record<string, AcpChildState>> = {
  running: "running",
  idle: "idle",
  requires_action: "needs-action",
  unknown: "unknown",
};

interface Child {
  readonly runId: string;
  readonly parentRunId: string;
  readonly depth: number;
  readonly sessionId: string;
  title: string | undefined;
  state: AcpChildState | undefined;
  cancellable: boolean;
  contextTokens: number;
  /** The highest context size charged to the budget. */
  charged: number;
  toolCalls: number;
  /** A bad usage figure was logged already. */
  warned: boolean;
  /** Removes its canceller (`registerRunControl`); set while it is cancellable. */
  unregister: (() => void) | undefined;
  /** When it was first announced (`performance.now()`). */
  readonly since: number;
}

/** What a {@linkcode ChildTree} needs of its run's session. */
export interface ChildTreeSession {
  readonly settings: { readonly provider: string };
  readonly logger: Logger;
  readonly connection: { cancel(sessionId: string): void };
}

/** What a {@linkcode ChildTree} needs of its run's request. */
export interface ChildTreeRequest {
  readonly parent: { readonly id: string; readonly scope: Scope };
  readonly place?: SubagentRunPlace;
  readonly budgetMeter?: SubagentBudgetMeter;
}

interface ChildTreeOptions {
  readonly runId: string;
  readonly provider: string;
  readonly parent: { readonly id: string; readonly scope: Scope };
  readonly place: SubagentRunPlace | undefined;
  readonly logger: Logger;
  readonly budgetMeter: SubagentBudgetMeter | undefined;
  readonly cancel: (sessionId: string) => void;
}

/** The rolled-up usage of every child followed. */
export interface ChildUsage {
  readonly contextTokens: number;
  readonly toolCalls: number;
}

/** One run's tree of ACP child sessions. */
export class ChildTree {
  #state: "open" | "ended" = "open";
  readonly #options: ChildTreeOptions;
  readonly #children = new Map<string, Child>();
  #serial = 0;
  /** Updates from sessions never announced, logged once. */
  #strayLogged = false;
  readonly #openCode = new OpenCodeTasks();

  constructor(runId: string, session: ChildTreeSession, request: ChildTreeRequest) {
    this.#options = {
      runId,
      provider: session.settings.provider,
      parent: request.parent,
      place: request.place,
      logger: session.logger,
      budgetMeter: request.budgetMeter,
      cancel: (sessionId) => session.connection.cancel(sessionId),
    };
  }

  /** How many children were followed. */
  get size(): number {
    return this.#children.size;
  }

  /** A `session/update` of session `from` (the run's or a child's), untrusted. */
  update(from: string, raw: unknown): void {
    if (this.#state !== "open" || !isRecord(raw)) return;
    if (raw.sessionUpdate === "subagent_update") return this.#announced(from, raw);
    const child = this.#children.get(from);
    if (!child) return this.#stray(from);
    const update = fromAcpUpdate(raw);
    if (!update) {
      this.#options.logger.warn(
        `ACP run ${this.#options.runId}: ignored a malformed update of child ${child.runId}`,
      );
      return;
    }
    const meter = this.#options.budgetMeter;
    if (update.type === "tool_call") {
      child.toolCalls++;
      meter?.charge({ toolCalls: 1 });
      this.#tell(child);
    } else if (update.type === "usage_update") {
      this.#usage(child, (update.raw as { used?: unknown }).used);
    }
    const progress = toProgress(update);
    const scope = this.#options.parent.scope;
    if (progress && scope.hasListeners(subagentProgress)) {
      scope.emit(
        subagentProgress,
        deepFreeze({
          provider: this.#options.provider,
          parentRunId: child.parentRunId,
          depth: child.depth,
          runId: child.runId,
          ...progress,
        }),
      );
    }
  }

  /** One of the run's own updates: an OpenCode `task` tool call is followed as a child. */
  own(raw: unknown): void {
    if (this.#state !== "open") return;
    for (const [from, update] of this.#openCode.translate(raw)) this.update(from, update);
  }

  /** The children's usage, summed (each child's latest context size, its tool calls). */
  total(): ChildUsage {
    let contextTokens = 0;
    let toolCalls = 0;
    for (const child of this.#children.values()) {
      contextTokens += child.contextTokens;
      toolCalls += child.toolCalls;
    }
    return { contextTokens, toolCalls };
  }

  /**
   * The run's usage: the agent's own figures (`self`; ACP reports the
   * context's size, not each call's tokens: a lower bound, partial) and,
   * with children, the total with theirs: their own sessions' figures,
   * beside (not inside) the agent's, each child's latest context size once.
   */
  rollUp(self: { readonly contextTokens: number; readonly toolCalls: number }): SubagentUsageInput {
    const own = { inputTokens: self.contextTokens, toolCalls: self.toolCalls };
    if (this.#children.size === 0) return { self: own, partial: true };
    const children = this.total();
    return {
      self: own,
      total: {
        inputTokens: own.inputTokens + children.contextTokens,
        toolCalls: own.toolCalls + children.toolCalls,
      },
      partial: true,
    };
  }

  /**
   * The run ended `stopReason`: tell each child ended (`acp/child`, then
   * `subagent/end`, so nothing shows it running), and follow none any more.
   */
  end(stopReason: SubagentStopReason): void {
    if (this.#state !== "open") return;
    this.#state = "ended";
    for (const child of this.#children.values()) {
      child.unregister?.();
      this.#tell(child);
      this.#ended(child, stopReason);
    }
  }

  #announced(from: string, raw: Record<string, unknown>): void {
    const { runId, logger } = this.#options;
    const sessionId = raw.sessionId as string; // checked by the routes
    let child = this.#children.get(sessionId);
    const fresh = child === undefined;
    if (!child) {
      const parent = this.#children.get(from);
      if (this.#children.size >= MAX_CHILD_SESSIONS) return; // the routes logged it
      const depth = (parent?.depth ?? this.#options.place?.depth ?? 1) + 1;
      child = {
        runId: `${runId}.${++this.#serial}`,
        parentRunId: parent?.runId ?? runId,
        depth,
        sessionId: cut(sessionId, 200),
        title: undefined,
        state: undefined,
        cancellable: false,
        contextTokens: 0,
        charged: 0,
        toolCalls: 0,
        warned: false,
        unregister: undefined,
        since: performance.now(),
      };
      this.#children.set(sessionId, child);
      logger.debug(`ACP run ${runId}: child session ${child.sessionId} is ${child.runId}`);
    }
    this.#update(child, raw);
    this.#tell(child);
    // As any nested run: a `subagent/start` when first told, a `subagent/end` when the run ends.
    const scope = this.#options.parent.scope;
    if (fresh && scope.hasListeners(subagentStart)) scope.emit(subagentStart, this.#info(child));
  }

  /** What a `subagent_update` says of `child`'s title, capabilities and state. */
  #update(child: Child, raw: Record<string, unknown>): void {
    const sessionId = raw.sessionId as string;
    if (typeof raw.title === "string") child.title = cut(raw.title, 200);
    else if (raw.title === null) child.title = undefined;
    if (raw.capabilities === null) child.cancellable = false;
    else if (isRecord(raw.capabilities)) child.cancellable = isRecord(raw.capabilities.cancel);
    // Cancellable by id (the ACP server's per-child cancel): `session/cancel` naming it.
    if (child.cancellable) {
      child.unregister ??= registerRunControl(
        this.#options.parent.scope,
        child.runId,
        () => this.#options.cancel(sessionId),
      );
    } else {
      child.unregister?.();
      child.unregister = undefined;
    }
    if (raw.state === null) child.state = undefined;
    else if (isRecord(raw.state) && typeof raw.state.state === "string") {
      child.state = STATES[raw.state.state] ?? cut(raw.state.state, 64);
    }
  }

  /** `child` as a nested run of the service's events. */
  #info(child: Child): SubagentRunInfo {
    return deepFreeze({
      provider: this.#options.provider,
      parentRunId: child.parentRunId,
      depth: child.depth,
      ...(child.title === undefined ? {} : { label: child.title }),
      runId: child.runId,
      parentId: child.parentRunId,
      prompt: [],
      inheritsParentContext: false,
    });
  }

  /**
   * `subagent/end` for `child`: `completed` when the agent last said it was
   * idle (or nothing), else what ended the run (`aborted` when that was a
   * completion: the turn ended with the child still at work).
   */
  #ended(child: Child, runStopReason: SubagentStopReason): void {
    const scope = this.#options.parent.scope;
    if (!scope.hasListeners(subagentEnd)) return;
    const done = child.state === undefined || child.state === "idle";
    const stopReason = done ? "completed" : child.state === "failed" // an OpenCode task that failed (see _opencode_tasks.ts)
      ? "error"
      : runStopReason === "completed"
      ? "aborted"
      : runStopReason;
    const durationMs = Math.max(0, performance.now() - child.since);
    const figures = {
      inputTokens: child.contextTokens,
      outputTokens: 0,
      cachedInputTokens: 0,
      modelCalls: 0,
      toolCalls: child.toolCalls,
      wallTimeMs: durationMs,
    };
    scope.emit(
      subagentEnd,
      deepFreeze({
        ...this.#info(child),
        usage: { self: figures, total: figures, partial: true },
        stopReason,
        durationMs,
      }),
    );
  }

  #usage(child: Child, used: unknown): void {
    if (typeof used !== "number" || !Number.isSafeInteger(used) || used < 0) {
      if (!child.warned) {
        child.warned = true;
        this.#options.logger.warn(
          `ACP run ${this.#options.runId}: ignored a usage_update of child ${child.runId} that is no count of tokens (${
            cut(String(used), 40)
          })`,
        );
      }
      return;
    }
    child.contextTokens = used;
    const grown = used - child.charged;
    if (grown > 0) {
      child.charged = used;
      this.#options.budgetMeter?.charge({ inputTokens: grown });
    }
    this.#tell(child);
  }

  #stray(from: string): void {
    if (this.#strayLogged) return;
    this.#strayLogged = true;
    this.#options.logger.warn(
      `ACP run ${this.#options.runId}: ignored updates of session ${
        cut(from, 200)
      }, which no subagent_update announced`,
    );
  }

  #tell(child: Child): void {
    const scope = this.#options.parent.scope;
    if (!scope.hasListeners(acpChild)) return;
    const info: AcpChildInfo = {
      runId: child.runId,
      parentRunId: child.parentRunId,
      rootRunId: this.#options.runId,
      provider: this.#options.provider,
      depth: child.depth,
      sessionId: child.sessionId,
      ...(child.title === undefined ? {} : { title: child.title }),
      ...(child.state === undefined ? {} : { state: child.state }),
      cancellable: child.cancellable,
      usage: { contextTokens: child.contextTokens, toolCalls: child.toolCalls },
      ended: this.#state === "ended",
    };
    scope.emit(acpChild, deepFreeze(info));
  }
}
