import { underParent } from "./_trace.ts";

/**
 * Call `fn` with `context` (an `@opentelemetry/api` `Context`, typed
 * `unknown` here) as the parent of the `invoke_agent` span of every run it
 * starts synchronously through a `SubagentService`. This is how a caller
 * that made a span of its own hangs a run under it without a context
 * manager: the `subagent` tool puts its `execute_tool` span there, the
 * gateway its server span. Without it a run's span takes its parent scope's
 * `TraceParent` (`traceParentKey`), else the api's active context.
 *
 * Does nothing but call `fn` when `context` is `undefined`.
 *
 * @example
 * ```ts
 * import { startRunsUnder } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * assert.equal(startRunsUnder(undefined, () => 42), 42);
 * ```
 */
export function startRunsUnder<T>(context: unknown, fn: () => T): T {
  return context === undefined ? fn() : underParent(context, fn);
}
