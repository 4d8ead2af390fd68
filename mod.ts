/**
 * seam: delegate a self-contained task to a child agent over any transport,
 * behind one contract (`ctx.subagents`). This umbrella entry re-exports the
 * everyday surface of every runtime-neutral member package, by its JSR name.
 * The ACP provider (`@seam/subagent-acp`) runs processes, so it is imported
 * on its own.
 *
 * @module
 */
export * from "@seam/host";
export * from "@seam/subagent";
export * from "@seam/subagent-in-process";
export * from "@seam/subagent-spawn";
export * from "@seam/subagent-fork";
export * from "@seam/tool-subagent";
export * from "@seam/subagent-a2a";
export * from "@seam/gateway";
