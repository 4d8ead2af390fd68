import { type AgentRef, isRecord } from "@seam/host";

/**
 * The `RequestContext` key under which a run of `createMastraProvider`
 * carries its seam child, for the `subagent` tool inside the agent.
 */
export const SEAM_PARENT = "seam:parent";

/** The seam child a tool call's request context belongs to, when the agent runs under the provider. */
export function seamParentOf(requestContext: unknown): AgentRef | undefined {
  const get = isRecord(requestContext) ? requestContext.get : undefined;
  const parent = typeof get === "function" ? get.call(requestContext, SEAM_PARENT) : undefined;
  return isRecord(parent) && typeof parent.id === "string" && isRecord(parent.scope)
    ? parent as unknown as AgentRef
    : undefined;
}
