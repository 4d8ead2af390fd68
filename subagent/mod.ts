/**
 * The subagent seam: `ctx.subagents`, the service through which an agent
 * delegates a self-contained task to a child agent over any transport (a
 * provider), plus the vocabulary every provider and consumer shares.
 *
 * - {@linkcode createSubagentService} makes the service; providers register
 *   under unique names and callers start runs by name.
 * - Start-time capabilities (`outputSchema`, `depthLimit`, `toolFilter`,
 *   `persona`, `budget`) are checked before any child exists; runtime ones
 *   (`sendMessage`, `resume`) are optional methods on the run.
 * - `result` resolves with a deeply frozen {@linkcode SubagentResult}; a
 *   child-level failure is `stopReason: "error"`, never a rejection.
 * - The caller disposes every run on every path; disposing the parent's
 *   scope reaches every run it started.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService, subagentEnd, SubagentError } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * assert.throws(
 *   () => subagents.start("missing", { prompt: "hi", parent: { id: "main", scope: root } }),
 *   (e: unknown) => e instanceof SubagentError && e.code === "NO_PROVIDER",
 * );
 * root.on(subagentEnd, (info) => console.log(info.provider, info.stopReason));
 * await root.dispose();
 * ```
 *
 * @module
 */
export * from "./abort.ts";
export * from "./budget.ts";
export * from "./delegation.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./input.ts";
export * from "./max_depth.ts";
export * from "./nested_runs.ts";
export * from "./output_schema.ts";
export * from "./run_control.ts";
export * from "./service.ts";
export * from "./start_fields.ts";
export * from "./trace.ts";
export * from "./types.ts";
