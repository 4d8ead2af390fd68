// One ACP connection served: its session table (the sessions open and those
// being created, held to `maxSessions` by SessionSlots), the handlers of the
// client's requests, the paced output (a client that does not read is not
// read from) and the end (every session agent disposed, the output closed).
// @ts-types="@agentclientprotocol/sdk"
import * as acp from "../_acp_sdk.bundle.js";
import {
  type Agent,
  type Host,
  isRecord,
  type Logger,
  messageOf,
  type Scope,
  SEAM_VERSION,
} from "@seam/host";
import { cut, quoted } from "../_failure.ts";
import { pace, type Pacing, UnreadOutputError } from "../_pacing.ts";
import { ServerSession, type SessionContext } from "./_session.ts";
import { SessionSlots } from "./_slots.ts";
import type { AcpServerOptions, AcpSessionInfo } from "./types.ts";

/** The version sent as `agentInfo.version` by default. */
const noop = () => {};
/** The most characters of a client's session id quoted in an answer or a log line. */
const ID_CHARS = 200;
/** The default of {@linkcode AcpServerOptions.maxSessions}. */
const MAX_SESSIONS = 64;

/**
 * Where the server is:
 * - `serving`: the connection is open;
 * - `closing`: `close()` or the parent scope asked it to stop, the connection is closing;
 * - `draining`: the client ended the connection (EOF, a broken output): the
 *   sessions are disposed and the client gets what was queued for it;
 * - `stopping`: ended here (`close()` or the scope): the sessions are disposed and
 *   the output is not waited on.
 */
type ServerState = "serving" | "closing" | "draining" | "stopping";

/** The client's id, bounded wherever it is echoed. */
function unknownSession(sessionId: string): acp.RequestError {
  return new acp.RequestError(
    -32002,
    `Resource not found: no session ${quoted(sessionId, ID_CHARS)}`,
    { sessionId: cut(sessionId, ID_CHARS) },
  );
}

const closingError = () =>
  new acp.RequestError(-32603, "Cannot open a session: the server is closing");

/** One served connection and its sessions. */
export class AcpServerConnection {
  /** Fulfils once the server has stopped (see `AcpServer.closed`). */
  readonly closed: Promise<void>;
  #state: ServerState = "serving";
  readonly #options: AcpServerOptions;
  readonly #host: Host;
  readonly #logger: Logger;
  readonly #scope: Scope;
  readonly #context: SessionContext;
  readonly #sessions = new Map<string, ServerSession>();
  /** Sessions whose agent is being created (`setup` wires the agent first). */
  readonly #pending = new Map<string, ServerSession>();
  readonly #slots: SessionSlots;
  /** The output, held for the server's whole life so it can close it at the end. */
  readonly #out: WritableStreamDefaultWriter<Uint8Array>;
  /** The client's input, read only while its answers are being taken. */
  readonly #paced: Pacing;
  readonly #connection: acp.AgentConnection;
  /** The client advertised `clientCapabilities.subagents` (ACP's unstable child sessions). */
  #subagents = false;
  /** The client declared `clientCapabilities.elicitation.form` (ACP's unstable elicitation). */
  #elicitation = false;

