/**
 * What outlives a task: the disposals still under way (shutdown waits for
 * them) and the finished runs kept for a follow-up message in their context,
 * keyed by who may continue them.
 */
import type { AgentRef, Logger, Scope } from "@seam/host";
import type { SubagentRun } from "@seam/subagent";
import type { TaskContextRecord } from "./_task_start.ts";
import type { LiveTask } from "./_live_task.ts";
import { stringify } from "./_builtins.ts";

/** Runs and scopes that live and die together (a run and the runs resumed from it). */
export class RunChain {
  readonly runs: SubagentRun[] = [];
  readonly scopes: Scope[];
  /** The depth cap the first run started under (resumed runs keep it), if any. */
  readonly maxDepth: number | undefined;
  /** What the runs' scope tells providers about the task they serve. */
  readonly context: TaskContextRecord;
  /** The budget the first run started under (the seam extension's), if any: resumed runs spend from it. */
  readonly budget: unknown;
  #current: LiveTask | undefined;
  /** Who waits for the current task (a run that asks before its task exists); made when one does. */
  #waiting: ((task: LiveTask) => void)[] | undefined;

  constructor(
    scope: Scope,
    maxDepth: number | undefined,
    context: TaskContextRecord,
    budget?: unknown,
  ) {
    this.scopes = [scope];
    this.maxDepth = maxDepth;
    this.context = context;
    this.budget = budget;
  }

  /** The task the chain's current run serves (where its input requests go). */
  get current(): LiveTask | undefined {
    return this.#current;
  }

  set current(task: LiveTask) {
    this.#current = task;
    const waiting = this.#waiting;
    if (!waiting) return;
    this.#waiting = undefined;
    for (const resolve of waiting) resolve(task);
  }

  /**
   * Forget the current task before the next run of the chain starts, so a
   * request that run makes at once waits for its own task instead of going
   * to the one that ended. Answers the task it forgot, for a start that fails.
   */
  handOver(): LiveTask | undefined {
    const previous = this.#current;
    this.#current = undefined;
    return previous;
  }

