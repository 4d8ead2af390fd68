import { describe, isRecord } from "@seam/host";
import type { BudgetLedger } from "./_budget.ts";
import type { SubagentRunPlace, SubagentUsage, SubagentUsageFigures } from "./types.ts";
import { freeze } from "./_builtins.ts";

/** The figures' keys, in their documented order. */
const KEYS = [
  "inputTokens",
  "outputTokens",
  "cachedInputTokens",
  "modelCalls",
  "toolCalls",
  "wallTimeMs",
] as const;

type Figures = { -readonly [K in keyof SubagentUsageFigures]: number };

/** What a live run's descendants have used so far (their totals, added as they settle). */
export interface UsageBelow {
  figures: Figures | undefined;
  partial?: boolean;
}

function zero(): Figures {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    modelCalls: 0,
    toolCalls: 0,
    wallTimeMs: 0,
  };
}

/** One figure: a non-negative finite number, or absent (0). */
function count(value: unknown, path: string, key: string): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !(value >= 0) || value === Infinity) {
    throw new TypeError(
      `${path}.${key} must be a non-negative finite number, got ${describe(value)}`,
    );
  }
  return value;
}

/**
 * Read a provider's figures, key by key into {@linkcode zero}'s literal (its
 * shape; a loop rather than a literal of six reads: the edge bundle's bytes).
 */
function readFigures(value: unknown, path: string, wallTime: boolean): Figures {
  if (!isRecord(value)) throw new TypeError(`${path} must be an object, got ${describe(value)}`);
  const figures = zero();
  for (const key of KEYS) {
    if (wallTime || key !== "wallTimeMs") figures[key] = count(value[key], path, key);
  }
  return figures;
}

/** `into += from`, key by key. */
export function addFigures(into: Figures, from: SubagentUsageFigures): void {
  for (const key of KEYS) into[key] += from[key];
}

/**
 * The run's usage: the provider's report (checked; a TypeError names a
 * malformed field), the service's wall time, and what its local
 * descendants reported. No report makes it partial.
 */
export function acceptUsage(
  raw: unknown,
  wallTimeMs: number,
  below: UsageBelow | undefined,
): SubagentUsage {
  let self: Figures;
  let total: Figures;
  let partial: boolean;
  if (raw === undefined) {
    self = zero();
    total = zero();
    partial = true;
  } else {
    if (!isRecord(raw)) {
      throw new TypeError(`result.usage must be an object, got ${describe(raw)}`);
    }
    self = readFigures(raw.self, "result.usage.self", false);
    total = raw.total === undefined
      ? readFigures(raw.self, "result.usage.self", false)
      : readFigures(raw.total, "result.usage.total", true);
    if (raw.partial !== undefined && typeof raw.partial !== "boolean") {
      throw new TypeError(`result.usage.partial must be a boolean, got ${describe(raw.partial)}`);
    }
    partial = raw.partial === true;
  }
  self.wallTimeMs = wallTimeMs;
  // A remote total has its own wall time; this run's own elapsed time is the floor.
  total.wallTimeMs = Math.max(total.wallTimeMs, wallTimeMs);
  if (below !== undefined) {
    if (below.figures !== undefined) addFigures(total, below.figures);
    if (below.partial) partial = true;
  }
  return freeze({ self: freeze(self), total: freeze(total), partial });
}

/** Add a settled run's usage to what its parent run's descendants used. */
export function addBelow(below: UsageBelow, usage: SubagentUsage): void {
  addFigures(below.figures ??= zero(), usage.total);
  if (usage.partial) below.partial = true;
}

/** The usage of a run whose result never settled validly: its wall time, partial. */
export function unknownUsage(wallTimeMs: number): SubagentUsage {
  return acceptUsage(undefined, wallTimeMs, undefined);
}

/** A live run as the service tracks it by id: where it sits, what its descendants used. */
export interface RunNode extends UsageBelow {
  readonly place: SubagentRunPlace;
  /** The run's budget account, when a budget applies: its children's budgets come from it. */
  readonly budget?: BudgetLedger;
}
