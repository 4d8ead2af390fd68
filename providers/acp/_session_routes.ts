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

/** The most child sessions (ACP `subagent_update`) followed per open session. */
export const MAX_CHILD_SESSIONS = 256;

/** Where one session's traffic goes. */
export interface SessionSink {
  /** One `session/update` object (untrusted JSON), in wire order. */
  update(update: unknown): void;
  /**
   * A `session/update` of a child session the agent announced (at any depth)
   * under this one: `from` is the session it came on, this one's id or a
   * child's. A `subagent_update` comes here too, from the session that
   * announces the child.
   */
  child(from: string, update: unknown): void;
  /** Decide a permission request; `signal` aborts when the agent withdraws it. */
  permission(params: PermissionParams, signal: AbortSignal): Promise<PermissionOutcome>;
  /** The agent answered the session's `session/prompt`: what follows is no part of that turn. */
  answered(): void;
}

/** The sessions of one connection and the sessions being opened. */
export class SessionRoutes {
  readonly #logger: Logger;
  #sinks = new Map<string, SessionSink>();
  /** Each announced child session's open (root) session. */
  #children = new Map<string, string>();
  /** Per open session, how many children it has; the ones that hit the bound were logged. */
  #childCounts = new Map<string, number>();
  #early = new EarlyUpdates();
  /** A child session claimed by a second session was logged. */
  #claimedLogged = false;
  /** Each `session/prompt` written and not answered yet: its request id → its session. */
  #unanswered = new Map<unknown, string>();
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
    for (const [id, session] of this.#unanswered) {
      if (session === sessionId) this.#unanswered.delete(id);
    }
    if (!this.#childCounts.delete(sessionId)) return;
    for (const [child, root] of this.#children) {
      if (root === sessionId) this.#children.delete(child);
    }
  }

  /** A `session/update`'s params (untrusted), from a line of `bytes` bytes. */
  update(params: unknown, bytes: number): void {
    if (!isRecord(params) || typeof params.sessionId !== "string") {
      this.#logger.warn("Ignored a malformed session/update from the ACP agent");
      return;
    }
    const sink = this.#sinks.get(params.sessionId);
    const root = sink ? params.sessionId : this.#children.get(params.sessionId);
    if (root !== undefined && isRecord(params.update)) {
      const rootSink = this.#sinks.get(root)!;
      if (params.update.sessionUpdate === "subagent_update") {
        if (this.#announce(root, params.update.sessionId)) {
          rootSink.child(params.sessionId, params.update);
        }
        return;
      }
      if (!sink) return rootSink.child(params.sessionId, params.update);
    }
    if (sink) {
      sink.update(params.update);
    } else if (this.#creating > 0) {
      const dropped = this.#early.hold(params.sessionId, params.update, bytes);
      if (dropped !== undefined) this.#logger.warn(dropped);
    } else {
      this.#logger.debug(`Dropped an update for unknown session ${cut(params.sessionId, 200)}`);
    }
  }

  /**
   * Follow child session `child` (untrusted) under open session `root`,
   * within the bound; whether it is followed.
   */
  #announce(root: string, child: unknown): boolean {
    if (typeof child !== "string" || child === "") {
      this.#logger.warn("Ignored a subagent_update without a session id");
      return false;
    }
    const known = this.#children.get(child);
    if (known !== undefined) {
      if (known !== root && !this.#claimedLogged) {
        this.#claimedLogged = true; // once per connection: an agent may do it on every update
        this.#logger.warn(
          `Ignored a subagent_update of session ${cut(root, 200)} naming ${
            cut(child, 200)
          }, a child session of another session (its traffic stays with that one)`,
        );
      }
      return known === root;
    }
    if (this.#sinks.has(child)) {
      this.#logger.warn(
        `Ignored a subagent_update naming open session ${cut(child, 200)} as a child`,
      );
      return false;
    }
    const count = this.#childCounts.get(root) ?? 0;
    if (count >= MAX_CHILD_SESSIONS) {
      if (count === MAX_CHILD_SESSIONS) {
        this.#childCounts.set(root, count + 1);
        this.#logger.warn(
          `ACP session ${
            cut(root, 200)
          } announced more than ${MAX_CHILD_SESSIONS} child sessions: ignoring the rest`,
        );
      }
      return false;
    }
    this.#childCounts.set(root, count + 1);
    this.#children.set(child, root);
    return true;
  }

  /** `session/prompt` request `id` of `sessionId` was written. */
  prompted(id: unknown, sessionId: string): void {
    this.#unanswered.set(id, sessionId);
  }

  /**
   * A response (`id`) arrived: when it answers a prompt, its session's sink
   * is told now, not once the SDK resolves the request, so the updates that
   * follow it on the wire are not taken for the turn's.
   */
  answered(id: unknown): void {
    const sessionId = this.#unanswered.get(id);
    if (sessionId === undefined) return;
    this.#unanswered.delete(id);
    this.#sinks.get(sessionId)?.answered();
  }

  /** The agent's `session/request_permission`, to its session's sink (`cancelled` for none). */
  async permission(
    params: Record<string, unknown> & PermissionParams,
    signal: AbortSignal,
  ): Promise<PermissionOutcome> {
    const sessionId = String(params.sessionId);
    // Asked before session/new was answered: wait for the answers.
    const sink = this.get(sessionId) ?? await this.afterOpening(sessionId);
    if (!sink) {
      this.#logger.warn(
        `Cancelled a permission request for unknown session ${cut(sessionId, 200)}`,
      );
      return { outcome: "cancelled" };
    }
    return await sink.permission(params, signal);
  }

  /** The sink of `sessionId`, if it is open (a child session's: its open session's). */
  get(sessionId: string): SessionSink | undefined {
    const root = this.#children.get(sessionId);
    return this.#sinks.get(root ?? sessionId);
  }

  /** The sink of `sessionId` once the sessions being opened are (asked before its answer). */
  async afterOpening(sessionId: string): Promise<SessionSink | undefined> {
    if (this.#creating > 0) await this.#creatingIdle.promise;
    return this.#sinks.get(sessionId);
  }
}
