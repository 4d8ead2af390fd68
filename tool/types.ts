// The tool's configuration, as the caller writes it (`_config.ts` checks it).
import type { SubagentAgentOptions, SubagentBudget, SubagentToolFilter } from "@seam/subagent";

/**
 * How `installSubagentTool` binds the tool. Read once at install;
 * unknown keys are rejected, and a key left out stays absent from every
 * request the tool makes.
 */
export interface SubagentToolConfig {
  /** The provider to start runs on (`spawn`, `fork`, `acp`, …). Required. */
  readonly provider: string;
  /**
   * The name the model calls the tool by. Default `"subagent"`. Give each
   * load its own name to expose several providers side by side (e.g.
   * `subagent` bound to `spawn` and `subagent_fork` bound to `fork`).
   */
  readonly toolName?: string;
  /** Per-child agent options applied to every run (`{model}`). */
  readonly agentOptions?: SubagentAgentOptions;
  /** The children's persona (the provider needs the `persona` capability). */
  readonly persona?: string;
  /**
   * The tools the children may use (the provider needs the `toolFilter`
   * capability). Name at least one list; `allow: []` means no tools at all.
   * Deny-listing the tool's own name is one way to stop recursion.
   */
  readonly toolFilter?: SubagentToolFilter;
  /**
   * An absolute cap on the children's delegation depth (the provider needs
   * the `depthLimit` capability): a child that delegates again through this
   * tool below the cap gets an error result instead of a grandchild.
   */
  readonly maxDepth?: number;
  /**
   * What each child and its subtree may use (the provider needs the
   * `budget` capability; see `SubagentBudget`): tokens, wall time, tool
   * calls, children in total and live at once. A child gets the smaller of
   * this and what the calling agent's own run has left; running out ends the
   * child `budget-exhausted` (the model reads that it ran out), and a
   * delegation beyond a children cap is an error result with no child.
   */
  readonly budget?: SubagentBudget;
  /**
   * Add the run's usage (its subtree's tokens, model and tool calls, wall
   * time; see `SubagentResult.usage`) to what the parent model sees, as a
   * last text line. Default: `false`.
   */
  readonly reportUsage?: boolean;
}
