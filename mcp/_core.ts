/** What a connection needs from its server. */
import type { Scope } from "@seam/host";
import type { SubagentAgentOptions, SubagentService } from "@seam/subagent";
import type { ToolEntry } from "./_tools.ts";

/** The server's limits, resolved. */
export interface ResolvedLimits {
  readonly maxPromptBytes: number;
  readonly maxRunsPerPrincipal: number;
  readonly maxProgressChars: number;
  readonly inputTimeoutMs: number;
}

/** The shared state connections read. */
export interface ServerCore {
  readonly info: { readonly name: string; readonly version: string };
  readonly subagents: SubagentService;
  readonly scope: Scope;
  readonly parentId: string;
  readonly agentOptions: SubagentAgentOptions | undefined;
  readonly limits: ResolvedLimits;
  /** The tools offered now, by name. */
  tools(): Map<string, ToolEntry>;
  /** Count one more run of `principal`; `undefined` when it is at its cap. */
  acquire(principal: string): (() => void) | undefined;
}