  /** Put back the task {@linkcode handOver} forgot (the next run did not start). */
  restore(previous: LiveTask | undefined): void {
    if (previous !== undefined && this.#current === undefined) this.current = previous;
  }

  /** The current task, once there is one (a run may ask before its task is made). */
  whenCurrent(): Promise<LiveTask> {
    if (this.#current) return Promise.resolve(this.#current);
    return new Promise((resolve) => (this.#waiting ??= []).push(resolve));
  }
}

/**
 * Disposals under way, counted rather than kept in a set: one per task, so
 * the count is all shutdown needs (a set churned a table per request).
 */
export class Disposals {
  #pending = 0;
  #drained: (() => void) | undefined;
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Count `promise` until it settles; a rejection is logged as `what` failing. */
  track(promise: Promise<unknown>, what: string): void {
    this.#pending++;
    promise.then(this.#settled, (error) => {
      try {
        this.#logger.error(`${what} failed`, error);
      } finally {
        this.#settled();
      }
    });
  }

  /** Dispose a chain's runs (newest first), then its scopes. */
  disposeChain(chain: RunChain): void {
    if (chain.runs.length === 1 && chain.scopes.length <= 1) {
      const run = chain.runs[0];
      const scope = chain.scopes[0];
      let done = run.dispose();
      if (scope) {
        done = done.then(() => scope.dispose(), (error) => {
          this.#logger.error(`Disposing run "${run.id}" failed`, error);
          return scope.dispose();
        });
      }
      this.track(done, "Disposing a task's run");
      return;
    }
    this.track(
      (async () => {
        for (let i = chain.runs.length - 1; i >= 0; i--) {
          try {
            await chain.runs[i].dispose();
          } catch (error) {
            this.#logger.error(`Disposing run "${chain.runs[i].id}" failed`, error);
          }
        }
        for (const scope of chain.scopes) await scope.dispose();
      })(),
      "Disposing a task's runs",
    );
  }

  /** Settles once nothing is under way. */
  async drained(): Promise<void> {
    while (this.#pending > 0) await new Promise<void>((resolve) => this.#drained = resolve);
    this.#drained = undefined;
  }

  readonly #settled = (): void => {
    if (--this.#pending === 0) this.#drained?.();
  };
}

/** A finished run kept for a follow-up in its context. */
export interface KeptRun {
  readonly owner: string | undefined;
  readonly provider: string;
  readonly contextId: string;
  readonly taskId: string;
  readonly run: SubagentRun & { resume: NonNullable<SubagentRun["resume"]> };
  readonly parent: AgentRef;
  readonly chain: RunChain;
}

/** A kept run and when it ends without a follow-up. */
interface Kept {
  readonly entry: KeptRun;
  readonly until: number;
}

/**
 * The finished runs that can `resume`, each until `idleMs` pass without a
 * follow-up, at most `perPrincipal` of one principal's (its least recently
 * finished pushed out first) and `total` in all; a run let go is disposed.
 * A run is keyed by (principal, provider, contextId): one principal can
 * never continue, replace or push out another's conversation.
 */
export class KeptRuns {
  // In the order they were kept, which is the order they expire in (one idle time for all).
  readonly #runs = new Map<string, Kept>();
  // Each principal's keys, oldest first.
  readonly #owners = new Map<string | undefined, Set<string>>();
  readonly #perPrincipal: number;
  readonly #total: number;
  readonly #idleMs: number;
  readonly #disposals: Disposals;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    limits: { maxResumableRuns: number; maxLiveTasks: number; keptRunIdleMs: number },
    disposals: Disposals,
  ) {
    this.#perPrincipal = limits.maxResumableRuns;
    this.#total = limits.maxLiveTasks;
    this.#idleMs = limits.keptRunIdleMs;
    this.#disposals = disposals;
  }

  /** Whether runs are kept at all. */
  get enabled(): boolean {
    return this.#perPrincipal > 0;
  }

  /** Keep `entry`, disposing one it replaces and the oldest beyond the caps. */
  keep(entry: KeptRun): void {
    const key = keyOf(entry.owner, entry.provider, entry.contextId);
    this.#drop(key, true);
    this.#put(entry, key);
    const own = this.#owners.get(entry.owner)!;
    if (own.size > this.#perPrincipal) this.#drop(own.values().next().value!, true);
    if (this.#runs.size > this.#total) this.#drop(this.#runs.keys().next().value!, true);
  }

  /** The run kept for this principal's context on this provider, if any (left kept). */
  get(owner: string | undefined, provider: string, contextId: string): KeptRun | undefined {
    return this.#runs.get(keyOf(owner, provider, contextId))?.entry;
  }

  /** Take the run kept for this principal's context on this provider, if any. */
  take(owner: string | undefined, provider: string, contextId: string): KeptRun | undefined {
    return this.#drop(keyOf(owner, provider, contextId), false);
  }

  /** Put back a run taken for a resume that failed to start (its idle time starts again). */
  restore(entry: KeptRun): void {
    this.#put(entry, keyOf(entry.owner, entry.provider, entry.contextId));
  }

  /** Dispose every kept run. */
  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const kept of this.#runs.values()) this.#disposals.disposeChain(kept.entry.chain);
    this.#runs.clear();
    this.#owners.clear();
  }

  #put(entry: KeptRun, key: string): void {
    this.#runs.set(key, { entry, until: Date.now() + this.#idleMs });
    let own = this.#owners.get(entry.owner);
    if (!own) this.#owners.set(entry.owner, own = new Set());
    own.add(key);
    this.#timer ??= setTimeout(this.#expire, this.#idleMs);
  }

  /** Forget the run kept under `key` (disposing it when `dispose`); answers it. */
  #drop(key: string, dispose: boolean): KeptRun | undefined {
    const kept = this.#runs.get(key);
    if (!kept) return undefined;
    this.#runs.delete(key);
    const own = this.#owners.get(kept.entry.owner)!;
    own.delete(key);
    if (own.size === 0) this.#owners.delete(kept.entry.owner);
    if (dispose) this.#disposals.disposeChain(kept.entry.chain);
    return kept.entry;
  }

  /** Dispose the runs whose idle time is up; wait for the next one's. */
  readonly #expire = (): void => {
    this.#timer = undefined;
    const now = Date.now();
    for (const [key, kept] of this.#runs) {
      if (kept.until > now) {
        this.#timer = setTimeout(this.#expire, kept.until - now);
        return;
      }
      this.#drop(key, true);
    }
  };
}

function keyOf(owner: string | undefined, provider: string, contextId: string): string {
  return stringify([owner ?? null, provider, contextId]);
}
