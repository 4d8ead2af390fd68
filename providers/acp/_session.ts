// An ACP session shared by a run and the runs resumed from it: it routes the
// session's traffic to the live run and holds the agent process until the
// last of them is disposed.
import type { Logger } from "@seam/host";
import { settledWithin } from "./_async.ts";
import type {
  AgentConnection,
  PermissionOutcome,
  PermissionParams,
  SessionSink,
} from "./_connection.ts";
import { cut } from "./_failure.ts";
import { CANCELLED } from "./_permission.ts";
import type { TeardownGraces } from "./_process.ts";
import type { AcpPermissionPolicy } from "./types.ts";

/**
 * What a session needs of the run whose turn it routes to (`_run.ts`'s
 * `AcpRun`): its traffic and the provider's count of live runs. An interface
 * here, so the session does not import the run.
 */
export interface SessionTurn {
  /** A `session/update` of the session while the run's turn holds it. */
  onUpdate(update: unknown): void;
  /** A `session/update` of a child session the agent announced (see `SessionSink.child`). */
  onChildUpdate(from: string, update: unknown): void;
  /** A `session/request_permission` of the session while the run's turn holds it. */
  onPermission(params: PermissionParams, signal: AbortSignal): Promise<PermissionOutcome>;
  /** Whether the run's result is settled. */
  readonly settled: boolean;
  cancel(reason?: string): void;
  dispose(): Promise<void>;
}

/** The provider-level settings a run needs. */
export interface RunSettings {
  readonly provider: string;
  readonly cwd: string;
  readonly permission: AcpPermissionPolicy;
  readonly startupTimeoutMs: number;
  readonly graces: TeardownGraces;
  /** How long a cancelled turn may take to end (see `cancelGraceMs`). */
  readonly cancelGraceMs: number;
  /** The longest a prompt turn may take, if bounded. */
  readonly turnTimeoutMs: number | undefined;
  /** The connection is shared: a misbehaving session must not keep it. */
  readonly shared: boolean;
  /** The provider's runs not yet disposed. */
  readonly live: Set<SessionTurn>;
}

/** An ACP session and the runs on it. */
export class AcpSession implements SessionSink {
  readonly connection: AgentConnection;
  readonly settings: RunSettings;
  readonly logger: Logger;
  sessionId: string | undefined;
  /** The run receiving the session's traffic. */
  turn: SessionTurn | undefined;
  /** The last `session/prompt` while the agent has not answered it. */
  pendingPrompt: Promise<unknown> | undefined;
  #holds = 0;
  #release: () => Promise<void>;
  /** The run whose prompt the agent answered, while it still holds the session. */
  #answered: SessionTurn | undefined;
  #lateLogged = false;

  constructor(
    connection: AgentConnection,
    settings: RunSettings,
    logger: Logger,
    release: () => Promise<void>,
  ) {
    this.connection = connection;
    this.settings = settings;
    this.logger = logger;
    this.#release = release;
  }

  update(update: unknown): void {
    if (!this.#late()) this.turn?.onUpdate(update);
  }

  child(from: string, update: unknown): void {
    if (!this.#late()) this.turn?.onChildUpdate(from, update);
  }

  permission(params: PermissionParams, signal: AbortSignal): Promise<PermissionOutcome> {
    return this.turn ? this.turn.onPermission(params, signal) : Promise.resolve(CANCELLED);
  }

  answered(): void {
    this.#answered = this.turn;
    this.#lateLogged = false;
  }

  /**
   * Whether the agent answered the prompt of the run holding the session:
   * what it sends now (its usage, its child sessions) is no part of that
   * turn, though the run may not have read the answer yet. Logged once.
   */
  #late(): boolean {
    if (this.turn === undefined || this.turn !== this.#answered) return false;
    if (!this.#lateLogged) {
      this.#lateLogged = true;
      this.logger.debug(
        `ACP session ${
          cut(this.sessionId ?? "", 200)
        }: ignored what the agent sent after it answered the prompt`,
      );
    }
    return true;
  }

  /** Track a `session/prompt` until the agent answers it. */
  trackPrompt(prompt: Promise<unknown>): void {
    this.pendingPrompt = prompt;
    const clear = () => {
      if (this.pendingPrompt === prompt) this.pendingPrompt = undefined;
    };
    prompt.then(clear, clear);
  }

  hold(): void {
    this.#holds++;
  }

  /**
   * The last run on the session is gone: close the session (`session/close`,
   * when the agent advertises it: an agent may free its work then, and an
   * agent that ignores stdin EOF is not waited for twice), then let the
   * process go.
   */
  async release(): Promise<void> {
    if (--this.#holds > 0) return;
    const { connection, settings, sessionId } = this;
    this.turn = undefined;
    if (sessionId !== undefined && connection.usable) {
      // The agent's id, quoted in log lines: bounded.
      const named = cut(sessionId, 200);
      const pending = this.pendingPrompt;
      const { cancelGraceMs } = settings;
      if (settings.shared && pending && !await settledWithin(pending, cancelGraceMs)) {
        // The agent ignores session/cancel: the shared process cannot be trusted.
        this.logger.warn(
          `ACP session ${named} did not end its cancelled turn within ${cancelGraceMs} ms (cancelGraceMs): stopping the shared agent process`,
        );
        await connection.dispose(
          `the ACP agent process was stopped: session ${named} ignored session/cancel`,
        );
      } else if (connection.usable) {
        const closed = connection.closeSession(sessionId).catch((error) =>
          this.logger.warn(`Closing ACP session ${named} failed`, error)
        );
        // A process of its own is stopped next anyway: wait no longer than for its exit.
        const { graceMs, eofGraceMs } = settings.graces;
        if (!await settledWithin(closed, settings.shared ? graceMs : eofGraceMs)) {
          this.logger.warn(`The ACP agent did not answer session/close for ${named}`);
        }
      }
    }
    if (sessionId !== undefined) connection.detach(sessionId);
    await this.#release();
  }
}
