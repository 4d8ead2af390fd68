import type { SubagentBudget, SubagentBudgetMeter } from "./budget.ts";
import type { SubagentInputAnswerInput } from "./input.ts";
import type { AgentRef, ContentBlock, ContentInput, JsonValue, ZodLikeSchema } from "@seam/host";
import { freeze } from "./_builtins.ts";

/**
 * Start-time features a provider supports. The service checks them before a
 * child exists: a request using a feature whose flag is `false` is rejected
 * with `UNSUPPORTED_CAPABILITY`, never accepted and ignored.
 */
export interface SubagentCapabilities {
  /** Honours `outputSchema`: the result carries a `structured` value matching it. */
  readonly outputSchema: boolean;
  /** Honours `maxDepth`: an absolute cap on the child's delegation depth. */
  readonly depthLimit: boolean;
  /** Honours `toolFilter`: the child sees only the allowed tools. */
  readonly toolFilter: boolean;
  /** Honours `persona`: the child's persona section for this run only. */
  readonly persona: boolean;
  /**
   * Honours `budget` (see {@linkcode SubagentBudget}): the provider charges
   * what its child uses to `request.budgetMeter` (or reports it in the
   * result's `usage`, or has the remote enforce it). Optional in a
   * declaration: absent is `false`. A run under a budget (its own, or one
   * inherited from its parent run) on a provider without it is refused.
   */
  readonly budget?: boolean;
}

/** Which tools a child may use. At least one list is given. */
export interface SubagentToolFilter {
  /** Only these tools (an empty list means no tools at all). */
  readonly allow?: readonly string[];
  /** Never these tools. */
  readonly deny?: readonly string[];
}

/** Per-child agent options. */
export interface SubagentAgentOptions {
  /** The model the child runs on; default: the parent's. */
  readonly model?: string;
}

/**
 * A JSON Schema in the supported subset, rooted at `type: "object"`. See
 * `checkOutputSchema` for the keywords it may use.
 */
export type OutputSchema = { readonly [keyword: string]: JsonValue };

/** What a caller passes to `SubagentService.start`. */
export interface SubagentStartRequest {
  /** The task: a string (one text block) or content blocks. */
  readonly prompt: ContentInput;
  /** The delegating agent; it owns the run, the run's events land in its scope. */
  readonly parent: AgentRef;
  /** Aborting it cancels the run (an already-aborted signal too). */
  readonly signal?: AbortSignal;
  /** Per-child agent options. */
  readonly agentOptions?: SubagentAgentOptions;
  /**
   * Ask for a structured result (needs `capabilities.outputSchema`): an
   * object-rooted JSON Schema, or a zod 4 schema (converted to JSON Schema
   * with `toJsonSchema` from `@seam/host`; the provider gets the JSON Schema).
   */
  readonly outputSchema?: OutputSchema | ZodLikeSchema;
  /** Absolute cap on the child's depth (needs `capabilities.depthLimit`). */
  readonly maxDepth?: number;
  /** Restrict the child's tools (needs `capabilities.toolFilter`). */
  readonly toolFilter?: SubagentToolFilter;
  /** The child's persona (needs `capabilities.persona`). */
  readonly persona?: string;
  /**
   * What the run and its subtree may use (needs `capabilities.budget`). The
   * run gets the smaller, limit by limit, of this and what its parent run's
   * budget has left; a run under a budgeted parent is budgeted even without
   * one. Running out ends the run `budget-exhausted`.
   */
  readonly budget?: SubagentBudget;
  /**
   * A short label for the task (the `subagent` tool passes its call's
   * `description`): descriptive only, carried by the run's events. A
   * non-empty string of at most 200 characters.
   */
  readonly label?: string;
}

/**
 * Where a run sits in the delegation tree, as the service works it out at
 * `start`: the part every `subagent/start`, `subagent/end` and
 * `subagent/progress` of the run carries. Frozen.
 */
