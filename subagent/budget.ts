/**
 * Budgets: what a run, and the subtree of runs below it, may use. A budget
 * only tightens down the tree: a child's budget is the smaller, limit by
 * limit, of what its request asks and what its parent run has left.
 *
 * @module
 */
import { BrandedRangeError, describe, isRecord } from "@seam/host";
import { assertSubagentMaxDepth } from "./max_depth.ts";
import { cannot } from "./_invalid.ts";
import { freeze, isArray } from "./_builtins.ts";

/**
 * Limits on what a run may use, counting the run and every run below it
 * (its subtree). Each limit is optional; an absent one is no limit. A
 * request's budget names at least one.
 *
 * - `tokens`: input plus output tokens of model calls (cached input tokens
 *   are part of the input); the model call that goes beyond the limit ends
 *   the run.
 * - `wallTimeMs`: milliseconds from `start` until the run settles (the
 *   run's own clock: children running in parallel do not add up). Time
 *   spent waiting for the answer to an input request does not count.
 * - `toolCalls`: tool calls; the call beyond the limit is refused and ends
 *   the run.
 * - `children`: runs started below this one, at any depth, in total; the
 *   start beyond it throws a {@linkcode SubagentBudgetError} before any
 *   child exists.
 * - `liveChildren`: runs below this one, at any depth, live at once
 *   (started and not yet settled); the same error when a start would go
 *   beyond it.
 */
export interface SubagentBudget {
  /** Input plus output tokens of model calls (a non-negative safe integer). */
  readonly tokens?: number;
  /** Milliseconds of wall time (a non-negative number, at most 2,147,483,647). */
  readonly wallTimeMs?: number;
  /** Tool calls (a non-negative safe integer). */
  readonly toolCalls?: number;
  /** Runs started below, at any depth, in total (a non-negative safe integer). */
  readonly children?: number;
  /** Runs below, at any depth, live at once (a non-negative safe integer). */
  readonly liveChildren?: number;
}

/** The name of one limit of a {@linkcode SubagentBudget}. */
export type SubagentBudgetLimit = keyof SubagentBudget;

/** Every limit of a budget, in a stable order. */
export const SUBAGENT_BUDGET_LIMITS: readonly SubagentBudgetLimit[] = freeze([
  "tokens",
  "wallTimeMs",
  "toolCalls",
  "children",
  "liveChildren",
]);

/** The longest wall-time budget: what a timer can wait (2³¹ − 1 ms, about 24.8 days). */
export const MAX_BUDGET_WALL_TIME_MS = 2_147_483_647;

/** Usage a provider reports as it happens, through its run's {@linkcode SubagentBudgetMeter}. */
export interface SubagentBudgetCharge {
  /** Input tokens of a model call that just finished. */
  readonly inputTokens?: number;
  /** Output tokens of a model call that just finished. */
  readonly outputTokens?: number;
  /** Tool calls about to run. */
  readonly toolCalls?: number;
}

/**
 * What the service hands a provider with `capabilities.budget` as
 * `request.budgetMeter` when a budget applies to the run. The provider
 * charges tokens and tool calls as they happen; the service checks them
 * against the run's budget and every budget above it, and when one runs out
 * it cancels the run that owns it, whose result then ends
 * `budget-exhausted`. Wall time and the children caps need no charge: the
 * service keeps them. What a provider cannot charge as it happens is
 * counted from its result's `usage` when the run settles.
 */
export interface SubagentBudgetMeter {
  /** The run's effective budget (the same as `request.budget`). */
  readonly limits: SubagentBudget;
  /**
   * Charge usage that just happened (or, for tool calls, is about to).
   *
   * @returns `false` once this budget or one above it ran out: the run is
   * being ended, a tool call about to run should be refused.
   */
  charge(usage: SubagentBudgetCharge): boolean;
}

/** Which limit ran out, the figure it allows and the figure reached: a budget failure's `data`. */
export interface SubagentBudgetExhaustion {
  /** The limit. */
  readonly limit: SubagentBudgetLimit;
  /** What the budget allows. */
  readonly budget: number;
  /** What was used (or, for the children caps, had been started / was live). */
  readonly used: number;
}

