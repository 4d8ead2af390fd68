// One agent process and the ACP client connection over its stdio. Several
// sessions may share it (reuseProcess); updates and permission requests are
// routed to the session's sink. The SDK correlates requests and answers and
// serves the agent's requests; `session/update` notifications are taken off
// the stream before it, in wire order, so the last chunk before a prompt's
// answer is always part of the output. What the agent's answers mean
// (`initialize`'s, an error answer's) is `_answers.ts`.
// @ts-types="@agentclientprotocol/sdk"
import * as acp from "./_acp_sdk.bundle.js";
import type { Logger } from "@seam/host";
import { isRecord, SEAM_VERSION } from "@seam/host";
import { deferred, settledWithin } from "./_async.ts";
import { type AgentInfo, agentInfoOf, protocolMismatch, requestError } from "./_answers.ts";
import { authenticate } from "./_auth.ts";
import { AcpError, type AcpFailureCode, quoted } from "./_failure.ts";
import { InboundScreen } from "./_inbound.ts";
import { PromptOrder } from "./_prompt_order.ts";
import { type PermissionParams, SessionRoutes, type SessionSink } from "./_session_routes.ts";
import { LineFramer } from "./_framing.ts";
import {
  type AgentCommand,
  type AgentProcess,
  describeExit,
  spawnAgentProcess,
  type TeardownGraces,
} from "./_process.ts";

type Json = Record<string, unknown>;

/** What an {@linkcode AgentConnection} needs. */
export interface ConnectionConfig extends AgentCommand {
  readonly maxMessageBytes: number;
  readonly graces: TeardownGraces;
  /** The `authenticate` method to use; default: an `env_var` one whose variables are set. */
  readonly authMethod: string | undefined;
}

export type {
  PermissionOptionWire,
  PermissionOutcome,
  PermissionParams,
  SessionSink,
} from "./_session_routes.ts";

/** How long to wait for the other half (exit or stdout EOF) when one is seen. */
const DRAIN_MS = 250;

const encoder = new TextEncoder();
const noop = () => {};

let connectionCounter = 0;

/** One agent process, its ACP connection and the sessions on it. */
export class AgentConnection {
  /** A number for logs. */
  readonly serial: number = ++connectionCounter;
  /** Fulfils once `initialize` was answered; rejects with a clear error. */
  readonly ready: Promise<AgentInfo>;
  #config: ConnectionConfig;
  #logger: Logger;
  #proc: AgentProcess | undefined;
  #client: acp.ClientConnection | undefined;
  #toSdk: ReadableStreamDefaultController<acp.AnyMessage> | undefined;
  #failure: Error | undefined;
  #failureListeners = new Set<(error: Error) => void>();
  #info: AgentInfo | undefined;
  readonly #routes: SessionRoutes;
  /** The screen of what the agent writes on stdout (what it printed before speaking, if it never did). */
  readonly inbound: InboundScreen;
  #stdoutEnded = deferred();
  #gone: Promise<void> | undefined;
  #holders = 0;
  #disposal: Promise<void> | undefined;
  /** Per session, the prompt request asked of the SDK and not yet on stdin. */
  readonly #prompts = new PromptOrder();
  #authenticated: Promise<void> | undefined;

