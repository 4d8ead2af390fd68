import { isRecord } from "@seam/host";
import type { AgentRef } from "@seam/host";

/**
 * The `configurable` key under which a run of `createLangGraphProvider`
 * carries its seam child, for the `subagent` tool inside the graph.
 */
export const SEAM_PARENT = "__seam_parent";

/** The seam child a tool call's config belongs to, when the graph runs under the provider. */
export function seamParentOf(config: unknown): AgentRef | undefined {
  const configurable = isRecord(config) ? config.configurable : undefined;
  const parent = isRecord(configurable) ? configurable[SEAM_PARENT] : undefined;
  return isRecord(parent) && typeof parent.id === "string" && isRecord(parent.scope)
    ? parent as unknown as AgentRef
    : undefined;
}
