// Where each session's traffic goes on one connection: the sink of each open
// session, and the updates the agent sends for a session before its
// `session/new` is answered (held, bounded, and replayed to the sink).
import { isRecord, type Logger } from "@seam/host";
import { deferred } from "./_async.ts";
import { EarlyUpdates } from "./_early.ts";
import { cut } from "./_failure.ts";

/** A permission option as the agent offered it. */
export interface PermissionOptionWire {
  readonly optionId: string;
  readonly name: string;
  readonly kind: string;
}

/** The agent's `session/request_permission` params. */
export interface PermissionParams {
  readonly toolCall: Record<string, unknown>;
  readonly options: readonly PermissionOptionWire[];
}

/** The answer to a permission request. */
export type PermissionOutcome =
  | { readonly outcome: "cancelled" }
  | { readonly outcome: "selected"; readonly optionId: string };

/** Where one session's traffic goes. */
export interface SessionSink {
  /** One `session/update` object (untrusted JSON), in wire order. */
  update(update: unknown): void;
  /** Decide a permission request; `signal` aborts when the agent withdraws it. */
  permission(params: PermissionParams, signal: AbortSignal): Promise<PermissionOutcome>;
}

/** The sessions of one connection and the sessions being opened. */
export class SessionRoutes {
  readonly #logger: Logger;
  #sinks = new Map<string, SessionSink>();
  #early = new EarlyUpdates();
  /** `session/new` requests under way. */
  #creating = 0;
  #creatingIdle = deferred();

  constructor(logger: Logger) {
    this.#logger = logger;
    this.#creatingIdle.resolve();
  }

  /** Whether `sessionId` is open here. */
  has(sessionId: string): boolean {
    return this.#sinks.has(sessionId);
  }

  /** A `session/new` begins; the function returned says it ended. */
  creating(): () => void {
    if (this.#creating++ === 0) this.#creatingIdle = deferred();
    return () => {
      if (--this.#creating > 0) return;
      const unclaimed = this.#early.clear();
      if (unclaimed > 0) {
        this.#logger.debug(`Dropped ${unclaimed} updates for sessions the agent never opened`);
      }
      this.#creatingIdle.resolve();
    };
  }

  /** Route `sessionId` to `sink`, the updates held for it first. */
  attach(sessionId: string, sink: SessionSink): void {
    this.#sinks.set(sessionId, sink);
    for (const update of this.#early.take(sessionId)) sink.update(update);
  }

  /** Stop routing `sessionId`'s traffic. */
  detach(sessionId: string): void {
    this.#sinks.delete(sessionId);
  }

  /** A `session/update`'s params (untrusted), from a line of `bytes` bytes. */
  update(params: unknown, bytes: number): void {
    if (!isRecord(params) || typeof params.sessionId !== "string") {
      this.#logger.warn("Ignored a malformed session/update from the ACP agent");
      return;
    }
    const sink = this.#sinks.get(params.sessionId);
    if (sink) {
      sink.update(params.update);
    } else if (this.#creating > 0) {
      const dropped = this.#early.hold(params.sessionId, params.update, bytes);
      if (dropped !== undefined) this.#logger.warn(dropped);
    } else {
      this.#logger.debug(`Dropped an update for unknown session ${cut(params.sessionId, 200)}`);
    }
  }

  /** The sink of `sessionId`, if it is open. */
  get(sessionId: string): SessionSink | undefined {
    return this.#sinks.get(sessionId);
  }

  /** The sink of `sessionId` once the sessions being opened are (asked before its answer). */
  async afterOpening(sessionId: string): Promise<SessionSink | undefined> {
    if (this.#creating > 0) await this.#creatingIdle.promise;
    return this.#sinks.get(sessionId);
  }
}