export interface SubagentRunPlace {
  /** The provider's name. */
  readonly provider: string;
  /**
   * The run whose child is the delegating agent, when the service knows it
   * (the parent's id names a live run of this service, as an in-process
   * child's does, or the parent's scope's `DelegationContext` says so);
   * absent for a top-level delegation.
   */
  readonly parentRunId?: string;
  /** The child's depth: a top agent's children are at depth 1. */
  readonly depth: number;
  /** The request's `label`, when given. */
  readonly label?: string;
}

/**
 * What a provider's `start` receives: the service's frozen snapshot of the
 * caller's request. Data fields are detached deep-frozen copies; `parent` and
 * `signal` are the caller's own objects, passed by identity.
 */
export interface SubagentRequest {
  /** The task, as content blocks. */
  readonly prompt: readonly ContentBlock[];
  /** The delegating agent. */
  readonly parent: AgentRef;
  /** The caller's abort signal, when given. */
  readonly signal?: AbortSignal;
  /** Per-child agent options, when given. */
  readonly agentOptions?: SubagentAgentOptions;
  /** The requested output schema, when given (already checked). */
  readonly outputSchema?: OutputSchema;
  /** The requested depth cap, when given (already checked). */
  readonly maxDepth?: number;
  /** The requested tool filter, when given (already checked). */
  readonly toolFilter?: SubagentToolFilter;
  /** The requested persona, when given (already checked). */
  readonly persona?: string;
  /**
   * The run's effective budget, when one applies: the request's, tightened
   * by what the parent run's budget has left (a provider forwarding it, as
   * the A2A provider does to a seam gateway, sends this).
   */
  readonly budget?: SubagentBudget;
  /**
   * Where the provider charges what the child uses, present exactly when
   * `budget` is (see {@linkcode SubagentBudgetMeter}).
   */
  readonly budgetMeter?: SubagentBudgetMeter;
  /** The request's label, when given (already checked). */
  readonly label?: string;
  /**
   * Where the run sits in the tree. Always set by the service; a provider
   * spreads it into the `subagent/progress` it emits (see
   * {@linkcode SubagentProgressInfo}). Absent only when a provider is
   * called directly, without the service.
   */
  readonly place?: SubagentRunPlace;
  /**
   * The run's OpenTelemetry context (an `@opentelemetry/api` `Context`
   * holding its `invoke_agent` span; typed `unknown` so the api's types stay
   * out of this package), set by the service only when the application
   * registered a tracer provider. A provider hands it on: as W3C
   * `traceparent`/`tracestate` over its transport (`propagation.inject`), or
   * as the `TraceParent` of the child's scope (`traceParentKey`).
   */
  readonly traceContext?: unknown;
}

/**
 * What a provider's `resume` receives besides the content: the service's
 * frozen fields for the resumed run, a run of its own. Passed only when one
 * is set (with no tracer provider registered, `resume` gets the content
 * alone).
 */
export interface SubagentResumeRequest {
  /**
   * The resumed run's OpenTelemetry context, holding its own `invoke_agent`
   * span (see {@linkcode SubagentRequest.traceContext}): a provider hands it
   * on as it does the first run's, so the resumed run's work hangs under the
   * resumed run, not under the run it continues.
   */
  readonly traceContext?: unknown;
}

/**
 * Why a run ended. `budget-exhausted`: a budget ran out (the run's own or
 * one above it); the result's `error` is `BUDGET_EXHAUSTED`, naming the
 * limit and the figures, and `output` is what the child said until then.
 */
export type SubagentStopReason =
  | "completed"
  | "aborted"
  | "error"
  | "max-tokens"
  | "refusal"
  | "budget-exhausted";

/** Every stop reason, in a stable order. */
export const SUBAGENT_STOP_REASONS: readonly SubagentStopReason[] = Object
  .freeze([
    "completed",
    "aborted",
    "error",
    "max-tokens",
    "refusal",
    "budget-exhausted",
  ]);

