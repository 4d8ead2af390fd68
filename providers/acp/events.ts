import { type ContentBlock, defineEvent, type EventKey, type JsonValue } from "@seam/host";

/** What every {@linkcode AcpUpdate} carries. */
export interface AcpUpdateBase {
  /** ACP's own name of the update (`"agent_message_chunk"`, `"tool_call"`, …). */
  readonly type: string;
  /** The update object exactly as the agent sent it (a frozen JSON copy). */
  readonly raw: JsonValue;
}

/** A chunk of the agent's reply (`agent_message_chunk`): this is the run's output. */
export interface AcpMessageUpdate extends AcpUpdateBase {
  /** Discriminator. */
  readonly kind: "message";
  /** The chunk as content blocks (empty when its kind has no block equivalent). */
  readonly content: readonly ContentBlock[];
}

/** A chunk of the agent's reasoning (`agent_thought_chunk`): progress, not output. */
export interface AcpThoughtUpdate extends AcpUpdateBase {
  /** Discriminator. */
  readonly kind: "thought";
  /** The chunk as content blocks. */
  readonly content: readonly ContentBlock[];
}

/** A tool call the agent reported. */
export interface AcpToolCall {
  /** The agent's id of the call; updates of the same call share it. */
  readonly toolCallId: string;
  /** A human-readable title, when given. */
  readonly title?: string;
  /** ACP's tool kind (`"read"`, `"edit"`, `"execute"`, …), when given. */
  readonly toolKind?: string;
  /** `"pending"`, `"in_progress"`, `"completed"` or `"failed"`, when given. */
  readonly status?: string;
}

/** A new tool call (`tool_call`) or a change to one (`tool_call_update`). */
export interface AcpToolCallUpdate extends AcpUpdateBase {
  /** Discriminator: `"tool-call"` for a new call, `"tool-call-update"` for a change. */
  readonly kind: "tool-call" | "tool-call-update";
  /** The call (for an update, only the fields that changed besides the id). */
  readonly toolCall: AcpToolCall;
}

/** One entry of an agent's plan. */
export interface AcpPlanEntry {
  /** What the step is. */
  readonly content: string;
  /** `"high"`, `"medium"` or `"low"`. */
  readonly priority: string;
  /** `"pending"`, `"in_progress"` or `"completed"`. */
  readonly status: string;
}

/** The agent's current plan (`plan`), replacing any earlier one. */
export interface AcpPlanUpdate extends AcpUpdateBase {
  /** Discriminator. */
  readonly kind: "plan";
  /** Every entry of the plan, in order. */
  readonly entries: readonly AcpPlanEntry[];
}

/** Any other update (usage, modes, commands, …): see `type` and `raw`. */
export interface AcpOtherUpdate extends AcpUpdateBase {
  /** Discriminator. */
  readonly kind: "other";
}

/** One `session/update` of the child agent, in our own terms. */
export type AcpUpdate =
  | AcpMessageUpdate
  | AcpThoughtUpdate
  | AcpToolCallUpdate
  | AcpPlanUpdate
  | AcpOtherUpdate;

/** Payload of {@linkcode acpUpdate}. Deeply frozen. */
export interface AcpUpdateInfo {
  /** The run the update belongs to (the id of the run the caller holds). */
  readonly runId: string;
  /** The provider's name. */
  readonly provider: string;
  /** The delegating agent's id. */
  readonly parentId: string;
  /** The agent's ACP session id. */
  readonly sessionId: string;
  /** The update. */
  readonly update: AcpUpdate;
}

/**
 * `acp/update`: emitted on the delegating parent's scope
 * (`request.parent.scope`) for every `session/update` the child agent sends
 * while a run is live — message chunks, thoughts, tool calls, plans and the
 * rest — in the order the agent sent them, from `start` (updates sent before
 * the agent answered `session/new` included) until the run's `result`
 * settles; nothing after a cancel. Only `agent_message_chunk`s sent during
 * the prompt turn make the run's output. Listen on the parent's scope or any
 * ancestor; no payload is built when nobody listens.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { acpUpdate } from "@seam/subagent-acp";
 *
 * const root = createRootScope();
 * root.on(acpUpdate, ({ runId, update }) => {
 *   if (update.kind === "tool-call") console.log(runId, "calls", update.toolCall.title);
 * });
 * await root.dispose();
 * ```
 */
export const acpUpdate: EventKey<AcpUpdateInfo> = defineEvent<AcpUpdateInfo>("acp/update");

/** Payload of {@linkcode acpPlan}. */
export interface AcpPlanInfo {
  /** The agent whose plan it is (a session agent of {@linkcode serveAcpAgent}). */
  readonly agentId: string;
  /** Every entry of the plan, in order; it replaces any earlier plan. */
  readonly entries: readonly AcpPlanEntry[];
}

/**
 * `acp/plan`: an agent's current plan, for {@linkcode serveAcpAgent} to send
 * to its client as a `plan` update. Emit it in a session agent's scope while
 * it runs a prompt turn (a planning tool does: see
 * {@linkcode createAcpPlanTool}); a plan emitted between turns is dropped
 * (ACP sends updates within a turn).
 *
 * @example A tool that reports a one-step plan
 * ```ts
 * import type { Tool } from "@seam/host";
 * import { acpPlan } from "@seam/subagent-acp";
 *
 * const tool: Tool<{ step: string }> = {
 *   name: "announce",
 *   description: "Announce the next step",
 *   parameters: { type: "object", properties: { step: { type: "string" } }, required: ["step"] },
 *   execute({ step }, call) {
 *     call.agent.scope.emit(acpPlan, {
 *       agentId: call.agent.id,
 *       entries: [{ content: step, priority: "high", status: "in_progress" }],
 *     });
 *     return { content: "announced" };
 *   },
 * };
 * ```
 */
export const acpPlan: EventKey<AcpPlanInfo> = defineEvent<AcpPlanInfo>("acp/plan");
