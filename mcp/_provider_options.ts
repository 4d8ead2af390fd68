/** The options of `createMcpProvider`, in a module of their own: the provider, its config and its run all read them. */
import type { JsonValue } from "@seam/host";
import type { SubagentRequest } from "@seam/subagent";

/** Options of {@linkcode createMcpProvider}: `command` or `url`, and `tool`. */
export interface McpProviderOptions {
  /** The provider's name (default `mcp`). */
  readonly name?: string;
  /** The tool of the server each run calls. */
  readonly tool: string;
  /** The server program, started per run in a process group of its own (stdio). */
  readonly command?: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /** Environment variables added to this process's for it. */
  readonly env?: Readonly<Record<string, string>>;
  /** Its working directory. */
  readonly cwd?: string;
  /** A remote server's Streamable HTTP endpoint. */
  readonly url?: string;
  /**
   * The protocol line spoken to `url`: `"2025-11-25"` (sessions, progress,
   * elicitation, `notifications/cancelled`) or `"2026-07-28"` (the Tasks
   * extension: the call is a task polled to its end, its `input_required`
   * answered with `tasks/update`, cancel is `tasks/cancel`). Default: what
   * the server tells, found once per provider before its first run
   * (`server/discover`, falling back to `initialize`); this option overrides
   * it. A `command` speaks 2025-11-25.
   */
  readonly protocol?: "2025-11-25" | "2026-07-28";
  /** Headers for every request to `url` (an `Authorization`, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The tool call's arguments for a prompt (default `{prompt}`, plus
   * `description` (the run's label) when the tool's schema has one, as a
   * seam MCP server's tools do).
   */
  readonly arguments?: (prompt: string, request: SubagentRequest) => Record<string, JsonValue>;
  /** Whether the tool's agent sees the parent's conversation (default false). */
  readonly inheritsParentContext?: boolean;
  /** How long connecting and finding the tool may take, in ms (30 s). */
  readonly startTimeoutMs?: number;
  /** How long the call may go without a progress notification, in ms (24 h). */
  readonly callTimeoutMs?: number;
  /** Teardown: from closing stdin to SIGTERM, and from SIGTERM to SIGKILL, in ms (2 s). */
  readonly teardownGraceMs?: number;
}