  constructor(config: ConnectionConfig) {
    this.#config = config;
    this.#logger = config.logger;
    this.#routes = new SessionRoutes(config.logger);
    this.inbound = new InboundScreen(config.logger, [config.command, ...config.args]);
    const framer = new LineFramer(config.maxMessageBytes, {
      message: (message, bytes) => this.#onMessage(message, bytes),
      garbage: (line) => this.#onGarbage(line),
    });
    try {
      this.#proc = spawnAgentProcess({
        command: config.command,
        args: config.args,
        cwd: config.cwd,
        env: config.env,
        launcher: config.launcher,
        logger: config.logger,
        supervisorGraceMs: config.graces.graceMs,
        onSpawnError: (error) => {
          this.#fail(new AcpError("START_FAILED", error.message, undefined, { cause: error }));
        },
        onStdout: (chunk) => {
          if (this.#failure) return; // drained only, so the agent never blocks on a full pipe
          try {
            framer.push(chunk);
          } catch (error) {
            this.#fail(new AcpError("PROTOCOL_ERROR", (error as Error).message));
          }
        },
        onStdoutEnd: (error) => {
          if (!this.#failure) {
            try {
              framer.flush();
            } catch (flushError) {
              this.#fail(new AcpError("PROTOCOL_ERROR", (flushError as Error).message));
            }
          }
          if (error !== undefined && !this.#failure) {
            this.#logger.debug("Reading the ACP agent's stdout failed", error);
          }
          this.#stdoutEnded.resolve();
          this.#whenGone();
        },
      });
    } catch (error) {
      this.#failure = new AcpError("START_FAILED", (error as Error).message, undefined, {
        cause: error,
      });
      this.ready = Promise.reject(this.#failure);
      this.ready.catch(noop);
      return;
    }
    const proc = this.#proc;
    proc.exited.then(() => this.#whenGone());
    const readable = new ReadableStream<acp.AnyMessage>({
      start: (controller) => {
        this.#toSdk = controller;
      },
      cancel: () => {
        this.#toSdk = undefined;
      },
    });
    const writable = new WritableStream<acp.AnyMessage>({
      write: (message) => this.#write(message),
    });
    this.#client = acp.client({ name: "seam" })
      .onRequest(
        acp.methods.client.session.requestPermission,
        ({ params, signal }) =>
          this.#routes.permission(params as unknown as Json & PermissionParams, signal)
            .then((outcome) => ({ outcome })),
      )
      .connect({ readable, writable });
    this.ready = this.#initialize();
    this.ready.catch(noop);
  }

  /** The failure that ended the connection, if any. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Whether new sessions can still be opened on it. */
  get usable(): boolean {
    return this.#failure === undefined && this.#disposal === undefined;
  }

  /** What `initialize` told, once it was answered. */
  get info(): AgentInfo | undefined {
    return this.#info;
  }

  /** Call `listener` once when the connection fails (at once if it already has). */
  onFailure(listener: (error: Error) => void): () => void {
    if (this.#failure) {
      listener(this.#failure);
      return noop;
    }
    this.#failureListeners.add(listener);
    return () => this.#failureListeners.delete(listener);
  }

  async #initialize(): Promise<AgentInfo> {
    let response: Json;
    try {
      response = await this.#client!.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {
          fs: { readTextFile: false, writeTextFile: false },
          terminal: false,
          // ACP's unstable `SubagentCapabilities`: the agent may tell its child sessions.
          subagents: {},
        } as acp.ClientCapabilities,
        clientInfo: { name: "seam", version: SEAM_VERSION },
      }) as unknown as Json;
    } catch (error) {
      throw this.#requestError("initialize", error, "START_FAILED");
    }
    const error = protocolMismatch(response);
    if (error) {
      this.#fail(error);
      throw error;
    }
    this.#info = agentInfoOf(response);
    return this.#info;
  }

  /**
   * Once `initialize` was answered: send `authenticate` with
   * `config.authMethod`, else with the first `env_var` method whose
   * variables are all set, else nothing. Memoized (once per process).
   */
  authenticated(): Promise<void> {
    return this.#authenticated ??= this.ready.then((info) =>
      authenticate(
        info.authMethods,
        this.#config,
        this.#logger,
        (methodId) => this.#client!.agent.request(acp.methods.agent.authenticate, { methodId }),
        (method, error) => this.#requestError(method, error, "AUTH_REQUIRED"),
      )
    );
  }

  /** {@linkcode requestError}, with what `initialize` told and the agent's env. */
  #requestError(method: string, error: unknown, code: AcpFailureCode): Error {
    return requestError(method, error, code, this.#info, this.#config.env);
  }

  /** The last lines the agent wrote on stderr ("" when none). */
  stderrTail(): string {
    return this.#proc?.stderrTail() ?? "";
  }

  /** Resolve once the agent's stderr was quiet briefly (see `AgentProcess.stderrQuiet`). */
  stderrQuiet(): Promise<void> {
    return this.#proc?.stderrQuiet() ?? Promise.resolve();
  }

  /**
   * Open a session whose traffic goes to `sink`. Updates the agent sends for
   * it before answering are replayed to `sink` first. If `signal` aborted
   * meanwhile, a late session is closed again and not attached.
   */
  async newSession(
    cwd: string,
    sink: SessionSink,
    signal: AbortSignal,
    meta?: Record<string, string>,
  ): Promise<string> {
    const created = this.#routes.creating();
    try {
      const response = await this.#client!.agent.request(acp.methods.agent.session.new, {
        cwd,
        mcpServers: [],
        ...(meta ? { _meta: meta } : {}),
      }).catch((error) => {
        throw this.#requestError("session/new", error, "START_FAILED");
      }) as unknown as Json;
      const sessionId = isRecord(response) ? response.sessionId : undefined;
      if (typeof sessionId !== "string" || sessionId === "") {
        throw new AcpError(
          "PROTOCOL_ERROR",
          `the ACP agent answered session/new without a session id: ${quoted(response)}`,
        );
      }
      if (this.#routes.has(sessionId)) {
        // Attached, it would take the traffic of the run whose session it is
        // (reuseProcess); closed, that run's session.
        throw new AcpError(
          "PROTOCOL_ERROR",
          `the ACP agent answered session/new with session id ${
            quoted(sessionId)
          }, which is already open on this process`,
        );
      }
      if (signal.aborted) {
        this.closeSession(sessionId).catch(noop);
        throw new Error("the run ended before the session was opened");
      }
      this.#routes.attach(sessionId, sink);
      return sessionId;
    } finally {
      created();
    }
  }

  /** Stop routing `sessionId`'s traffic. */
  detach(sessionId: string): void {
    this.#routes.detach(sessionId);
  }

  /**
   * Send `session/prompt` (with `meta` as its `_meta`: the W3C trace
   * context); resolves with the agent's stop reason as sent.
   */
  async prompt(sessionId: string, prompt: Json[], meta?: Record<string, string>): Promise<unknown> {
    const unsent = this.#prompts.asked(sessionId);
    let response: Json;
    try {
      response = await this.#client!.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: prompt as unknown as acp.ContentBlock[],
        ...(meta ? { _meta: meta } : {}),
      }) as unknown as Json;
    } catch (error) {
      throw this.#requestError("session/prompt", error, "CHILD_FAILED");
    } finally {
      // Never written (the connection failed first): release a waiting cancel.
      this.#prompts.written(sessionId, unsent);
    }
    return isRecord(response) ? response.stopReason : undefined;
  }

  /**
   * Send `session/cancel`. Written straight to stdin (a notification needs
   * no correlation) so it is ordered before a stdin close that follows; but
   * never before the session's prompt, which may still be queued in the SDK
   * when writes are busy (the agent would ignore the cancel, then run the
   * whole turn).
   */
  cancel(sessionId: string): void {
    const message = { jsonrpc: "2.0", method: "session/cancel", params: { sessionId } };
    this.#prompts.after(sessionId, () => this.#writeRaw(message));
  }

  /** Send `session/close` when the agent supports it; rejects on an error answer. */
  async closeSession(sessionId: string): Promise<void> {
    this.#routes.detach(sessionId);
    if (!this.#info?.canCloseSessions || !this.usable) return;
    await this.#client!.agent.request(acp.methods.agent.session.close, { sessionId });
  }

  /** Take a hold: the process lives until every hold is released (or it is disposed). */
  hold(): void {
    this.#holders++;
  }

  /** Release a hold; the last one tears the process down. */
  release(): Promise<void> {
    if (--this.#holders > 0) return Promise.resolve();
    return this.dispose();
  }

  /**
   * Tear down now: fail pending requests, then stdin EOF → SIGTERM → SIGKILL
   * to the process group (see `AgentProcess.terminate`). Memoized.
   */
  dispose(reason = "the ACP agent process was stopped"): Promise<void> {
    return this.#disposal ??= (async () => {
      this.#fail(new AcpError("CONNECTION_LOST", reason));
      await this.#proc?.terminate(this.#config.graces);
    })();
  }

  #onGarbage(line: string): void {
    const error = this.inbound.garbage(line);
    if (error) this.#fail(error);
  }

  #onMessage(message: Json, bytes: number): void {
    const verdict = this.inbound.screen(message);
    this.#holdLoop();
    if (verdict === "garbage") return this.#onGarbage(quoted(message));
    if (verdict instanceof Error) return this.#fail(verdict);
    if (verdict === "drop") return;
    if (message.method === "session/update" && !("id" in message)) {
      return this.#routes.update(message.params, bytes);
    }
    if (message.method === undefined) this.#routes.answered(message.id);
    try {
      this.#toSdk?.enqueue(message as acp.AnyMessage);
    } catch {
      // The SDK stopped reading: the connection is closed.
    }
  }

  async #write(message: acp.AnyMessage): Promise<void> {
    if (this.#failure) throw this.#failure;
    const sent = message as Json;
    this.inbound.sent(sent);
    this.#holdLoop();
    try {
      const written = this.#proc!.write(encoder.encode(JSON.stringify(message) + "\n"));
      // Queued on stdin: a cancel written from now on comes after it.
      if (sent.method === "session/prompt" && isRecord(sent.params)) {
        this.#prompts.written(String(sent.params.sessionId));
        this.#routes.prompted(sent.id, String(sent.params.sessionId));
      }
      await written;
    } catch (error) {
      // Most likely the agent died: report that rather than a broken pipe.
      await settledWithin(this.#whenGone(), DRAIN_MS * 2);
      throw this.#failure ?? new Error(`writing to the ACP agent's stdin failed: ${error}`);
    }
  }

  /** Keep the program running while a request waits for the agent's answer, and only then. */
  #holdLoop(): void {
    this.#proc?.holdLoop(this.inbound.outstanding > 0);
  }

  #writeRaw(message: Json): void {
    if (this.#failure || !this.#proc) return;
    this.#proc.write(encoder.encode(JSON.stringify(message) + "\n")).catch(noop);
  }

  /** Once the agent exited or closed stdout: wait for the other half, then fail. */
  #whenGone(): Promise<void> {
    return this.#gone ??= (async () => {
      const proc = this.#proc!;
      await settledWithin(Promise.all([proc.exited, this.#stdoutEnded.promise]), DRAIN_MS);
      if (this.#failure) return;
      const status = proc.exitStatus;
      const what = status
        ? `the ACP agent process ${describeExit(status)}`
        : "the ACP agent closed its stdout";
      const tail = proc.stderrTail();
      const told = what + this.inbound.note();
      this.#fail(
        new AcpError("CONNECTION_LOST", tail ? `${told}; its last stderr lines:\n${tail}` : told),
      );
    })();
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#logger.debug(`ACP connection ${this.serial} ended: ${error.message}`);
    this.#client?.close(error);
    try {
      this.#toSdk?.close();
    } catch {
      // Already closed.
    }
    for (const listener of this.#failureListeners) {
      try {
        listener(error);
      } catch (listenerError) {
        this.#logger.error("An ACP connection failure listener threw", listenerError);
      }
    }
    this.#failureListeners.clear();
  }
}
