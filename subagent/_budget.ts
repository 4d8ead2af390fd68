// The service's side of budgets: one ledger per budgeted run, chained to
// its parent run's, so a charge anywhere in a subtree counts against every
// budget above it. Only runs under a budget make one: the path without a
// budget never gets here (bench/service_overhead.ts).
import { deepFreeze, type Scope } from "@seam/host";
import { subagentInputRequired, subagentInputResolved } from "./input.ts";
import {
  SUBAGENT_BUDGET_LIMITS,
  type SubagentBudget,
  type SubagentBudgetCharge,
  SubagentBudgetError,
  type SubagentBudgetExhaustion,
  type SubagentBudgetLimit,
  type SubagentBudgetMeter,
} from "./budget.ts";
import type { SubagentResult, SubagentUsageFigures } from "./types.ts";
import { freeze } from "./_builtins.ts";

const WORDS: Readonly<Record<SubagentBudgetLimit, string>> = freeze({
  tokens: "tokens",
  wallTimeMs: "ms of wall time",
  toolCalls: "tool calls",
  children: "children started in total",
  liveChildren: "children live at once",
});

/** What a ledger's run is doing: not yet started, running, or settled (a resume may reopen it). */
type LedgerState = "pending" | "live" | "settled";

function tokensOf(figures: Partial<SubagentUsageFigures>): number {
  return (figures.inputTokens ?? 0) + (figures.outputTokens ?? 0);
}

/** The note a budget failure carries: the limit, what it allows, what was used. */
export function exhaustionMessage(runId: string, e: SubagentBudgetExhaustion): string {
  return `the budget of run "${runId}" ran out: budget.${e.limit} allows ${e.budget} ${
    WORDS[e.limit]
  }, ${e.used} used`;
}

/** One budgeted run's account: its effective limits, what its subtree used, its clock. */
export class BudgetLedger {
  /** The effective limits, frozen (what `request.budget` says). */
  readonly limits: SubagentBudget;
  /** The meter handed to the provider. */
  readonly meter: SubagentBudgetMeter;
  readonly #parent: BudgetLedger | undefined;
  #state: LedgerState = "pending";
  /** Which opening the ledger is on: a handle settles or closes only its own. */
  #generation = 0;
  #runId = "";
  /** Tokens and tool calls charged by the run and its subtree. */
  #tokens = 0;
  #toolCalls = 0;
  /** What had been charged when the current run opened (a resume reopens). */
  #openTokens = 0;
  #openToolCalls = 0;
  /** Runs started below, and live below now. */
  #started = 0;
  #live = 0;
  /** Wall time counted so far, and since when the clock runs (undefined: stopped). */
  #wallUsed = 0;
  #clockSince: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unlisten: (() => void) | undefined;
  #exhausted: SubagentBudgetExhaustion | undefined;
  #end: ((reason: string) => void) | undefined;

  constructor(limits: SubagentBudget, parent: BudgetLedger | undefined) {
    this.limits = limits;
    this.#parent = parent;
    this.meter = freeze({
      limits,
      charge: (usage: SubagentBudgetCharge) => this.charge(usage),
    });
  }

  /**
   * The budget for a run asking `asked` under `parent` (either may be
   * absent): each limit the smaller of the ask and what every budget above
   * has left. `undefined` when no budget applies.
   *
   * @throws {SubagentBudgetError} when a children cap above is used up.
   */
  static plan(
    asked: SubagentBudget | undefined,
    parent: BudgetLedger | undefined,
  ): BudgetLedger | undefined {
    if (parent === undefined) return asked && new BudgetLedger(asked, undefined);
    const limits: { -readonly [K in SubagentBudgetLimit]?: number } = { ...asked };
    const now = Date.now();
    for (let above: BudgetLedger | undefined = parent; above; above = above.#parent) {
      above.#assertRoom("start subagent", false);
      for (const key of SUBAGENT_BUDGET_LIMITS) {
        const left = above.#left(key, now);
        if (left !== undefined && !(limits[key]! <= left)) limits[key] = left;
      }
    }
    return new BudgetLedger(freeze(limits), parent);
  }

