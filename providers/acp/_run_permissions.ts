// A run's answers to its agent's `session/request_permission`: by the fixed
// policy, the permission function, or (`permission: "ask"`) as input
// requests up the tree; and the refusals, which say why a turn the agent
// ended `cancelled` itself ended.
import {
  type AgentRef,
  deepFreeze,
  frozenJsonCopy,
  type JsonValue,
  messageOf,
  textHead,
} from "@seam/host";
import { type SubagentInputAnswer, SubagentInputs } from "@seam/subagent";
import { race } from "./_async.ts";
import { fromAcpUpdate } from "./_content.ts";
import type { PermissionOptionWire, PermissionOutcome, PermissionParams } from "./_connection.ts";
import {
  answerOutcome,
  askOptions,
  CANCELLED,
  KnownToolCalls,
  permissionAsk,
  toolCallInfo,
  toOutcome,
} from "./_permission.ts";
import type { AcpSession } from "./_session.ts";
import type { TurnClock } from "./_turn_clock.ts";
import type { AcpToolCall } from "./events.ts";
import type { AcpPermissionDecision, AcpPermissionRequest } from "./types.ts";

/** A permission request the run answered with a refusal. */
export interface Refusal {
  readonly toolCallId: string;
  readonly title?: string;
  readonly toolKind?: string;
  /** The id of the option picked (a `reject_*` one), or `"cancelled"`. */
  readonly answer: string;
  /** Why, when an input request was refused (`permission: "ask"`). */
  readonly reason?: string;
}

/** What {@linkcode RunPermissions} needs of its run. */
export interface PermissionRun {
  readonly id: string;
  readonly parent: AgentRef;
  readonly session: AcpSession;
  /** Aborts once the run ended (settled). */
  readonly signal: AbortSignal;
  /** The turn's clock, once the prompt was sent. */
  clock(): TurnClock | undefined;
}

/** The longest refusal reason kept. */
const MAX_REASON = 500;
/** The most refusals kept (an agent may ask thousands of times); the rest are counted. */
const MAX_REFUSALS = 20;
/** The longest tool call id or title kept in a refusal. */
const MAX_FIELD = 200;

/** One run's permission requests. */
export class RunPermissions {
  readonly #run: PermissionRun;
  /** The input requests asked up the tree (`permission: "ask"`). */
  readonly #inputs: SubagentInputs;
  readonly #refusals: Refusal[] = [];
  #refusalCount = 0;
  /** What the run's updates told of its tool calls (`"ask"` only). */
  readonly #known: KnownToolCalls | undefined;
  readonly #ask: boolean;

  constructor(run: PermissionRun) {
    this.#run = run;
    this.#inputs = new SubagentInputs(run.parent.scope, run.id);
    this.#ask = run.session.settings.permission === "ask";
    this.#known = this.#ask ? new KnownToolCalls() : undefined;
  }

  /** `run.respond`: present under `permission: "ask"` only (other runs never ask). */
  respondFunction(): ((requestId: string, answer: SubagentInputAnswer) => void) | undefined {
    return this.#ask ? (requestId, answer) => this.#inputs.respond(requestId, answer) : undefined;
  }

  /** The run ended: refuse what waits (the agent is answered `cancelled`). */
  cancelAll(reason: string): void {
    this.#inputs.cancelAll(reason);
  }

  /** A `tool_call` / `tool_call_update` the agent sent (its fields complete a later request). */
  remember(update: unknown): void {
    this.#known?.remember(update);
  }

  /** The refusals so far. */
  get refusals(): readonly Refusal[] {
    return this.#refusals;
  }

  /** How many requests were refused, those not kept in {@linkcode refusals} included. */
  get refusalCount(): number {
    return this.#refusalCount;
  }

  /** The refusals as the result's `data.refused`. */
  refusalData(): JsonValue[] {
    return this.#refusals.map((r) => ({ ...r }));
  }

