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

/**
 * What an ACP agent said of one of its child sessions (ACP's unstable
 * `subagent_update`): `"running"`, `"idle"`, `"needs-action"` (its
 * `requires_action`: blocked on a user), `"unknown"`, or the agent's own
 * word (cut to 64 characters); `undefined` when unset or cleared.
 */
export type AcpChildState = string;

/**
 * Payload of {@linkcode acpChild}. Deeply frozen.
 *
 * @deprecated See `SubagentNestedRunInfo` of `@seam/subagent`.
 */
export interface AcpChildInfo {
  /** The nested run's id: `<run id>.<n>`, numbered as the agent announces its children. */
  readonly runId: string;
  /** The run (or nested run) whose session announced it. */
  readonly parentRunId: string;
  /** The run the caller holds, at the top of the tree. */
  readonly rootRunId: string;
  /** The provider's name. */
  readonly provider: string;
  /** The child's depth: one below its parent's (a top-level run is at depth 1). */
  readonly depth: number;
  /** The child's ACP session id (cut to 200 characters). */
  readonly sessionId: string;
  /** The agent's title for the child, when given. */
  readonly title?: string;
  /** The child's state, as the agent last said. */
  readonly state?: AcpChildState;
  /** Whether the agent lets its client cancel the child's work (`capabilities.cancel`). */
  readonly cancellable: boolean;
  /** What the child used, as its own updates say: context tokens (`usage_update`) and tool calls. */
  readonly usage: { readonly contextTokens: number; readonly toolCalls: number };
  /** The run at the top ended: nothing more is told of this child. */
  readonly ended: boolean;
}

/**
 * `acp/child`: emitted on the delegating parent's scope when the child agent
 * announces one of its own child sessions (ACP's unstable `subagent_update`;
 * the provider advertises the `subagents` client capability), when that
 * child's state, title or usage changes, and once more with `ended: true`
 * when the run at the top ends. At most 256 children per session are
 * followed.
 *
 * @deprecated Listen for `subagentNestedRun` of `@seam/subagent` (or with
 * its `onSubagentNestedRun`): the same nested runs, of every provider that
 * reports them (an A2A gateway's descendants too), with usage in the
 * service's terms; their start and end are `subagent/start` and
 * `subagent/end`. `acp/child` is still told alongside it.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { onSubagentNestedRun } from "@seam/subagent";
 * const root = createRootScope();
 * onSubagentNestedRun(root, ({ runId, parentRunId, state, usage }) => {
 *   console.log(runId, "under", parentRunId, state, usage.inputTokens);
 * });
 * await root.dispose();
 * ```
 */
export const acpChild: EventKey<AcpChildInfo> = defineEvent<AcpChildInfo>("acp/child");
