// The public shapes of the ACP server (`serveAcpAgent`, in server.ts).
import type { Agent, Host, Logger, Scope } from "@seam/host";

/** The byte streams a server speaks newline-delimited JSON-RPC over. */
export interface AcpServerStreams {
  /** What the client sends (the process's stdin, one end of a socket, …). */
  readonly readable: ReadableStream<Uint8Array>;
  /** Where the server writes (the process's stdout, …); closed when the server closes. */
  readonly writable: WritableStream<Uint8Array>;
}

/** What {@linkcode AcpServerOptions.setup} learns about the session it prepares an agent for. */
export interface AcpSessionInfo {
  /** The ACP session id (also the agent's id). */
  readonly sessionId: string;
  /** The working directory the client gave in `session/new` (an absolute path). */
  readonly cwd: string;
}

/** Options of {@linkcode serveAcpAgent}. */
export interface AcpServerOptions {
  /** The host the session agents run in. */
  readonly host: Host;
  /** The streams to serve over. The server takes them over: it reads and writes them until it closes. */
  readonly streams: AcpServerStreams;
  /** The model id of every session agent (resolved through its scope, as for any agent). */
  readonly model: string;
  /** The per-step token cap of every session agent. Default: none. */
  readonly maxTokens?: number;
  /**
   * The most sessions the client may hold on this connection (a server
   * serves one), counting those being created: a `session/new` past it is
   * answered with a JSON-RPC error (-32603, `data: {reason: "maxSessions",
   * maxSessions}`) saying so and that `session/close` frees one. An integer
   * from 1 to 1,000,000. Default 64.
   */
  readonly maxSessions?: number;
  /**
   * Prepare each session's agent before it is published: register its tools,
   * system-prompt sections, restrictions and guards on `agent.scope`. A throw
   * or rejection fails that `session/new` with the error's message.
   */
  readonly setup?: (agent: Agent, session: AcpSessionInfo) => void | Promise<void>;
  /** The scope the session agents' scopes are nested in. Default: the host's root scope. */
  readonly parentScope?: Scope;
  /** The agent's name in the `initialize` answer (`agentInfo.name`). Default `"seam"`. */
  readonly name?: string;
  /** A human-readable title for the `initialize` answer. Default: none. */
  readonly title?: string;
  /** The version in the `initialize` answer. Default: this package's version. */
  readonly version?: string;
  /**
   * Where the server logs. Default: the host's logger (`acp-server` child).
   * Serving over stdio, make sure nothing logs to stdout.
   */
  readonly logger?: Logger;
}

/** A running ACP server, from {@linkcode serveAcpAgent}. */
export interface AcpServer {
  /**
   * Fulfils once the server has stopped: the client closed its end (EOF),
   * the output broke, {@linkcode AcpServer.close} was called or the parent
   * scope was disposed; every session agent was disposed and the output
   * stream closed. Never rejects.
   */
  readonly closed: Promise<void>;
  /**
   * Stop serving: close the connection (a running prompt is not answered),
   * dispose every session agent, close the output (aborted when output the
   * client has not taken yet waits for it: a client that does not read
   * cannot hold this up). Resolves like `closed`.
   */
  close(): Promise<void>;
}