  /** Answer a `session/request_permission`; `agentSignal` aborts if the agent withdraws it. */
  async answer(params: PermissionParams, agentSignal: AbortSignal): Promise<PermissionOutcome> {
    const ended = this.#run.signal;
    if (ended.aborted || agentSignal.aborted) return CANCELLED;
    const options = Array.isArray(params.options) ? params.options : [];
    let outcome: PermissionOutcome;
    let reason: string | undefined;
    if (this.#ask) {
      ({ outcome, reason } = await this.#askUp(params, options, agentSignal));
    } else {
      outcome = await this.#decide(params, options, agentSignal);
    }
    if (ended.aborted || agentSignal.aborted) return CANCELLED;
    const picked = outcome.outcome === "selected"
      ? options.find((o) => o.optionId === outcome.optionId)
      : undefined;
    if (
      outcome.outcome === "cancelled" ||
      (typeof picked?.kind === "string" && picked.kind.startsWith("reject"))
    ) {
      if (++this.#refusalCount <= MAX_REFUSALS) {
        const { toolCallId, title, toolKind } = toolCallOf(params.toolCall);
        this.#refusals.push({
          toolCallId: textHead(toolCallId, MAX_FIELD),
          ...(title === undefined ? {} : { title: textHead(title, MAX_FIELD) }),
          ...(toolKind === undefined ? {} : { toolKind: textHead(toolKind, MAX_FIELD) }),
          answer: textHead(picked ? picked.optionId : "cancelled", MAX_FIELD),
          ...(reason === undefined ? {} : { reason: textHead(reason, MAX_REASON) }),
        });
      }
    }
    return outcome;
  }

  /** `"reject"`, `"allow"` or the permission function's decision, as the wire answer. */
  async #decide(
    params: PermissionParams,
    options: readonly PermissionOptionWire[],
    agentSignal: AbortSignal,
  ): Promise<PermissionOutcome> {
    const { id, parent, session } = this.#run;
    const { permission } = session.settings;
    const logger = session.logger;
    if (typeof permission === "string") {
      return toOutcome(permission as AcpPermissionDecision, options, logger);
    }
    let decision: AcpPermissionDecision;
    const clock = this.#run.clock();
    clock?.pause();
    const withdrawn = AbortSignal.any([this.#run.signal, agentSignal]);
    const request: AcpPermissionRequest = Object.freeze({
      runId: id,
      parentId: parent.id,
      sessionId: session.sessionId ?? "",
      toolCall: deepFreeze(toolCallOf(params.toolCall)),
      raw: rawToolCall(params.toolCall),
      options: deepFreeze(
        options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
      ),
      signal: withdrawn,
    });
    try {
      decision = await race(Promise.resolve().then(() => permission(request)), withdrawn);
    } catch (error) {
      if (withdrawn.aborted) return CANCELLED;
      logger.error(`The permission handler of ACP run ${id} failed: rejecting`, error);
      decision = "reject";
    } finally {
      clock?.resume();
    }
    return toOutcome(decision, options, logger);
  }

  /**
   * `permission: "ask"`: the request goes up the tree as an input request
   * (the turn's clock paused meanwhile) and its answer comes back as the
   * option chosen; a refusal picks the agent's reject option, else
   * `cancelled`. The agent withdrawing its request refuses the input request.
   */
  async #askUp(
    params: PermissionParams,
    options: readonly PermissionOptionWire[],
    agentSignal: AbortSignal,
  ): Promise<{ outcome: PermissionOutcome; reason?: string }> {
    const { id, session } = this.#run;
    const logger = session.logger;
    const offered = askOptions(options, logger);
    if (offered.length === 0) {
      logger.warn(
        `ACP run ${id}: the agent's permission request offers no option one can pick: answering cancelled`,
      );
      return { outcome: CANCELLED };
    }
    const toolCall = toolCallInfo(this.#known!.complete(params.toolCall));
    const before = new Set(this.#inputs.pending.map((r) => r.id));
    let answering: Promise<SubagentInputAnswer>;
    try {
      answering = this.#inputs.ask(permissionAsk(session.settings.provider, toolCall, offered));
    } catch (error) {
      logger.error(`ACP run ${id}: cannot ask for permission: refusing`, error);
      const reason = `the permission request could not be asked: ${messageOf(error)}`;
      return { outcome: answerOutcome({ outcome: "refused", reason }, offered), reason };
    }
    // None when a listener answered at once.
    const asked = this.#inputs.pending.find((r) => !before.has(r.id));
    const withdraw = () => {
      if (asked && this.#inputs.pending.includes(asked)) {
        this.#inputs.respond(asked.id, {
          outcome: "refused",
          reason: "the ACP agent withdrew its permission request",
        });
      }
    };
    const clock = this.#run.clock();
    clock?.pause();
    agentSignal.addEventListener("abort", withdraw, { once: true });
    let answer: SubagentInputAnswer;
    try {
      answer = await answering;
    } finally {
      agentSignal.removeEventListener("abort", withdraw);
      clock?.resume();
    }
    return {
      outcome: answerOutcome(answer, offered),
      ...(answer.outcome === "refused" ? { reason: answer.reason } : {}),
    };
  }
}

/** The tool call as the agent sent it, a frozen JSON copy (`null` if it is no object). */
function rawToolCall(value: unknown): JsonValue {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  try {
    return frozenJsonCopy(value, "toolCall");
  } catch {
    return null;
  }
}

function toolCallOf(value: unknown): AcpToolCall {
  const update = fromAcpUpdate({ ...(value as object), sessionUpdate: "tool_call_update" });
  return update?.kind === "tool-call-update" ? update.toolCall : { toolCallId: "" };
}
