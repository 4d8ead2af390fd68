// The agent side of ACP: a host agent per session, served over any pair of
// byte streams. Runtime-neutral (web streams and the SDK only): the stdio
// entry is `serve.ts`.
// @ts-types="@agentclientprotocol/sdk"
import * as acp from "./_acp_sdk.bundle.js";
import {
  type Agent,
  agentTextDelta,
  agentToolCallEnd,
  agentToolCallStart,
  type Host,
  type Logger,
  messageOf,
  type Scope,
  traceParentKey,
  type TurnEnd,
} from "@seam/host";
import { endPromptSpan, isTracing, type PromptSpan, startPromptSpan } from "./_trace.ts";
import { fromAcpPrompt, toAcpBlock } from "./_content.ts";
import { acpPlan } from "./events.ts";
import { cut, quoted } from "./_failure.ts";
import { pace, UnreadOutputError } from "./_pacing.ts";

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

/** The version sent as `agentInfo.version` by default. */
const VERSION = "0.1.0";
const noop = () => {};
const PRIORITIES: readonly string[] = ["high", "medium", "low"];
const STATUSES: readonly string[] = ["pending", "in_progress", "completed"];
/** The most characters of a client's session id quoted in an answer or a log line. */
const ID_CHARS = 200;
/** The default of {@linkcode AcpServerOptions.maxSessions}. */
const MAX_SESSIONS = 64;

/** A live prompt turn on a session. */
interface Turn {
  /** The client asked to stop it (`session/cancel`, `$/cancel_request`, `session/close`). */
  cancelled: boolean;
}

/** A session: its agent and its running turn. */
interface Session {
  readonly id: string;
  readonly agent: Agent;
  turn: Turn | undefined;
  /** The running prompt's span, when tracing: the agent's spans hang under it. */
  trace?: PromptSpan;
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new TypeError(`Cannot serve an ACP agent: ${message}`);
}

function checkOptions(options: AcpServerOptions): void {
  check(options !== null && typeof options === "object", "options must be an object");
  const { host, streams, model, setup, parentScope, logger, maxSessions } = options;
  check(
    host !== null && typeof host === "object" && typeof host.agents?.create === "function",
    "options.host must be a Host (from createHost)",
  );
  check(
    streams !== null && typeof streams === "object" &&
      streams.readable instanceof ReadableStream && streams.writable instanceof WritableStream,
    "options.streams must hold a ReadableStream `readable` and a WritableStream `writable`",
  );
  check(typeof model === "string" && model !== "", "options.model must be a non-empty string");
  check(setup === undefined || typeof setup === "function", "options.setup must be a function");
  check(
    maxSessions === undefined ||
      (Number.isSafeInteger(maxSessions) && maxSessions >= 1 && maxSessions <= 1_000_000),
    `options.maxSessions must be an integer from 1 to 1000000, got ${String(maxSessions)}`,
  );
  check(
    parentScope === undefined || (parentScope !== null && typeof parentScope === "object" &&
      typeof parentScope.child === "function"),
    "options.parentScope must be a Scope",
  );
  for (const key of ["name", "title", "version"] as const) {
    const value = options[key];
    check(
      value === undefined || (typeof value === "string" && value !== ""),
      `options.${key} must be a non-empty string`,
    );
  }
  check(
    logger === undefined ||
      (logger !== null && typeof logger === "object" && typeof logger.warn === "function"),
    "options.logger must be a Logger",
  );
}

/** How a turn's end is answered: a stop reason, or a JSON-RPC error for a failure. */
function promptAnswer(end: TurnEnd, turn: Turn): acp.PromptResponse {
  if (turn.cancelled) return { stopReason: "cancelled" };
  switch (end.reason) {
    case "completed":
      return { stopReason: "end_turn" };
    case "max-tokens":
      return { stopReason: "max_tokens" };
    case "refusal":
      return { stopReason: "refusal" };
    case "aborted":
      return { stopReason: "cancelled" };
    case "error":
      throw new acp.RequestError(
        -32603,
        `The agent's turn failed: ${end.error ?? "unknown error"}`,
        { reason: "error" },
      );
  }
}