/**
 * The well-known codes of a {@linkcode SubagentFailure}. A provider may use
 * its own code too (upper-case letters, digits and `_`, starting with a
 * letter, at most 64), but one of these where it fits:
 *
 * | code | what went wrong |
 * |---|---|
 * | `START_FAILED` | the child could not be created (no agent, no process, no session, the remote refused the first request) |
 * | `CHILD_FAILED` | the child itself failed: its model or turn errored, an ACP prompt answered an error, a remote task ended `FAILED` |
 * | `NO_STRUCTURED_RESULT` | an `outputSchema` was requested and the child finished without submitting a structured value |
 * | `INVALID_STRUCTURED_RESULT` | the child's structured value does not match the `outputSchema` (a remote's; the service checks local ones) |
 * | `CONNECTION_LOST` | the transport went away mid-run (the process exited, the stream closed and could not be re-attached) |
 * | `TIMEOUT` | a wait the provider bounds ran out (no answer, no event) |
 * | `PROTOCOL_ERROR` | the peer sent what its protocol does not allow (malformed messages, answers to requests never sent) |
 * | `INPUT_REQUIRED` | the child stopped to ask for input it was not given (`resume` may answer it) |
 * | `AUTH_REQUIRED` | the child stopped to ask for authentication, or the remote refused the credentials |
 * | `BUDGET_EXHAUSTED` | a budget ran out (with `stopReason: "budget-exhausted"`); `data` is a `SubagentBudgetExhaustion` (`{limit, budget, used}`) |
 * | `PROVIDER_FAULT` | only in `subagent/end`: the provider broke the run contract or its result rejected |
 * | `UNSPECIFIED` | the provider said `stopReason: "error"` without saying what went wrong (filled in by the service) |
 */
export type SubagentFailureCode =
  | "START_FAILED"
  | "CHILD_FAILED"
  | "NO_STRUCTURED_RESULT"
  | "INVALID_STRUCTURED_RESULT"
  | "CONNECTION_LOST"
  | "TIMEOUT"
  | "PROTOCOL_ERROR"
  | "INPUT_REQUIRED"
  | "AUTH_REQUIRED"
  | "BUDGET_EXHAUSTED"
  | "PROVIDER_FAULT"
  | "UNSPECIFIED";

/** Every well-known {@linkcode SubagentFailureCode}, in a stable order. */
// Marked pure: a bundle that never reads it leaves it out.
export const SUBAGENT_FAILURE_CODES: readonly SubagentFailureCode[] = /* @__PURE__ */ freeze(
  [
    "START_FAILED",
    "CHILD_FAILED",
    "NO_STRUCTURED_RESULT",
    "INVALID_STRUCTURED_RESULT",
    "CONNECTION_LOST",
    "TIMEOUT",
    "PROTOCOL_ERROR",
    "INPUT_REQUIRED",
    "AUTH_REQUIRED",
    "BUDGET_EXHAUSTED",
    "PROVIDER_FAULT",
    "UNSPECIFIED",
  ],
);

/**
 * What went wrong in a run, as data: the result's `error`. It is the
 * provider's (or the service's) diagnosis, never the child's words, which
 * stay in `output`.
 */
export interface SubagentFailure {
  /**
   * A stable, machine-readable code: one of {@linkcode SubagentFailureCode}
   * or the provider's own (`/^[A-Z][A-Z0-9_]{0,63}$/`).
   */
  readonly code: SubagentFailureCode | (string & Record<never, never>);
  /** What happened, for a person (or the parent model) to read. Non-empty. */
  readonly message: string;
  /** Details a program may use (a status code, the remote state), as JSON. */
  readonly data?: JsonValue;
}

/** What a run (or a subtree of runs) used. Frozen. */
export interface SubagentUsageFigures {
  /** Tokens read by model calls. */
  readonly inputTokens: number;
  /** Tokens produced by model calls. */
  readonly outputTokens: number;
  /** Of the tokens read, those served from a prompt cache (0 when none were reported). */
  readonly cachedInputTokens: number;
  /** Model calls made. */
  readonly modelCalls: number;
  /** Tool calls executed. */
  readonly toolCalls: number;
  /**
   * Milliseconds: in `self`, from `start` to settlement (the service's own
   * clock); in `total`, the sum over the run and its descendants (busy time,
   * not elapsed time: children running in parallel add up).
   */
  readonly wallTimeMs: number;
}

