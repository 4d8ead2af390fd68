import type { Agent } from "./agent.ts";
import type { ContentBlock, ContentInput } from "./content.ts";
import type { JsonSchema } from "./json_schema.ts";
import type { JsonValue } from "./json.ts";
import type { ToolSpec } from "./model.ts";
import type { Scope } from "./scope.ts";

/**
 * A zod 4 schema, seen structurally so no zod type leaks into the API. Any
 * object with zod 4's `_zod` marker and a `safeParse` method qualifies.
 */
export interface ZodLikeSchema {
  /** zod 4's internal marker (read only to recognise the schema). */
  readonly _zod: unknown;
  /** zod's non-throwing parse. */
  safeParse(value: unknown): unknown;
}

/** What a tool's `execute` receives beside its arguments. */
export interface ToolCallContext {
  /** The agent whose model made the call. */
  readonly agent: Agent;
  /** Aborted when the agent's turn is cancelled or the agent disposed. */
  readonly signal: AbortSignal;
  /** The model's id for this call. */
  readonly callId: string;
}

/** What a tool returns. */
export interface ToolResult {
  /** The result, for the model (a string is one text block). */
  readonly content: ContentInput;
  /** Whether the call failed (the model sees an error result). */
  readonly isError?: boolean;
  /** End the agent's turn after this step (structured-output capture). */
  readonly stopTurn?: boolean;
}

/**
 * A tool an agent's model may call. `A` is the type of the validated
 * arguments `execute` receives (annotate `execute`'s parameter to set it).
 */
export interface Tool<A = unknown> {
  /** The name the model calls it by (`[A-Za-z0-9_-]{1,64}`). */
  readonly name: string;
  /** What it does, for the model. */
  readonly description: string;
  /**
   * Its arguments: an object-rooted JSON Schema (standard JSON Schema, see
   * {@linkcode checkJsonSchema}), or a zod 4 schema (converted with
   * `z.toJSONSchema` for the model and validated with `safeParse`).
   */
  readonly parameters: JsonSchema | ZodLikeSchema;
  /**
   * Run the call with validated arguments: the model's (deeply frozen) JSON
   * for a JSON Schema, zod's parsed output for a zod schema. A throw or
   * rejection becomes a `TOOL_FAILED` error result. Honour `call.signal`.
   */
  execute(args: A, call: ToolCallContext): ToolResult | Promise<ToolResult>;
  /**
   * Whether a call needs approval before it runs: `true` for every call, or
   * a predicate over the validated arguments (a throw counts as "cannot
   * tell", and the call is not run). Default: no approval. A call that needs
   * it runs only once the nearest approver up the agent's scopes (see
   * {@linkcode ToolRegistry.approve}) said yes; anything else (a refusal, no
   * approver anywhere, a failing approver) is a `NOT_APPROVED` error result
   * the model sees. A subagent provider installs an approver per child that
   * asks up the delegation tree (`@seam/subagent`'s input requests).
   */
  readonly requiresApproval?: boolean | ((args: A) => boolean);
  /**
   * What kind of action the tool performs, shown with approval requests:
   * ACP's tool kinds `read`, `edit`, `delete`, `move`, `search`, `execute`,
   * `think`, `fetch`, `other` (any name of up to 64 characters is kept).
   */
  readonly kind?: string;
  /**
   * A title for one call, shown with approval requests (`Run "deno test"`).
   * Default (or when it throws or returns no text): the tool's name and its
   * arguments as JSON, clipped.
   */
  readonly title?: (args: A) => string;
}

/** A tool as registered: its name, description and the spec the model sees. */
export interface RegisteredTool {
  /** The tool's name. */
  readonly name: string;
  /** What the model is told (parameters converted to JSON Schema). */
  readonly spec: ToolSpec;
  /** The scope that owns the registration. */
  readonly scope: Scope;
}

/** A call to execute through {@linkcode ToolRegistry.execute}. */
export interface ToolCall {
  /** The model's id for the call. */
  readonly id: string;
  /** The tool's name. */
  readonly name: string;
  /** The arguments, as JSON (unvalidated). */
  readonly args: JsonValue;
}

/**
 * Why a call failed before or while running:
 * - `UNKNOWN_TOOL`: no visible tool has that name (hidden by a restriction too);
 * - `INVALID_ARGS`: the arguments failed the tool's schema (the issues are listed);
 * - `DENIED`: a guard refused the call;
 * - `NOT_APPROVED`: the tool requires approval and the call did not get it
 *   (refused, no approver, or the approver failed);
 * - `TOOL_FAILED`: the tool threw or returned a malformed result;
 * - `ABORTED`: the turn was cancelled before the call finished.
 */
export type ToolErrorCode =
  | "UNKNOWN_TOOL"
  | "INVALID_ARGS"
  | "DENIED"
  | "NOT_APPROVED"
  | "TOOL_FAILED"
  | "ABORTED";