/**
 * Serve host agents as an ACP agent (the Agent Client Protocol, version 1)
 * over `streams`: an editor (Zed, …) or another seam host (through
 * `createAcpProvider`) drives them as an ACP client. Runtime-neutral: any
 * pair of web byte streams will do; `serve.ts` in this package serves over
 * stdio.
 *
 * - `initialize` answers protocol version 1, prompt capabilities `image`
 *   and `embeddedContext` (text, images, resource links, embedded text
 *   resources; not audio, nor binary resources), `session/close`, no
 *   `session/load`, no MCP transport, no authentication.
 * - `session/new` creates a host agent (`options.model`, id = the new
 *   session id, in `parentScope`) and runs `setup` on it. MCP servers the
 *   client passes are not connected (a warning is logged).
 * - `session/prompt` runs one turn and streams, while it runs, its text as
 *   `agent_message_chunk`s, its tool calls as `tool_call` (in progress) and
 *   `tool_call_update` (completed or failed, with the result's content), and
 *   the plans it reports ({@linkcode acpPlan}) as `plan` updates; every
 *   update is written before the answer. The answer's stop reason maps the
 *   turn's end: `completed` → `end_turn`, `max-tokens` → `max_tokens`,
 *   `refusal` → `refusal`, `aborted` → `cancelled`. A failed turn (`error`)
 *   is answered with a JSON-RPC error (code -32603, message `The agent's
 *   turn failed: <why>`, data `{reason: "error"}`) after the text streamed
 *   so far, so a client tells a failure from a normal end
 *   (`createAcpProvider` ends the run `error` with the partial output). One
 *   prompt at a time per session: another one meanwhile is refused.
 * - `session/cancel` (or a `$/cancel_request` of the prompt) cancels the
 *   turn; the prompt is answered `cancelled`, whatever the turn ended with.
 * - `session/close` cancels a running turn and disposes the session's
 *   agent. At most `maxSessions` (default 64) sessions are held at once,
 *   counting those being created: a `session/new` past it gets error
 *   -32603 saying the limit is reached and that `session/close` frees one
 *   (`data: {reason: "maxSessions", maxSessions}`).
 * - A request naming an unknown session gets error -32002 (resource not
 *   found; the client's id quoted cut to 200 characters, as in log lines);
 *   bad params get -32602. An answer from the client (the server sends it
 *   no requests) is ignored, logged at debug with its id cut.
 * - A client that does not read what it is sent is not read from: while
 *   1 MiB of output waits for it, the server reads no more of its input;
 *   more output while 16 MiB waits (the updates of turns it started) ends
 *   the connection, as its EOF does, with a warning logged.
 * - When the client closes its end (EOF), or on {@linkcode AcpServer.close},
 *   every session agent is disposed, the output is closed (on EOF once the
 *   client took what was queued for it) and `closed` fulfils.
 *
 * @param options The host, the streams, the model and the per-session setup.
 * @returns The running server.
 * @throws {TypeError} for a bad option, naming it.
 *
 * @example Serve over in-memory streams and prompt with the SDK's client
 * ```ts
 * import * as acp from "@agentclientprotocol/sdk";
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import { serveAcpAgent } from "@seam/subagent-acp";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * const toServer = new TransformStream<Uint8Array, Uint8Array>();
 * const toClient = new TransformStream<Uint8Array, Uint8Array>();
 * const server = serveAcpAgent({
 *   host,
 *   model: "scripted",
 *   streams: { readable: toServer.readable, writable: toClient.writable },
 * });
 *
 * let text = "";
 * const client = acp.client({ name: "example" })
 *   .onNotification(acp.methods.client.session.update, ({ params }) => {
 *     const { update } = params;
 *     if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
 *       text += update.content.text;
 *     }
 *   })
 *   .connect(acp.ndJsonStream(toServer.writable, toClient.readable));
 * await client.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
 * const { sessionId } = await client.agent.request(acp.methods.agent.session.new, {
 *   cwd: "/",
 *   mcpServers: [],
 * });
 * const { stopReason } = await client.agent.request(acp.methods.agent.session.prompt, {
 *   sessionId,
 *   prompt: [{ type: "text", text: "@reply Hello over ACP" }],
 * });
 * assert.equal(stopReason, "end_turn");
 * assert.equal(text, "Hello over ACP");
 *
 * await toServer.writable.close(); // EOF: the server disposes its agents and stops
 * await server.closed;
 * assert.equal(host.agents.list().length, 0);
 * await client.closed;
 * await host.scope.dispose();
 * ```
 */
