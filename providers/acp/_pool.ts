// Warm agent processes (`createAcpProvider({ pool })`): started, initialized
// and authenticated before any run asks, so a run's start costs a
// `session/new` instead of a process start. A run takes one; the pool refills
// in the background. Idle ones end after `maxIdleMs`; one that dies while
// idle is logged and replaced, within a bound on failures in a row so an
// agent that cannot start does not loop.
import type { Logger } from "@seam/host";
// Node's timers, in Deno too: an idle agent's timer must not keep the program running.
import { clearTimeout, setTimeout } from "node:timers";
import { settledWithin } from "./_async.ts";
import type { AgentConnection } from "./_connection.ts";

/** The validated `pool` option. */
export interface PoolSettings {
  /** How many idle, ready agents to keep. */
  readonly size: number;
  /** How long an idle agent is kept before it is ended. */
  readonly maxIdleMs: number;
}

/** Warm-ups that may fail in a row before the pool stops refilling on its own. */
export const MAX_FAILURES_IN_A_ROW = 3;

interface Idle {
  readonly connection: AgentConnection;
  readonly timer: ReturnType<typeof setTimeout>;
  readonly unlisten: () => void;
}

/** A pool of warm agent connections; each holds one hold of its connection. */
export class WarmPool {
  #state: "open" | "disposed" = "open";
  readonly #settings: PoolSettings;
  readonly #connect: () => AgentConnection;
  readonly #logger: Logger;
  readonly #startupTimeoutMs: number;
  readonly #idle: Idle[] = [];
  /** Warm-ups under way (their connections, and the promises to await at dispose). */
  readonly #warming = new Map<AgentConnection, Promise<void>>();
  #failures = 0;
  /** Agents being ended (awaited at dispose). */
  readonly #ending = new Set<Promise<void>>();
  #waiters: Array<() => void> = [];
  #disposal: Promise<void> | undefined;

  constructor(
    settings: PoolSettings,
    connect: () => AgentConnection,
    logger: Logger,
    startupTimeoutMs: number,
  ) {
    this.#settings = settings;
    this.#connect = connect;
    this.#logger = logger;
    this.#startupTimeoutMs = startupTimeoutMs;
    this.#fill();
  }

  /** Idle, ready agents. */
  get idle(): number {
    return this.#idle.length;
  }

  /**
   * Take a ready agent, its hold passed to the caller, or `undefined` when
   * none is idle; either way the pool refills in the background.
   */
  take(): AgentConnection | undefined {
    if (this.#state !== "open") return undefined;
    let taken: AgentConnection | undefined;
    while (!taken && this.#idle.length > 0) {
      const idle = this.#idle.shift()!;
      clearTimeout(idle.timer);
      idle.unlisten();
      if (idle.connection.usable) taken = idle.connection;
      else void this.#end(idle.connection);
    }
    if (taken) this.#failures = 0;
    // A run asked: the pool may try again after failures in a row.
    else if (this.#failures >= MAX_FAILURES_IN_A_ROW) this.#failures = MAX_FAILURES_IN_A_ROW - 1;
    this.#fill();
    return taken;
  }

  /**
   * Resolves once the pool is full, or has stopped refilling (failures in a
   * row, disposal), with the number of idle agents.
   */
  whenWarm(): Promise<number> {
    if (this.#settled()) return Promise.resolve(this.#idle.length);
    return new Promise((resolve) => this.#waiters.push(() => resolve(this.#idle.length)));
  }

  /** End every agent of the pool, idle or warming. Memoized. */
  dispose(): Promise<void> {
    return this.#disposal ??= (async () => {
      this.#state = "disposed";
      const idle = this.#idle.splice(0);
      for (const { timer, unlisten } of idle) {
        clearTimeout(timer);
        unlisten();
      }
      const warming = [...this.#warming];
      await Promise.all([
        ...idle.map(({ connection }) => this.#end(connection)),
        ...warming.map(([connection]) => connection.dispose("the ACP provider was disposed")),
      ]);
      await Promise.all(warming.map(([, warm]) => warm));
      await Promise.all([...this.#ending]);
      this.#wake();
    })();
  }

  #settled(): boolean {
    return this.#state !== "open" || this.#idle.length >= this.#settings.size ||
      (this.#warming.size === 0 && this.#failures >= MAX_FAILURES_IN_A_ROW);
  }

  #wake(): void {
    if (!this.#settled()) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #fill(): void {
    while (
      this.#state === "open" && this.#failures < MAX_FAILURES_IN_A_ROW &&
      this.#idle.length + this.#warming.size < this.#settings.size
    ) {
      const connection = this.#connect();
      connection.hold();
      const warm = this.#warm(connection).catch((error) => {
        this.#logger.error("Warming an ACP agent failed unexpectedly", error);
      }).finally(() => {
        this.#warming.delete(connection);
        this.#fill(); // after a failure: the next try (bounded by #failures)
        this.#wake();
      });
      this.#warming.set(connection, warm);
    }
  }

  async #warm(connection: AgentConnection): Promise<void> {
    const ready = (async () => {
      await connection.ready;
      await connection.authenticated();
    })();
    ready.catch(() => {});
    const inTime = await settledWithin(ready, this.#startupTimeoutMs);
    if (this.#state !== "open") return void await this.#end(connection);
    let failure: unknown;
    if (!inTime) {
      failure = new Error(
        `it did not answer initialize within ${this.#startupTimeoutMs} ms (startupTimeoutMs)`,
      );
    } else {
      failure = await ready.then(() => connection.failure, (error) => error);
    }
    if (failure !== undefined) return this.#failed(connection, "failed to start", failure);
    const idle: Idle = {
      connection,
      timer: setTimeout(() => this.#expire(idle), this.#settings.maxIdleMs).unref(),
      unlisten: connection.onFailure((error) => {
        const at = this.#idle.indexOf(idle);
        if (at < 0) return;
        this.#idle.splice(at, 1);
        clearTimeout(idle.timer);
        void this.#failed(connection, "died while idle", error).finally(() => this.#fill());
      }),
    };
    this.#idle.push(idle);
  }

  async #failed(connection: AgentConnection, what: string, error: unknown): Promise<void> {
    this.#failures++;
    const stop = this.#failures >= MAX_FAILURES_IN_A_ROW
      ? `; ${this.#failures} failures in a row: the pool refills again when a run starts`
      : "; replacing it";
    this.#logger.warn(`A warm ACP agent (connection ${connection.serial}) ${what}${stop}`, error);
    await this.#end(connection);
  }

  #expire(idle: Idle): void {
    const at = this.#idle.indexOf(idle);
    if (at < 0) return;
    this.#idle.splice(at, 1);
    idle.unlisten();
    this.#failures = 0;
    this.#logger.debug(
      `Ending warm ACP agent (connection ${idle.connection.serial}): idle for ${this.#settings.maxIdleMs} ms (pool.maxIdleMs)`,
    );
    void this.#end(idle.connection);
  }

  #end(connection: AgentConnection): Promise<void> {
    const ending = connection.release().catch((error) => {
      this.#logger.error("Ending a warm ACP agent failed", error);
    }).finally(() => this.#ending.delete(ending));
    this.#ending.add(ending);
    return ending;
  }
}
