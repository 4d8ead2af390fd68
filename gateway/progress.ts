/** Where a task's streamed text comes from by default: `subagent/progress` in the parent's scope. */
import type { AgentRef } from "@seam/host";
import { subagentProgress } from "@seam/subagent";

/**
 * The default {@linkcode GatewayProgress}: `subagent/progress` events of kind
 * `text` heard in the parent's scope, where providers emit their children's
 * streamed text.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { subagentProgress } from "@seam/subagent";
 * import { subagentProgressSource } from "@seam/gateway";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const seen: string[] = [];
 * const stop = subagentProgressSource(
 *   { id: "parent", scope: root },
 *   (runId, text) => seen.push(`${runId}:${text}`),
 * );
 * root.emit(subagentProgress, { runId: "r1", kind: "text", text: "Hel" });
 * root.emit(subagentProgress, { runId: "r1", kind: "tool-call", name: "search" });
 * stop?.();
 * root.emit(subagentProgress, { runId: "r1", kind: "text", text: "lo" });
 * assert.deepEqual(seen, ["r1:Hel"]);
 * await root.dispose();
 * ```
 */
export function subagentProgressSource(
  parent: AgentRef,
  emit: (runId: string, text: string) => void,
): () => void {
  const off = parent.scope.on(subagentProgress, (info) => {
    if (info.kind === "text" && typeof info.text === "string") emit(info.runId, info.text);
  });
  return () => {
    off().catch(() => {});
  };
}
