import { defineService, type ServiceKey } from "@seam/host";

/**
 * Where a scope sits in a delegation chain. Providers that run children
 * locally provide it on each child's scope; a gateway provides it for a
 * remote caller from the caller's metadata. It is how a depth cap set at
 * the top holds through every hop.
 */
export interface DelegationContext {
  /** The depth of the agent owning the scope (a top agent is 0). */
  readonly depth: number;
  /** The absolute cap inherited from above, when one was set. */
  readonly maxDepth?: number;
  /**
   * The run whose child owns the scope, when known (a gateway: the remote
   * caller's run id): the `parentRunId` of the runs started under it.
   */
  readonly runId?: string;
}

/** The service key under which a scope provides its {@linkcode DelegationContext}. */
export const delegationContextKey: ServiceKey<DelegationContext> = defineService(
  "subagent-delegation",
);

/**
 * The tighter of two depth caps (`undefined` means no cap).
 *
 * @example
 * ```ts
 * import { tighterDepthCap } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * assert.equal(tighterDepthCap(3, undefined), 3);
 * assert.equal(tighterDepthCap(3, 1), 1);
 * assert.equal(tighterDepthCap(undefined, undefined), undefined);
 * ```
 */
export function tighterDepthCap(
  a: number | undefined,
  b: number | undefined,
): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}