/**
 * Thrown before a child exists when starting it would go beyond a children
 * cap (`children` or `liveChildren`) of its parent run's budget or of a
 * budget above it, and when resuming a run whose budget ran out.
 *
 * @example
 * ```ts
 * import { SubagentBudgetError } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const error = new SubagentBudgetError("Cannot start subagent: …", {
 *   limit: "children",
 *   budget: 2,
 *   used: 2,
 * });
 * assert.ok(error instanceof RangeError);
 * assert.equal(error.code, "BUDGET_EXHAUSTED");
 * assert.equal(error.limit, "children");
 * ```
 */
export class SubagentBudgetError extends BrandedRangeError {
  /** Its brand: a SubagentBudgetError made by any copy of this package is recognised. */
  static override readonly brand: string = "@seam/subagent/SubagentBudgetError";
  /** Stable code for callers that branch on it. */
  readonly code = "BUDGET_EXHAUSTED" as const;
  /** The limit that would be exceeded. */
  readonly limit: SubagentBudgetLimit;
  /** What the budget allows. */
  readonly budget: number;
  /** What had been used (started, live) when the start was refused. */
  readonly used: number;
  /** Make the error; `message` names the limit and the figures. */
  constructor(message: string, exhaustion: SubagentBudgetExhaustion) {
    super(message);
    this.limit = exhaustion.limit;
    this.budget = exhaustion.budget;
    this.used = exhaustion.used;
  }
}

/**
 * Check a budget and return a frozen copy: an object naming at least one
 * of `tokens`, `wallTimeMs`, `toolCalls`, `children` and `liveChildren`;
 * the counts non-negative safe integers, `wallTimeMs` a non-negative number
 * of at most {@linkcode MAX_BUDGET_WALL_TIME_MS}.
 *
 * @param value The candidate budget.
 * @param path Its name in errors (`request.budget`, `config.budget`).
 * @param action What fails, for the message: `Cannot <action>: …`.
 * @throws {TypeError} for a non-object, an unknown key, a non-number.
 * @throws {RangeError} for a negative, non-finite, fractional count or too long a wall time.
 *
 * @example
 * ```ts
 * import { acceptBudget } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(acceptBudget({ tokens: 1000, children: 2 }), { tokens: 1000, children: 2 });
 * assert.throws(() => acceptBudget({ toolCalls: 1.5 }), /budget\.toolCalls: expected a non-negative/);
 * assert.throws(() => acceptBudget({ token: 5 }), /unknown field budget\.token/);
 * ```
 */
export function acceptBudget(
  value: unknown,
  path = "budget",
  action = "start subagent",
): SubagentBudget {
  if (!isRecord(value) || isArray(value)) {
    cannot(action, `${path} must be an object, got ${describe(value)}`);
  }
  const budget: { -readonly [K in SubagentBudgetLimit]?: number } = {};
  for (const key of Object.keys(value)) {
    if (!(SUBAGENT_BUDGET_LIMITS as readonly string[]).includes(key)) {
      cannot(
        action,
        `unknown field ${path}.${key.slice(0, 60)} (known: ${SUBAGENT_BUDGET_LIMITS.join(", ")})`,
      );
    }
  }
  for (const key of SUBAGENT_BUDGET_LIMITS) {
    const n = value[key];
    if (n === undefined) continue;
    if (key !== "wallTimeMs") assertSubagentMaxDepth(n, `${path}.${key}`);
    else if (typeof n !== "number" || !(n >= 0) || n > MAX_BUDGET_WALL_TIME_MS) {
      cannot(
        action,
        `${path}.wallTimeMs must be a number of milliseconds from 0 to ${MAX_BUDGET_WALL_TIME_MS}, got ${
          describe(n)
        }`,
        typeof n === "number",
      );
    }
    budget[key] = n as number;
  }
  if (Object.keys(budget).length === 0) {
    cannot(action, `${path} must name at least one of ${SUBAGENT_BUDGET_LIMITS.join(", ")}`);
  }
  return freeze(budget);
}