  /** What is left of `key` for a new child (after counting the child itself for the caps). */
  #left(key: SubagentBudgetLimit, now: number): number | undefined {
    const limit = this.limits[key];
    if (limit === undefined) return undefined;
    let used: number;
    switch (key) {
      case "tokens":
        used = this.#tokens;
        break;
      case "toolCalls":
        used = this.#toolCalls;
        break;
      case "wallTimeMs":
        used = this.#wallUsed + (this.#clockSince === undefined ? 0 : now - this.#clockSince);
        break;
      case "children":
        used = this.#started + 1;
        break;
      case "liveChildren":
        used = this.#live + 1;
        break;
    }
    return Math.max(0, limit - used);
  }

  /** Throws when this budget has no room for one more run below (live only: a resume). */
  #assertRoom(action: string, liveOnly: boolean): void {
    const { children, liveChildren } = this.limits;
    if (!liveOnly && children !== undefined && this.#started >= children) {
      this.#capError(action, "children", children, this.#started);
    }
    if (liveChildren !== undefined && this.#live >= liveChildren) {
      this.#capError(action, "liveChildren", liveChildren, this.#live);
    }
  }

  #capError(action: string, limit: SubagentBudgetLimit, budget: number, used: number): never {
    throw new SubagentBudgetError(
      `Cannot ${action}: run "${this.#runId}" may have ${budget} ${
        budget === 1 ? WORDS[limit].replace("children", "child") : WORDS[limit]
      } (budget.${limit}) and has ${used}`,
      { limit, budget, used },
    );
  }

  /** Count the new run against every budget above (once the checks passed). */
  commit(): void {
    for (let above = this.#parent; above; above = above.#parent) {
      above.#started++;
      above.#live++;
    }
  }

  /** Undo `commit` for a start that failed: no child exists. */
  rollback(): void {
    for (let above = this.#parent; above; above = above.#parent) {
      above.#started--;
      above.#live--;
    }
  }

  /**
   * The run exists: start its clock. `end` cancels it when its budget runs
   * out. With a wall-time limit the clock stops while an input request of
   * the run, or of a run below it, waits in `scope` (waiting is not working).
   */
  open(runId: string, end: (reason: string) => void, scope: Scope): number {
    const generation = ++this.#generation;
    this.#runId = runId;
    this.#end = end;
    this.#state = "live";
    this.#openTokens = this.#tokens;
    this.#openToolCalls = this.#toolCalls;
    this.#startClock();
    if (this.limits.wallTimeMs === undefined) return generation;
    // The input requests of the run (or below it) waiting for an answer.
    const waiting = new Set<string>();
    const offAsked = scope.on(subagentInputRequired, (request) => {
      if (!request.path.includes(runId)) return;
      waiting.add(request.id);
      this.#stopClock();
    });
    const offResolved = scope.on(subagentInputResolved, ({ request }) => {
      if (!waiting.delete(request.id) || waiting.size > 0 || this.#state !== "live") return;
      this.#startClock();
    });
    this.#unlisten = () => {
      offAsked().catch(() => {});
      offResolved().catch(() => {});
    };
    return generation;
  }

  #startClock(): void {
    if (this.#clockSince !== undefined) return;
    this.#clockSince = Date.now();
    const wall = this.limits.wallTimeMs;
    if (wall === undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#stopClock();
      const used = Math.round(this.#wallUsed);
      this.#exhaust({ limit: "wallTimeMs", budget: wall, used: Math.max(wall, used) });
    }, Math.max(0, wall - this.#wallUsed));
  }

  #stopClock(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#clockSince === undefined) return;
    this.#wallUsed += Date.now() - this.#clockSince;
    this.#clockSince = undefined;
  }

  /**
   * A finished run is resumed on this ledger: it counts as live again.
   * Answers whether it did: a run still live is left as it is (its
   * provider refuses the resume), so a refused resume never touches it.
   *
   * @throws {SubagentBudgetError} when its budget ran out, or a live cap above is full.
   */
  reopen(): boolean {
    if (this.#state !== "settled") return false;
    const runId = this.#runId;
    if (this.#exhausted) {
      throw new SubagentBudgetError(
        `Cannot resume run "${runId}": ${exhaustionMessage(runId, this.#exhausted)}`,
        this.#exhausted,
      );
    }
    for (let above = this.#parent; above; above = above.#parent) {
      above.#assertRoom(`resume run "${runId}"`, true);
    }
    for (let above = this.#parent; above; above = above.#parent) above.#live++;
    this.#state = "pending";
    return true;
  }

  /**
   * Charge usage as it happens, here and in every budget above; a budget
   * that goes beyond its limit ends its run.
   *
   * @returns `false` once this budget or one above it ran out.
   */
  charge(usage: SubagentBudgetCharge): boolean {
    const input = usage.inputTokens ?? 0;
    const output = usage.outputTokens ?? 0;
    const calls = usage.toolCalls ?? 0;
    // Each figure on its own: a negative one must not cancel another out.
    if (!(input >= 0) || !(output >= 0) || !(calls >= 0)) return this.#ok();
    const tokens = input + output;
    if (!Number.isFinite(tokens) || !Number.isFinite(calls)) return this.#ok();
    this.#tokens += tokens;
    this.#toolCalls += calls;
    let ok = this.#check();
    for (let above = this.#parent; above; above = above.#parent) {
      above.#tokens += tokens;
      above.#toolCalls += calls;
      if (!above.#check()) ok = false;
    }
    return ok;
  }

  #ok(): boolean {
    if (this.#exhausted) return false;
    for (let above = this.#parent; above; above = above.#parent) {
      if (above.#exhausted) return false;
    }
    return true;
  }

  /** Whether the limits hold; ends the run (once) when one does not. */
  #check(): boolean {
    if (this.#exhausted) return false;
    const { tokens, toolCalls } = this.limits;
    if (tokens !== undefined && this.#tokens > tokens) {
      this.#exhaust({ limit: "tokens", budget: tokens, used: this.#tokens });
    } else if (toolCalls !== undefined && this.#toolCalls > toolCalls) {
      this.#exhaust({ limit: "toolCalls", budget: toolCalls, used: this.#toolCalls });
    }
    return this.#exhausted === undefined;
  }

  #exhaust(exhaustion: SubagentBudgetExhaustion): void {
    // A settled run keeps its result; what its subtree still charges only counts above.
    if (this.#exhausted || this.#state !== "live") return;
    this.#exhausted = freeze(exhaustion);
    try {
      this.#end?.(`budget exhausted: ${exhaustionMessage(this.#runId, exhaustion)}`);
    } catch {
      // The provider's cancel failed; the result still says the budget ran out.
    }
  }

  /**
   * The run settled with `result`: what its usage says beyond the live
   * charges counts now (a provider that charges nothing as it goes, a
   * remote subtree), and a run whose budget ran out ends
   * `budget-exhausted`, its output kept.
   */
  settle(result: SubagentResult, generation?: number): SubagentResult {
    if (this.#state !== "live") return result;
    if (generation !== undefined && generation !== this.#generation) return result;
    const total = result.usage?.total;
    if (total) {
      const tokens = tokensOf(total) - (this.#tokens - this.#openTokens);
      const calls = total.toolCalls - (this.#toolCalls - this.#openToolCalls);
      if (tokens > 0 || calls > 0) {
        this.charge({ inputTokens: Math.max(0, tokens), toolCalls: Math.max(0, calls) });
      }
    }
    const exhausted = this.#exhausted;
    this.close();
    if (!exhausted) return result;
    return deepFreeze({
      output: result.output,
      stopReason: "budget-exhausted" as const,
      error: {
        code: "BUDGET_EXHAUSTED",
        message: exhaustionMessage(this.#runId, exhausted),
        data: { ...exhausted },
      },
      ...(result.usage ? { usage: result.usage } : {}),
    }) as SubagentResult;
  }

  /**
   * The run is over (settled, failed or disposed): stop its clock, free its
   * live slot. Idempotent; with `generation`, only for that opening (a
   * disposed earlier handle must not close its resumed run's account).
   */
  close(generation?: number): void {
    if (this.#state === "settled") return;
    if (generation !== undefined && generation !== this.#generation) return;
    this.#state = "settled";
    this.#stopClock();
    this.#unlisten?.();
    this.#unlisten = undefined;
    for (let above = this.#parent; above; above = above.#parent) above.#live--;
  }
}