/**
 * A run's usage: its own and rolled up over its descendants. The service
 * always sets it; `partial` says some figure is missing.
 */
export interface SubagentUsage {
  /** The child's own model and tool use. */
  readonly self: SubagentUsageFigures;
  /** `self` plus every descendant's, as far as they reported. */
  readonly total: SubagentUsageFigures;
  /**
   * Some leg did not report: the provider gave no usage (an ACP agent, an
   * A2A agent that is no seam gateway), a model call finished without
   * usage, or a descendant's usage was partial. The figures are then lower
   * bounds.
   */
  readonly partial: boolean;
}

/**
 * What a provider reports of a run's usage in its result (`wallTimeMs` is
 * the service's). Absent counts are 0; absent `usage` makes the result's
 * usage partial.
 */
export interface SubagentUsageInput {
  /** The child's own figures. */
  readonly self: Partial<Omit<SubagentUsageFigures, "wallTimeMs">>;
  /**
   * The child's subtree, when the provider knows it (a remote seam gateway's
   * rolled-up total). Default: `self`. Local descendants are added by the
   * service either way.
   */
  readonly total?: Partial<SubagentUsageFigures>;
  /** Some of the provider's figures are missing. */
  readonly partial?: boolean;
}

/**
 * How a run ended. A child-level failure (the model failed, the process
 * died) is `stopReason: "error"` with an `error` saying what went wrong,
 * never a rejection.
 */
export interface SubagentResult {
  /** The child's final output: its own words only, never a diagnostic. */
  readonly output: readonly ContentBlock[];
  /** The structured value, when an `outputSchema` was requested and met. */
  readonly structured?: JsonValue;
  /** Why the run ended. */
  readonly stopReason: SubagentStopReason;
  /**
   * What went wrong. Always present when `stopReason` is `"error"` (the
   * service fills in `UNSPECIFIED` when the provider gave none); may be
   * present for `aborted`, `max-tokens` and `refusal`; always for
   * `budget-exhausted` (`BUDGET_EXHAUSTED`); never for
   * `completed`.
   */
  readonly error?: SubagentFailure;
  /**
   * What the run used, its own and over its descendants. Always set by the
   * service (a result built by hand may lack it).
   */
  readonly usage?: SubagentUsage;
}

/**
 * What a provider returns from `start`. Whatever the provider returns may be
 * malformed; the service checks it and calls `result` whatever `stopReason`
 * in the shape of a {@linkcode SubagentResult} (`output` may also be a
 * string, which becomes one text block).
 */
export interface SubagentRunHandle {
  /** The run's id (for in-process children: the child agent's id). */
  readonly id: string;
  /** Fulfils once a real child exists; rejects if that fails or is cancelled first. */
  readonly started: Promise<void>;
  /** The terminal outcome. */
  readonly result: Promise<SubagentResultInput>;
  /** Ask the child to stop; the run ends `aborted`. Idempotent. */
  cancel(reason?: string): void;
  /** Tear the child down (its session, its process). Idempotent. */
  dispose(): Promise<void>;
  /** Steer a running child with another user message. */
  sendMessage?(content: ContentInput): Promise<void>;
  /**
   * Continue a finished child, its context kept, as a new run. `request`
   * carries what the service set for the new run (see
   * {@linkcode SubagentResumeRequest}); it is absent when there is nothing
   * to carry.
   */
  resume?(content: ContentInput, request?: SubagentResumeRequest): SubagentRunHandle;
  /**
   * Answer one of the run's pending input requests (see `SubagentInputs`);
   * throws for an unknown, stale or malformed answer.
   */
  respond?(requestId: string, answer: SubagentInputAnswerInput): void;
}

