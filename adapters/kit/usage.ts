import type { SubagentUsageInput } from "@seam/subagent";

/** What a framework reports of one model call; an absent token count is unknown. */
export interface ModelCallUsage {
  /** Tokens read. */
  readonly inputTokens?: number;
  /** Tokens produced. */
  readonly outputTokens?: number;
  /** Of the tokens read, those served from a prompt cache. */
  readonly cachedInputTokens?: number;
}

/**
 * A run's own usage, summed as its framework reports it, call by call:
 * each model call's tokens and each tool call. A model call reported
 * without usage, or without its input or output count, makes the usage
 * partial (the figures are then lower bounds). {@linkcode UsageTally.usage}
 * is what the run's result carries.
 *
 * @example
 * ```ts
 * import { UsageTally } from "@seam/adapter-kit";
 * import assert from "node:assert/strict";
 *
 * const tally = new UsageTally();
 * tally.modelCall({ inputTokens: 10, outputTokens: 3 });
 * tally.toolCall();
 * tally.modelCall(undefined);
 * assert.deepEqual(tally.usage(), {
 *   self: { inputTokens: 10, outputTokens: 3, cachedInputTokens: 0, modelCalls: 2, toolCalls: 1 },
 *   partial: true,
 * });
 * ```
 */
export class UsageTally {
  #inputTokens = 0;
  #outputTokens = 0;
  #cachedInputTokens = 0;
  #modelCalls = 0;
  #toolCalls = 0;
  #partial = false;

  /**
   * Count one model call.
   *
   * @returns Its tokens (0 for an unknown count), to charge to the run's budget.
   */
  modelCall(usage: ModelCallUsage | undefined): { inputTokens: number; outputTokens: number } {
    this.#modelCalls++;
    if (usage?.inputTokens === undefined || usage.outputTokens === undefined) {
      this.#partial = true;
    }
    const inputTokens = usage?.inputTokens ?? 0;
    const outputTokens = usage?.outputTokens ?? 0;
    this.#inputTokens += inputTokens;
    this.#outputTokens += outputTokens;
    this.#cachedInputTokens += usage?.cachedInputTokens ?? 0;
    return { inputTokens, outputTokens };
  }

  /** Count one tool call. */
  toolCall(): void {
    this.#toolCalls++;
  }

  /** The usage so far, as a result carries it. */
  usage(): SubagentUsageInput {
    return {
      self: {
        inputTokens: this.#inputTokens,
        outputTokens: this.#outputTokens,
        cachedInputTokens: this.#cachedInputTokens,
        modelCalls: this.#modelCalls,
        toolCalls: this.#toolCalls,
      },
      partial: this.#partial,
    };
  }
}