  constructor(options: AcpServerOptions) {
    this.#options = options;
    this.#host = options.host;
    const logger = this.#logger = options.logger ?? options.host.logger.child("acp-server");
    this.#scope = (options.parentScope ?? options.host.scope).child("acp-server");
    this.#slots = new SessionSlots(options.maxSessions ?? MAX_SESSIONS);
    const notify = (sessionId: string, update: acp.SessionUpdate) =>
      void this.#connection.client.notify(acp.methods.client.session.update, { sessionId, update })
        .catch(noop); // the connection closed: nobody is listening any more
    this.#context = {
      logger,
      agentName: options.name ?? "seam",
      model: options.model,
      notify,
      tree: {
        logger,
        subagents: () => this.#subagents,
        elicitation: () => this.#elicitation,
        notify,
        requestPermission: (params, signal) =>
          this.#connection.client.request(
            acp.methods.client.session.requestPermission,
            params,
            { cancellationSignal: signal, stopWaitingOnCancel: true },
          ),
        elicit: (params, signal) =>
          this.#connection.client.request(
            acp.methods.client.elicitation.create,
            params as unknown as acp.CreateElicitationRequest,
            { cancellationSignal: signal, stopWaitingOnCancel: true },
          ),
      },
    };
    this.#out = options.streams.writable.getWriter();
    this.#out.closed.catch(noop);
    this.#paced = pace(options.streams.readable, this.#out, (error) => {
      if (error instanceof UnreadOutputError) {
        logger.warn(`Closing the ACP connection: ${error.message}`);
      }
      this.#connection.close(error);
    });
    this.#connection = this.#app().connect(this.#requests());
    this.closed = this.#connection.closed.then(() => this.#stop()).catch((error: unknown) =>
      logger.error("Stopping the ACP server failed", error)
    );
    // The parent scope going away ends the server (not awaited here: the
    // disposal in #stop waits for this scope).
    this.#scope.onDispose(() => {
      this.#stopHere();
      this.#connection.close();
    });
  }

  /** Stop serving (see `AcpServer.close`). */
  close(): Promise<void> {
    this.#stopHere();
    this.#connection.close();
    return this.closed;
  }

  /** close() or the parent scope, not the client, ends the server. */
  #stopHere(): void {
    if (this.#state === "serving") this.#state = "closing";
    else if (this.#state === "draining") this.#state = "stopping";
  }

  /** Whether the connection ended: no session may open any more. */
  get #ended(): boolean {
    return this.#state === "draining" || this.#state === "stopping";
  }

  /** The framed messages from the client; its answers to no request of ours dropped. */
  #requests(): acp.Stream {
    const framed = acp.ndJsonStream(this.#paced.writable, this.#paced.readable);
    const logger = this.#logger;
    // The client's capabilities as sent (the SDK's stable schema does not keep `subagents`).
    const initializing = (params: unknown) => {
      const capabilities = isRecord(params) ? params.clientCapabilities : undefined;
      this.#subagents = isRecord(capabilities) && isRecord(capabilities.subagents);
      const elicitation = isRecord(capabilities) ? capabilities.elicitation : undefined;
      this.#elicitation = isRecord(elicitation) && isRecord(elicitation.form);
    };
    // Dropped here with the id cut (the SDK would print it whole).
    const readable = framed.readable.pipeThrough(
      new TransformStream<acp.AnyMessage, acp.AnyMessage>({
        transform(message, controller) {
          if ("method" in message) {
            if (message.method === "initialize") initializing(message.params);
            return controller.enqueue(message);
          }
          // An answer to a request of ours (`session/request_permission`) goes on.
          if (message.id !== null && asked.delete(message.id)) return controller.enqueue(message);
          logger.debug(
            `Ignored an ACP client's answer to no request: id ${quoted(message.id, ID_CHARS)}`,
          );
        },
      }),
    );
    // The ids of the requests the server sends, until answered.
    const asked = new Set<acp.JsonRpcId>();
    const out = framed.writable.getWriter();
    const writable = new WritableStream<acp.AnyMessage>({
      write(message) {
        if ("method" in message && "id" in message && message.id !== null) asked.add(message.id);
        return out.write(message);
      },
      close: () => out.close(),
      abort: (reason) => out.abort(reason),
    });
    return { readable, writable };
  }

  #app() {
    const options = this.#options;
    return acp.agent({ name: options.name ?? "seam" })
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
          version: options.version ?? SEAM_VERSION,
          ...(options.title === undefined ? {} : { title: options.title }),
        },
      }))
      .onRequest(
        acp.methods.agent.session.new,
        ({ params, signal }) => this.#newSession(params, signal),
      )
      .onRequest(acp.methods.agent.session.prompt, ({ params, signal }) => {
        const session = this.#sessions.get(params.sessionId);
        if (!session) throw unknownSession(params.sessionId);
        return session.prompt(params, signal);
      })
      .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
        if (this.#sessions.get(params.sessionId)?.cancel()) return;
        // A child session of one of them (ACP's unstable `subagent_update`): that child only.
        for (const session of this.#sessions.values()) {
          if (session.cancelChild(params.sessionId)) return;
        }
        this.#logger.debug(
          `Ignored session/cancel for ${quoted(params.sessionId, ID_CHARS)}: no prompt is running`,
        );
      })
      .onRequest(acp.methods.agent.session.close, async ({ params }) => {
        const session = this.#sessions.get(params.sessionId);
        if (!session) throw unknownSession(params.sessionId);
        this.#sessions.delete(session.id);
        session.closing();
        await session.agent.dispose();
        this.#logger.debug(`Closed ACP session ${session.id}`);
        return {};
      });
  }

  /** `session/new`: a slot, then the session's agent (set up by `setup`), then the session. */
  async #newSession(
    params: acp.NewSessionRequest,
    signal: AbortSignal,
  ): Promise<acp.NewSessionResponse> {
    if (this.#ended) throw closingError();
    // The request holds the slot until the session is published; then the session does.
    const release = this.#slots.take();
    const { model, maxTokens, setup } = this.#options;
    if (params.mcpServers.length > 0) {
      this.#logger.warn(
        `Ignored ${params.mcpServers.length} MCP server(s) given for a new session: this agent does not connect to MCP servers`,
      );
    }
    const sessionId = crypto.randomUUID();
    const info: AcpSessionInfo = Object.freeze({ sessionId, cwd: params.cwd });
    let agent: Agent;
    try {
      agent = await this.#host.agents.create({
        id: sessionId,
        parentScope: this.#scope,
        options: maxTokens === undefined ? { model } : { model, maxTokens },
        signal,
        setup: async (created) => {
          const session = new ServerSession(sessionId, created, this.#context);
          this.#pending.set(sessionId, session);
          // Closed, or disposed from elsewhere (its parent scope, the host): forget it.
          created.scope.onDispose(() => {
            if (this.#sessions.get(sessionId) === session) this.#sessions.delete(sessionId);
            release();
          });
          session.wire();
          await setup?.(created, info);
        },
      });
    } catch (error) {
      this.#pending.delete(sessionId);
      release();
      throw new acp.RequestError(-32603, `Cannot create the session's agent: ${messageOf(error)}`);
    }
    if (this.#ended) {
      this.#pending.delete(sessionId);
      await agent.dispose().finally(release);
      throw closingError();
    }
    this.#sessions.set(sessionId, this.#pending.get(sessionId)!);
    this.#pending.delete(sessionId);
    this.#logger.debug(`Opened ACP session ${sessionId}`);
    return { sessionId };
  }

  /** The connection ended: dispose every session agent, then close the output. */
  async #stop(): Promise<void> {
    this.#state = this.#state === "closing" ? "stopping" : "draining";
    const logger = this.#logger;
    logger.debug(`The ACP connection ended: ${messageOf(this.#connection.signal.reason)}`);
    const all = [...this.#sessions.values(), ...this.#pending.values()];
    this.#sessions.clear();
    this.#pending.clear();
    for (const session of all) session.closing();
    const results = await Promise.allSettled([
      ...all.map((session) => session.agent.dispose()),
      this.#scope.dispose(),
    ]);
    for (const result of results) {
      if (result.status === "rejected") {
        logger.error("Disposing an ACP session agent failed", result.reason);
      }
    }
    // On EOF the client still gets what was queued for it; stopped by close()
    // or the parent scope, the server does not wait on a client that may never read.
    await (this.#state === "stopping"
      ? this.#paced.stop(new Error("the ACP server was closed"))
      : this.#paced.close())
      .catch(noop);
    logger.debug("The ACP server stopped");
  }
}