export function serveAcpAgent(options: AcpServerOptions): AcpServer {
  checkOptions(options);
  const { host, model, maxTokens, setup } = options;
  const agentName = options.name ?? "seam";
  const logger = options.logger ?? host.logger.child("acp-server");
  const scope = (options.parentScope ?? host.scope).child("acp-server");
  const sessions = new Map<string, Session>();
  /** Sessions whose agent is being created (`setup` wires the agent first). */
  const pending = new Map<string, Session>();
  const maxSessions = options.maxSessions ?? MAX_SESSIONS;
  /**
   * The sessions held, at most `maxSessions`: a slot is taken as `session/new`
   * begins (so requests under way at once cannot overshoot) and freed when
   * the request fails or the session's agent is disposed.
   */
  let slots = 0;
  let stopping = false;

  // The server holds the output for its whole life, so it can close it at the end.
  const out = options.streams.writable.getWriter();
  out.closed.catch(noop);
  // The client's input is read only while its answers are being taken.
  const paced = pace(options.streams.readable, out, (error) => {
    if (error instanceof UnreadOutputError) {
      logger.warn(`Closing the ACP connection: ${error.message}`);
    }
    connection.close(error);
  });
  /** close() or the parent scope, not the client, ended the server. */
  let stopped = false;

  /** Send one `session/update` for `session`'s running turn (dropped between turns). */
  const update = (session: Session, value: acp.SessionUpdate) => {
    if (!session.turn) {
      logger.debug(
        `Dropped a ${value.sessionUpdate} update of session ${session.id} between turns`,
      );
      return;
    }
    connection.client.notify(acp.methods.client.session.update, {
      sessionId: session.id,
      update: value,
    }).catch(noop); // the connection closed: nobody is listening any more
  };

  /** Forward what the session's own agent does (not its children's) as updates. */
  const wire = (session: Session) => {
    const { agent } = session;
    agent.scope.on(agentTextDelta, ({ agentId, text }) => {
      if (agentId !== agent.id || text === "") return;
      update(session, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    });
    agent.scope.on(agentToolCallStart, ({ agentId, callId, name, args }) => {
      if (agentId !== agent.id) return;
      update(session, {
        sessionUpdate: "tool_call",
        toolCallId: callId,
        title: name,
        status: "in_progress",
        rawInput: args,
      });
    });
    agent.scope.on(agentToolCallEnd, ({ agentId, callId, content, isError, code }) => {
      if (agentId !== agent.id) return;
      update(session, {
        sessionUpdate: "tool_call_update",
        toolCallId: callId,
        status: isError ? "failed" : "completed",
        content: content.map((block) => ({
          type: "content" as const,
          content: toAcpBlock(block) as acp.ContentBlock,
        })),
        rawOutput: code === undefined ? { isError } : { isError, code },
      });
    });
    agent.scope.on(acpPlan, ({ agentId, entries }) => {
      if (agentId !== agent.id) return;
      update(session, {
        sessionUpdate: "plan",
        // The event is untyped at runtime: keep to the values ACP allows.
        entries: entries.map(({ content, priority, status }) => ({
          content: String(content),
          priority: PRIORITIES.includes(priority) ? priority as acp.PlanEntryPriority : "medium",
          status: STATUSES.includes(status) ? status as acp.PlanEntryStatus : "pending",
        })),
      });
    });
  };

  // The id is the client's: bounded wherever it is echoed.
  const unknownSession = (sessionId: string) =>
    new acp.RequestError(-32002, `Resource not found: no session ${quoted(sessionId, ID_CHARS)}`, {
      sessionId: cut(sessionId, ID_CHARS),
    });

  const app = acp.agent({ name: options.name ?? "seam" })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: false, sse: false },
        sessionCapabilities: { close: {} },
      },
      authMethods: [],
      agentInfo: {
        name: options.name ?? "seam",
        version: options.version ?? VERSION,
        ...(options.title === undefined ? {} : { title: options.title }),
      },
    }))
    .onRequest(acp.methods.agent.session.new, async ({ params, signal }) => {
      if (stopping) {
        throw new acp.RequestError(-32603, "Cannot open a session: the server is closing");
      }
      if (slots >= maxSessions) {
        throw new acp.RequestError(
          -32603,
          `Cannot open a session: this connection holds ${maxSessions} sessions already, the most it may (maxSessions); close one with session/close first`,
          { reason: "maxSessions", maxSessions },
        );
      }
      slots++;
      // The request holds the slot until the session is published; then the session does.
      let held = true;
      const release = () => {
        if (held) {
          held = false;
          slots--;
        }
      };
      if (params.mcpServers.length > 0) {
        logger.warn(
          `Ignored ${params.mcpServers.length} MCP server(s) given for a new session: this agent does not connect to MCP servers`,
        );
      }
      const sessionId = crypto.randomUUID();
      const info: AcpSessionInfo = Object.freeze({ sessionId, cwd: params.cwd });
      let agent: Agent;
      try {
        agent = await host.agents.create({
          id: sessionId,
          parentScope: scope,
          options: maxTokens === undefined ? { model } : { model, maxTokens },
          signal,
          setup: async (created) => {
            const session: Session = { id: sessionId, agent: created, turn: undefined };
            pending.set(sessionId, session);
            // The agent's model and tool calls hang under the running prompt's span.
            if (isTracing()) {
              created.scope.provide(traceParentKey, {
                get context() {
                  return session.trace?.context;
                },
              });
            }
            // Closed, or disposed from elsewhere (its parent scope, the host): forget it.
            created.scope.onDispose(() => {
              if (sessions.get(sessionId) === session) sessions.delete(sessionId);
              release();
            });
            wire(session);
            await setup?.(created, info);
          },
        });
      } catch (error) {
        pending.delete(sessionId);
        release();
        throw new acp.RequestError(
          -32603,
          `Cannot create the session's agent: ${messageOf(error)}`,
        );
      }
      if (stopping) {
        pending.delete(sessionId);
        await agent.dispose().finally(release);
        throw new acp.RequestError(-32603, "Cannot open a session: the server is closing");
      }
      sessions.set(sessionId, pending.get(sessionId)!);
      pending.delete(sessionId);
      logger.debug(`Opened ACP session ${sessionId}`);
      return { sessionId };
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, signal }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw unknownSession(params.sessionId);
      if (session.turn) {
        throw acp.RequestError.invalidRequest(
          { sessionId: session.id },
          `session "${session.id}" is already running a prompt`,
        );
      }
      let content;
      try {
        content = fromAcpPrompt(params.prompt);
      } catch (error) {
        throw acp.RequestError.invalidParams(undefined, messageOf(error));
      }
      const turn: Turn = { cancelled: false };
      const onAbort = () => {
        turn.cancelled = true;
        session.agent.cancel("the ACP client cancelled the prompt");
      };
      session.turn = turn;
      // Under the caller's trace context, when its `_meta` carries one.
      const traced = startPromptSpan(params._meta, agentName, session.id, model);
      session.trace = traced;
      let answered: acp.PromptResponse | undefined;
      let failure: unknown;
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        session.agent.send(content);
        const end = await session.agent.whenIdle();
        logger.debug(`ACP session ${session.id}: the turn ended ${end.reason}`);
        return answered = promptAnswer(end, turn);
      } catch (error) {
        failure = error;
        if (error instanceof acp.RequestError) throw error;
        if (turn.cancelled) return answered = { stopReason: "cancelled" };
        throw new acp.RequestError(-32603, `The agent's turn failed: ${messageOf(error)}`, {
          reason: "error",
        });
      } finally {
        signal.removeEventListener("abort", onAbort);
        session.turn = undefined;
        if (traced) {
          session.trace = undefined;
          endPromptSpan(traced, answered?.stopReason, answered ? undefined : failure);
        }
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session?.turn) {
        logger.debug(
          `Ignored session/cancel for ${quoted(params.sessionId, ID_CHARS)}: no prompt is running`,
        );
        return;
      }
      session.turn.cancelled = true;
      session.agent.cancel("the ACP client cancelled the prompt");
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw unknownSession(params.sessionId);
      sessions.delete(session.id);
      if (session.turn) session.turn.cancelled = true;
      await session.agent.dispose();
      logger.debug(`Closed ACP session ${session.id}`);
      return {};
    });

  const framed = acp.ndJsonStream(paced.writable, paced.readable);
  // The server sends the client no requests, so an answer from it answers
  // none: dropped here, with its id cut (the SDK would print it whole).
  const requests = framed.readable.pipeThrough(
    new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform(message, controller) {
        if ("method" in message) return controller.enqueue(message);
        logger.debug(
          `Ignored an ACP client's answer to no request: id ${quoted(message.id, ID_CHARS)}`,
        );
      },
    }),
  );
  const connection = app.connect({ readable: requests, writable: framed.writable });

  const closed = connection.closed.then(async () => {
    stopping = true;
    logger.debug(`The ACP connection ended: ${messageOf(connection.signal.reason)}`);
    const all = [...sessions.values(), ...pending.values()];
    sessions.clear();
    pending.clear();
    for (const s of all) if (s.turn) s.turn.cancelled = true;
    const results = await Promise.allSettled([
      ...all.map((s) => s.agent.dispose()),
      scope.dispose(),
    ]);
    for (const result of results) {
      if (result.status === "rejected") {
        logger.error("Disposing an ACP session agent failed", result.reason);
      }
    }
    // On EOF the client still gets what was queued for it; stopped by close()
    // or the parent scope, the server does not wait on a client that may never read.
    await (stopped ? paced.stop(new Error("the ACP server was closed")) : paced.close())
      .catch(noop);
    logger.debug("The ACP server stopped");
  }).catch((error) => logger.error("Stopping the ACP server failed", error));

  // The parent scope going away ends the server (not awaited here: the
  // disposal above waits for this scope).
  scope.onDispose(() => {
    stopped = true;
    connection.close();
  });

  const close = (): Promise<void> => {
    stopped = true;
    connection.close();
    return closed;
  };
  return Object.freeze({ closed, close });
}
