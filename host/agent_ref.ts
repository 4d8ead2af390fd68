import type { Scope } from "./scope.ts";

/**
 * What the seam needs to know about an agent that delegates: who it is and
 * the scope that owns what it starts. The full agent runtime implements it.
 */
export interface AgentRef {
  /** The agent's id, unique within its host. */
  readonly id: string;
  /** The agent's scope: its children are owned by it, its events land in it. */
  readonly scope: Scope;
}