/** How a call ended. {@linkcode ToolRegistry.execute} never rejects. */
export interface ToolOutcome {
  /** The call's id. */
  readonly callId: string;
  /** The tool's name, as called. */
  readonly name: string;
  /** What the model sees. */
  readonly content: readonly ContentBlock[];
  /** Whether it is an error result. */
  readonly isError: boolean;
  /** Whether the tool asked to end the turn. */
  readonly stopTurn: boolean;
  /** Set when the runtime made the error result (not the tool itself). */
  readonly code?: ToolErrorCode;
}

/** Which tools stay visible below a scope. At least one list is given. */
export interface ToolFilter {
  /** Only these (an empty list hides every inherited tool). */
  readonly allow?: readonly string[];
  /** Never these. */
  readonly deny?: readonly string[];
}

/** What a guard sees of a call. */
export interface ToolGuardCall {
  /** The calling agent. */
  readonly agent: Agent;
  /** The call's id. */
  readonly callId: string;
  /** The tool's name. */
  readonly name: string;
  /** The validated arguments. */
  readonly args: unknown;
}

/** A guard's verdict: nothing allows the call, `{deny}` refuses it with a reason. */
export type ToolGuardDecision = void | undefined | { readonly deny: string };

/**
 * Consulted before each tool call of an agent in the guard's scope subtree.
 * A throw (or rejection) denies the call too.
 */
export type ToolGuard = (
  call: ToolGuardCall,
) => ToolGuardDecision | Promise<ToolGuardDecision>;

/** What an approver is asked about a call whose tool requires approval. */
export interface ToolApprovalRequest {
  /** The calling agent. */
  readonly agent: Agent;
  /** The call's id. */
  readonly callId: string;
  /** The tool's name. */
  readonly name: string;
  /** The validated arguments (what `execute` would receive). */
  readonly args: unknown;
  /** The arguments as the model gave them (JSON). */
  readonly rawInput: JsonValue;
  /** A title for a person: the tool's `title(args)`, or its name and arguments. */
  readonly title: string;
  /** The tool's `kind`, when it declares one. */
  readonly kind?: string;
  /** Aborts when the call is cancelled (the turn cancelled, the agent disposed). */
  readonly signal: AbortSignal;
}

/**
 * An approver's verdict: only `{approved: true}` lets the call run;
 * `{approved: false, reason}` refuses it (the model sees the reason).
 */
export type ToolApprovalDecision =
  | { readonly approved: true }
  | { readonly approved: false; readonly reason: string };

/**
 * Decides whether a call that needs approval may run. A throw or a
 * rejection refuses the call; a verdict after the call's signal aborted is
 * ignored (the call ends `ABORTED`).
 */
export type ToolApprover = (
  request: ToolApprovalRequest,
) => ToolApprovalDecision | Promise<ToolApprovalDecision>;

/**
 * The host's tools. Registrations, restrictions and guards belong to a scope
 * and apply to that scope's subtree.
 *
 * Visibility: a tool registered in scope S is visible from scope X when S is
 * X or one of its ancestors, and every restriction registered in a scope on
 * the path from X up to (but excluding) S lets its name through. So tools
 * registered in a restricted scope itself, or below it, stay visible;
 * restrictions along the chain intersect. Visible tools are listed from the
 * farthest ancestor's to the nearest scope's, each scope's in registration
 * order.
 */
export interface ToolRegistry {
  /**
   * Register `tool` in `scope`. The tool is read once; later changes to the
   * object have no effect. Returns the disposer.
   *
   * @throws {TypeError} for a malformed tool, a parameter schema
   * {@linkcode checkJsonSchema} refuses, or a name already registered in `scope` or an ancestor.
   */
  register<A>(scope: Scope, tool: Tool<A>): () => Promise<void>;
  /**
   * Restrict the tools inherited by `scope`'s subtree. Returns the disposer.
   *
   * @throws {TypeError} for an empty filter or malformed lists.
   * @throws {RangeError} naming every listed name no tool in `scope`'s
   * ancestry is registered under.
   */
  restrict(scope: Scope, filter: ToolFilter): () => Promise<void>;
  /** Consult `guard` before each call in `scope`'s subtree. Returns the disposer. */
  guard(scope: Scope, guard: ToolGuard): () => Promise<void>;
  /**
   * Decide the calls in `scope`'s subtree whose tool requires approval (see
   * {@linkcode Tool.requiresApproval}): the approver of the nearest scope up
   * the calling agent's scopes decides, after the guards allowed the call.
   * With none anywhere such a call is not run (`NOT_APPROVED`): never
   * silently allowed. One approver per scope. Returns the disposer.
   *
   * @throws {TypeError} for an approver that is not a function, or when
   * `scope` already has one.
   */
  approve(scope: Scope, approver: ToolApprover): () => Promise<void>;
  /**
   * The tools visible from `scope`.
   *
   * @throws {TypeError} when two visible tools share a name (an ancestor
   * registered a name after a descendant did).
   */
  visible(scope: Scope): RegisteredTool[];
  /**
   * Run one call of `agent`'s model: find the visible tool, validate the
   * arguments, consult the guards (nearest scope first), ask for approval
   * when the tool requires it, execute. Never rejects: every failure is an
   * error outcome with a `code`.
   */
  execute(agent: Agent, call: ToolCall, signal: AbortSignal): Promise<ToolOutcome>;
}