/**
 * A provider's result before the service normalizes it. Unknown fields of
 * an output block are dropped (and logged); unknown fields of `error` are
 * dropped; anything else malformed rejects the result as a contract fault.
 */
export interface SubagentResultInput {
  /** The child's final output, as blocks or text: its own words only. */
  readonly output: ContentInput;
  /** The structured value, when one was requested. */
  readonly structured?: JsonValue;
  /** Why the run ended. */
  readonly stopReason: SubagentStopReason;
  /** What went wrong (see {@linkcode SubagentResult.error}); not with `completed`. */
  readonly error?: SubagentFailure;
  /** What the run used, when the provider knows (absent: the usage is partial). */
  readonly usage?: SubagentUsageInput;
}

/**
 * A run as the service hands it out: frozen, its fields captured once. The
 * caller MUST `dispose()` it on every path.
 */
export interface SubagentRun {
  /** The run's id. */
  readonly id: string;
  /** The provider's name. */
  readonly provider: string;
  /** Fulfils once a real child exists; rejects if that fails or is cancelled first. */
  readonly started: Promise<void>;
  /** The deeply frozen normalized outcome, shared with telemetry. */
  readonly result: Promise<SubagentResult>;
  /** Ask the child to stop. */
  cancel(reason?: string): void;
  /** Tear the child down; memoized. */
  dispose(): Promise<void>;
  /** Present when the provider can steer a running child. */
  readonly sendMessage?: (content: ContentInput) => Promise<void>;
  /** Present when the provider can continue a finished child. */
  readonly resume?: (content: ContentInput) => SubagentRun;
  /**
   * Present when the provider takes answers to the run's input requests
   * (`subagent/input-required`): answer one by its id. Throws for a request
   * that no longer waits, an option not offered or a malformed answer (the
   * request keeps waiting). A bound function, like every member here.
   */
  respond?(requestId: string, answer: SubagentInputAnswerInput): void;
}

/** One transport for running a child. */
export interface SubagentProvider {
  /** The unique name callers pick it by (`spawn`, `fork`, `acp`, …). */
  readonly name: string;
  /** Start-time features it supports. */
  readonly capabilities: SubagentCapabilities;
  /** Whether the child sees the parent's conversation (descriptive only). */
  readonly inheritsParentContext: boolean;
  /** Start a run. Must return synchronously. */
  start(request: SubagentRequest): SubagentRunHandle;
  /**
   * Release what the provider holds across runs (a warm process, a
   * connection pool), so a program can end. Optional. The service calls it
   * once, when the registration ends (the registering scope is disposed, or
   * the disposer `registerProvider` returned is called), after it has ended
   * the provider's live runs (`aborted`) and disposed them. A registration
   * owns its provider: register a provider once, or make `dispose`
   * tolerate a later use.
   */
  dispose?(): void | Promise<void>;
}

/**
 * The service's frozen snapshot of a registered provider. It has no
 * `dispose`: only the registration disposes the provider.
 */
export interface RegisteredSubagentProvider extends Omit<SubagentProvider, "dispose"> {
  /** The accepted capabilities, frozen, every flag present (`budget` too). */
  readonly capabilities: Readonly<Required<SubagentCapabilities>>;
}

/** Payload of `subagent/provider-removed`. */
export interface SubagentProviderRemovedInfo {
  /** The accepted name of the provider that went away. */
  readonly name: string;
}

/** Payload of `subagent/start`. */
export interface SubagentRunInfo extends SubagentRunPlace {
  /** The run's id (for spawn and fork: the child agent's id). */
  readonly runId: string;
  /** The delegating agent's id. */
  readonly parentId: string;
  /** The task, as given to the provider. */
  readonly prompt: readonly ContentBlock[];
  /** Whether the child sees the parent's conversation. */
  readonly inheritsParentContext: boolean;
  /**
   * The run's budget when one applies: each limit the tighter of what it
   * asked and what the budgets above it had left when it started.
   */
  readonly budget?: SubagentBudget;
}

