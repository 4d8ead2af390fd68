import type { AgentRef } from "@seam/host";

/** The seam child each run context belongs to, for the `subagent` tool inside the run. */
const parents = new WeakMap<object, AgentRef>();

/** Mark `context` (a run's `RunContext`) as belonging to the seam child `parent`. */
export function bindSeamParent(context: object, parent: AgentRef): void {
  parents.set(context, parent);
}

/** The seam child `context` belongs to, when the run is one of this package's provider. */
export function seamParentOf(context: unknown): AgentRef | undefined {
  return context !== null && typeof context === "object" ? parents.get(context) : undefined;
}
