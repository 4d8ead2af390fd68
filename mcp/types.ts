/** The public types of `@seam/mcp`'s server. */
import type { AgentRef, Scope } from "@seam/host";
import type { SubagentAgentOptions, SubagentService } from "@seam/subagent";

/** A JSON-RPC 2.0 message as a transport carries it. */
export interface McpMessage {
  /** Always `"2.0"`. */
  readonly jsonrpc: "2.0";
  /** The rest of the message. */
  readonly [field: string]: unknown;
}

/**
 * A bidirectional MCP message channel: the shape of the official SDK's
 * `Transport` (its `StdioServerTransport`, `InMemoryTransport` and
 * `WebStandardStreamableHTTPServerTransport` all fit).
 */
export interface McpTransport {
  /** Start reading. */
  start(): Promise<void>;
  /** Send one message; resolves once the transport took it. */
  send(message: McpMessage, options?: unknown): Promise<void>;
  /** Close the channel. */
  close(): Promise<void>;
  /** Set by the server: a message arrived. */
  onmessage?: (message: McpMessage, extra?: unknown) => void;
  /** Set by the server: the channel closed. */
  onclose?: () => void;
  /** Set by the server: the channel failed. */
  onerror?: (error: Error) => void;
  /** The session, on transports that have one. */
  readonly sessionId?: string;
}

/** Bounds of an MCP server (defaults in parentheses). */
export interface McpServerLimits {
  /** The largest prompt, in UTF-8 bytes (1 MiB). */
  readonly maxPromptBytes?: number;
  /** Runs one principal may have running at once, over all its connections (8). */
  readonly maxRunsPerPrincipal?: number;
  /** Streamed text kept for one call while the client does not read (64 Ki characters). */
  readonly maxProgressChars?: number;
  /** How long an elicitation waits for the person's answer, in ms (15 min). */
  readonly inputTimeoutMs?: number;
}

/** Options of {@linkcode createMcpServer}. */
export interface McpServerOptions {
  /** The scope the providers are registered in; calls run under a child of it. */
  readonly scope: Scope;
  /** The service (default: the one provided in `scope`). */
  readonly subagents?: SubagentService;
  /** The agent calls delegate as (default: an agent id `mcp-client` in `scope`). */
  readonly parent?: AgentRef;
  /** Agent options every run gets (the model, for in-process providers). */
  readonly agentOptions?: SubagentAgentOptions;
  /** The providers to offer (default: every registered one, following additions and removals). */
  readonly providers?: readonly string[];
  /** The tool name of a provider (default `subagent_<provider>`); must be a valid MCP tool name. */
  readonly toolName?: (provider: string) => string;
  /** The server's name and version in `initialize` (default `seam` and the package version). */
  readonly info?: { readonly name: string; readonly version: string };
  /** Bounds (see {@linkcode McpServerLimits}). */
  readonly limits?: McpServerLimits;
}

/** Options of {@linkcode McpServer.connect}. */
export interface McpConnectOptions {
  /** Who the client is: runs are counted and kept apart by it (default `local`). */
  readonly principal?: string;
}

/** A client connected to an {@linkcode McpServer}. */
export interface McpConnection {
  /** Who it is. */
  readonly principal: string;
  /** Resolves once its transport closed. */
  readonly closed: Promise<void>;
  /** Close it: its running calls are cancelled (their subtrees ended) and awaited. */
  close(): Promise<void>;
}

/** An MCP server over a subagent service: one tool per provider. */
export interface McpServer {
  /** Serve one client on `transport`. */
  connect(transport: McpTransport, options?: McpConnectOptions): Promise<McpConnection>;
  /** Calls running now, over all connections. */
  readonly liveRuns: number;
  /** Close every connection (their runs cancelled) and stop following providers. */
  close(): Promise<void>;
}

/**
 * An MCP endpoint over HTTP, as a fetch handler: what
 * {@linkcode createMcpEndpoint}, {@linkcode createMcpHttpHandler} and
 * {@linkcode createMcpTasksHandler} return.
 */
export interface McpEndpoint {
  /** Answer one request for `principal` (who the caller authenticated as). */
  fetch(request: Request, principal?: string): Promise<Response>;
  /** Close the endpoint: what it keeps (sessions, tasks) ends, their runs cancelled. */
  close(): Promise<void>;
}
