// The child sessions an ACP agent tells of (ACP's unstable `subagent_update`)
// while one run's turn is live: each is a nested run of its own id, told as
// any nested run is (`NestedRuns` of @seam/subagent: `subagent/nested-run`
// with its state and usage, `subagent/start`, and when the run ends
// `subagent/end`), with its progress (`subagent/progress` with
// `parentRunId` and `depth`), and their usage rolled up into the run's total.
// Everything here is the agent's word: bounded, and a bad piece is logged
// and skipped, never a failure of the run.
import { deepFreeze, isRecord, type Logger, type Scope } from "@seam/host";
import {
  type NestedRun,
  type NestedRunChange,
  NestedRuns,
  type SubagentBudgetMeter,
  subagentProgress,
  type SubagentRunPlace,
  type SubagentStopReason,
  type SubagentUsageInput,
} from "@seam/subagent";
import { fromAcpUpdate } from "./_content.ts";
import { cut } from "./_failure.ts";
import { OpenCodeTasks } from "./_opencode_tasks.ts";
import { toProgress } from "./_progress.ts";
import { MAX_CHILD_SESSIONS } from "./_session_routes.ts";

/** ACP's state words, in ours. */
const STATES: Readonly<Record<string, string>> = {
  running: "running",
  idle: "idle",
  requires_action: "needs-action",
  unknown: "unknown",
};

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

/** The rolled-up usage of every child followed. */
export interface ChildUsage {
  readonly contextTokens: number;
  readonly toolCalls: number;
}

/** One run's tree of ACP child sessions. */
export class ChildTree {
  readonly #runId: string;
  readonly #provider: string;
  readonly #scope: Scope;
  readonly #logger: Logger;
  readonly #budgetMeter: SubagentBudgetMeter | undefined;
  readonly #cancel: (sessionId: string) => void;
  /** By child session id (cut to 200 characters). */
  readonly #runs: NestedRuns;
  /** Each child's highest context size charged to the budget. */
  readonly #charged = new Map<NestedRun, number>();
  /** The children whose bad usage figure was logged already. */
  readonly #warned = new Set<NestedRun>();
  #open = true;
  /** Updates from sessions never announced, logged once. */
  #strayLogged = false;
  readonly #openCode = new OpenCodeTasks();

  constructor(runId: string, session: ChildTreeSession, request: ChildTreeRequest) {
    this.#runId = runId;
    this.#provider = session.settings.provider;
    this.#scope = request.parent.scope;
    this.#logger = session.logger;
    this.#budgetMeter = request.budgetMeter;
    this.#cancel = (sessionId) => session.connection.cancel(sessionId);
    this.#runs = new NestedRuns({
      runId,
      provider: this.#provider,
      scope: this.#scope,
      place: request.place,
      max: MAX_CHILD_SESSIONS, // the routes log past it
    });
  }

  /** How many children were followed. */
  get size(): number {
    return this.#runs.size;
  }

  /** A `session/update` of session `from` (the run's or a child's), untrusted. */
  update(from: string, raw: unknown): void {
    if (!this.#open || !isRecord(raw)) return;
    if (raw.sessionUpdate === "subagent_update") return this.#announced(from, raw);
    const child = this.#runs.get(cut(from, 200));
    if (!child) return this.#stray(from);
    const update = fromAcpUpdate(raw);
    if (!update) {
      this.#logger.warn(
        `ACP run ${this.#runId}: ignored a malformed update of child ${child.runId}`,
      );
      return;
    }
    if (update.type === "tool_call") {
      this.#budgetMeter?.charge({ toolCalls: 1 });
      this.#runs.update(child, { usage: { toolCalls: child.usage.toolCalls + 1 } });
    } else if (update.type === "usage_update") {
      this.#usage(child, (update.raw as { used?: unknown }).used);
    }
    const progress = toProgress(update);
    if (progress && this.#scope.hasListeners(subagentProgress)) {
      this.#scope.emit(
        subagentProgress,
        deepFreeze({
          provider: this.#provider,
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
    if (!this.#open) return;
    for (const [from, update] of this.#openCode.translate(raw)) this.update(from, update);
  }

  /** The children's usage, summed (each child's latest context size, its tool calls). */
  total(): ChildUsage {
    let contextTokens = 0;
    let toolCalls = 0;
    for (const { usage } of this.#runs.values()) {
      contextTokens += usage.inputTokens;
      toolCalls += usage.toolCalls;
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
    if (this.#runs.size === 0) return { self: own, partial: true };
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
   * The run ended `stopReason`: each child ends (`subagent/end`, so nothing
   * shows it running: see `NestedRuns.endAll`), and none is followed any more.
   */
  end(stopReason: SubagentStopReason): void {
    if (!this.#open) return;
    this.#open = false;
    this.#runs.endAll(stopReason);
  }

  #announced(from: string, raw: Record<string, unknown>): void {
    const sessionId = raw.sessionId as string; // checked by the routes
    const change = this.#change(sessionId, raw);
    const key = cut(sessionId, 200);
    const child = this.#runs.get(key);
    if (child) {
      this.#runs.update(child, change);
      return;
    }
    const added = this.#runs.add(key, this.#runs.get(cut(from, 200)), change);
    if (added) {
      this.#logger.debug(`ACP run ${this.#runId}: child session ${key} is ${added.runId}`);
    }
  }

  /** What a `subagent_update` says of a child's title, capabilities and state. */
  #change(sessionId: string, raw: Record<string, unknown>): NestedRunChange {
    const { title, capabilities, state } = raw;
    return {
      title: typeof title === "string" ? cut(title, 200) : title === null ? null : undefined,
      // Cancellable by id (the ACP server's per-child cancel): `session/cancel` naming it.
      cancel: capabilities === null
        ? null
        : isRecord(capabilities)
        ? isRecord(capabilities.cancel) ? () => this.#cancel(sessionId) : null
        : undefined,
      state: state === null
        ? null
        : isRecord(state) && typeof state.state === "string"
        ? STATES[state.state] ?? cut(state.state, 64)
        : undefined,
    };
  }

  #usage(child: NestedRun, used: unknown): void {
    if (typeof used !== "number" || !Number.isSafeInteger(used) || used < 0) {
      if (!this.#warned.has(child)) {
        this.#warned.add(child);
        this.#logger.warn(
          `ACP run ${this.#runId}: ignored a usage_update of child ${child.runId} that is no count of tokens (${
            cut(String(used), 40)
          })`,
        );
      }
      return;
    }
    const grown = used - (this.#charged.get(child) ?? 0);
    if (grown > 0) {
      this.#charged.set(child, used);
      this.#budgetMeter?.charge({ inputTokens: grown });
    }
    this.#runs.update(child, { usage: { inputTokens: used } });
  }

  #stray(from: string): void {
    if (this.#strayLogged) return;
    this.#strayLogged = true;
    this.#logger.warn(
      `ACP run ${this.#runId}: ignored updates of session ${
        cut(from, 200)
      }, which no subagent_update announced`,
    );
  }
}