/** What a nested run used, as its provider last heard (a floor: what was reported). */
export interface SubagentNestedRunUsage {
  /** Tokens read (an ACP child session's context size). */
  readonly inputTokens: number;
  /** Tokens produced (0 when not reported). */
  readonly outputTokens: number;
  /** Tool calls made. */
  readonly toolCalls: number;
}

/**
 * Payload of `subagent/nested-run`: a run a provider reports below its own
 * (an ACP agent's child session, a remote gateway's descendant), as it is
 * now. Deeply frozen.
 */
export interface SubagentNestedRunInfo {
  /** Its id: `<run id>.<n>` of the run the caller holds. */
  readonly runId: string;
  /** The run above it (the run the caller holds, or another nested run). */
  readonly parentRunId: string;
  /** The reporting provider's name. */
  readonly provider: string;
  /** Its depth: one below its parent's. */
  readonly depth: number;
  /** Its title, when the agent gave one. */
  readonly title?: string;
  /**
   * `"running"`, `"idle"`, `"needs-action"` (blocked on a user), or the
   * agent's own word (cut to 64 characters); absent when never said.
   */
  readonly state?: string;
  /** What it used so far. */
  readonly usage: SubagentNestedRunUsage;
  /** Whether `findRunControl` can cancel it now. */
  readonly cancellable: boolean;
}

/** Payload of `subagent/end`. */
export interface SubagentRunEndInfo extends SubagentRunInfo {
  /**
   * What the run used (the result's `usage`), on a valid settle; without
   * one, only the wall time, partial.
   */
  readonly usage: SubagentUsage;
  /** The normalized result, when the run settled validly. */
  readonly result?: SubagentResult;
  /**
   * Why the run ended: the result's stop reason, or `"error"` when the
   * result rejected (an infrastructure or contract fault). Always present.
   */
  readonly stopReason: SubagentStopReason;
  /** The child's final output, when the run settled validly. */
  readonly lastAssistantMessage?: readonly ContentBlock[];
  /**
   * What went wrong: the result's `error` on a valid settle, or
   * `{code: "PROVIDER_FAULT", message}` when the result rejected.
   */
  readonly error?: SubagentFailure;
  /** Milliseconds from `start` to settlement. */
  readonly durationMs: number;
}

/** What kind of progress a running child reported. */
export type SubagentProgressKind =
  | "text"
  | "thought"
  | "tool-call"
  | "tool-result"
  | "plan"
  | "remote";

/**
 * Where a run went over the network (`subagent/progress` of kind `remote`):
 * the agent it runs on and its task there, told once the remote task exists.
 */
export interface SubagentRemoteHop {
  /** The remote agent's card URL, when the provider was given one. */
  readonly url?: string;
  /** The remote agent's name, from its card. */
  readonly agentName: string;
  /** The run's task on the remote agent. */
  readonly taskId: string;
}

/**
 * Payload of `subagent/progress`: something a running child did, emitted by
 * the provider in the delegating parent's scope while the run is live.
 * Progress is never output: the output is the result's.
 *
 * A provider spreads its request's `place` into each one, so progress says
 * where it is in the tree like `subagent/start` does (`provider`, `depth`,
 * `parentRunId`, `label`); these fields are absent only when a provider
 * does not (a provider written before they existed).
 */
export interface SubagentProgressInfo extends Partial<SubagentRunPlace> {
  /** The run's id. */
  readonly runId: string;
  /** What happened. */
  readonly kind: SubagentProgressKind;
  /** Streamed text (for `text` and `thought`), a plan's text, or a tool result's text. */
  readonly text?: string;
  /** The tool's name (for `tool-call` and `tool-result`). */
  readonly name?: string;
  /** The tool call's id (for `tool-call` and `tool-result`). */
  readonly callId?: string;
  /** Where the run went (for `remote`). */
  readonly remote?: SubagentRemoteHop;
}
