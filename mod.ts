/**
 * seam: delegate a self-contained task to a child agent over any transport,
 * behind one contract (`ctx.subagents`). This umbrella entry re-exports the
 * everyday surface of every member package, by its JSR name.
 *
 * @module
 */
export * from "@seam/host";
export * from "@seam/subagent";
export * from "@seam/subagent-in-process";
export * from "@seam/subagent-spawn";
export * from "@seam/subagent-fork";
export * from "@seam/tool-subagent";
