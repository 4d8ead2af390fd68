/**
 * The journal of one task this instance runs, on a shared
 * {@linkcode TaskStorage}: the task's changes queue up and are committed in
 * batches (one append per batch, at the generation the last one left), so a
 * run streams text as fast as it makes it, whatever a commit costs. Text
 * deltas that wait together are coalesced into one event. Nothing is
 * announced before it is committed: the storage wakes the readers after the
 * append. The bodies of the push notifications those changes announce ride
 * in the same append (`TaskAppend.pushes`), so a storage that keeps the push
 * outbox writes them in the same transaction. While the storage is out of
 * reach the batch waits and is retried (as it was: a write whose answer was
 * lost with its connection may have committed, which the retry's conflict
 * and the log then tell, and the journal goes on after it);
 * otherwise a conflict means another instance ended the task (its lease had
 * lapsed), and the journal stops.
 */
import type { Logger } from "@seam/host";
import { isTaskStorageError, type JsonObject, type TaskStorage } from "../task_storage.ts";
import { isTerminalState, type StoredTask } from "../task_store.ts";
import { stringify } from "../core/_builtins.ts";

/** Where a journal is: writing, or stopped (its task ended elsewhere). */
type JournalState = "open" | "lost";

/** What a journal needs from its task and its cluster. */
export interface JournalContext {
  readonly storage: TaskStorage;
  readonly logger: Logger;
  readonly instance: string;
  /** The task's snapshot as it is now (with the text streamed so far). */
  snapshot(): StoredTask;
  /** Another writer ended the task: stop its run. */
  lost(): void;
  /** Whether the last write reached the storage. */
  reached(ok: boolean, error?: unknown): void;
}

const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 2_000;

/** A write that failed unanswered: how many of its batch's first events and pushes it held. */
interface Written {
  readonly events: number;
  readonly pushes: number;
}

/** One task's journal (see the module doc). */
export class Journal {
  #state: JournalState = "open";
  #generation = 0;
  /** How many events the batch being written holds (0 between writes). */
  #writing = 0;
  #queue: JsonObject[] = [];
  /**
   * How many of the queue's first events are a write that failed unanswered
   * (it may have committed as it was): nothing is merged into them.
   */
  #sealed = 0;
  /** Push bodies waiting with the queued events. */
  #pushes: string[] = [];
  #waiters: (() => void)[] = [];
  #scheduled = false;
  #flushing = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #wakeRetry: (() => void) | undefined;
  #creation: { resolve(): void; reject(error: unknown): void } | undefined;
  /**
   * Settles once the task's first write is committed; rejects at its first
   * failure (then nobody but this instance knows of the task).
   */
  readonly created: Promise<void>;
  readonly #context: JournalContext;

  constructor(context: JournalContext) {
    this.#context = context;
    this.created = new Promise<void>((resolve, reject) => this.#creation = { resolve, reject });
    this.created.catch(() => {}); // observed by whoever awaits it
  }

  /** The generation committed last. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * The generation the task reaches once everything emitted until now is
   * committed: what a change made from here on comes after.
   */
  get emitted(): number {
    return this.#generation + this.#writing + this.#queue.length;
  }

  /** Whether nothing waits to be written. */
  get idle(): boolean {
    return !this.#flushing && !this.#scheduled && this.#queue.length === 0;
  }

  /** Queue a change; consecutive text deltas merge into one event. */
  emit(event: JsonObject): void {
    if (this.#state !== "open") return;
    this.#enqueue(event);
    this.#schedule();
  }

  /**
   * Queue a push notification's body: it is written with the next batch of
   * events (it always follows the event it announces).
   */
  notify(body: string): void {
    if (this.#state !== "open") return;
    this.#pushes.push(body);
    this.#schedule();
  }

  /** Settles once everything queued until now is committed (or the journal stopped). Never rejects. */
  persist(): Promise<void> {
    if (this.#state !== "open") return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#schedule();
    return done;
  }

  /** Give up waiting for the storage: stop retrying, settle every waiter. */
  abandon(): void {
    this.#state = "lost";
    this.#queue = [];
    this.#pushes = [];
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#wakeRetry?.();
    this.#settle();
  }

  #schedule(): void {
    if (this.#scheduled || this.#flushing) return;
    this.#scheduled = true;
    // Everything the task does until the next macrotask goes in one batch: a
    // run that ends at once is one commit, not one per state
    // (bench/postgres_figures.ts). While a batch commits the next one gathers.
    nextMacrotask(() => this.#flush());
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    if (this.#state !== "open") return this.#settle();
    if (this.#queue.length === 0) return this.#settle();
    this.#flushing = true;
    let delay = RETRY_FIRST_MS;
    /**
     * The writes at this generation that failed without an answer, oldest
     * first, by their counts of events and pushes: each one is the one before
     * with more after it (the batch retried with what came meanwhile), so the
     * batch written now starts with every one of them, and any may have
     * committed (the connection dropped after the commit, before its answer).
     * Counts, not copies: an outage retries every 2 s, and a copy of each
     * batch grew with the square of its length.
     */
    let unanswered: Written[] = [];
    while (this.#state === "open" && this.#queue.length > 0) {
      const events = this.#queue;
      const pushes = this.#pushes;
      const waiters = this.#waiters;
      this.#queue = [];
      this.#sealed = 0;
      this.#pushes = [];
      this.#waiters = [];
      const record = this.#context.snapshot();
      this.#writing = events.length;
      try {
        this.#generation = await this.#context.storage.append({
          record,
          expected: this.#generation,
          events,
          instance: isTerminalState(record.task.status.state) ? undefined : this.#context.instance,
          ...(pushes.length > 0 ? { pushes } : {}),
        });
        this.#writing = 0;
        this.#context.reached(true);
        this.#creation?.resolve();
        this.#creation = undefined;
        for (const resolve of waiters) resolve();
        delay = RETRY_FIRST_MS;
        unanswered = [];
      } catch (caught) {
        this.#writing = 0;
        let error = caught;
        if (isTaskStorageError(error, "CONFLICT") && unanswered.length > 0) {
          try {
            const committed = await this.#committed(record.task.id, events, unanswered);
            if (committed) {
              // Our own write took the generation: go on after it, nothing twice.
              this.#generation += committed.events;
              this.#queue = events.slice(committed.events).concat(this.#queue);
              this.#pushes = pushes.slice(committed.pushes).concat(this.#pushes);
              this.#waiters = waiters.concat(this.#waiters);
              unanswered = [];
              this.#context.reached(true);
              continue;
            }
          } catch (readFailure) {
            // Not known yet: retry, and look again at the next conflict.
            error = readFailure;
          }
        }
        if (isTaskStorageError(error, "CONFLICT")) {
          this.#context.logger.warn(
            `Task "${record.task.id}" was ended by another instance (this one's lease lapsed); stopping its run`,
          );
          this.#state = "lost";
          for (const resolve of waiters) resolve();
          this.#context.lost();
          break;
        }
        this.#context.reached(false, error);
        this.#creation?.reject(error);
        this.#creation = undefined;
        this.#context.logger.error(
          `Writing task "${record.task.id}" failed; retrying in ${delay} ms`,
          error,
        );
        // Put the batch back, as it was, in front of what came since, and wait.
        const last = unanswered[unanswered.length - 1];
        if (last?.events !== events.length || last.pushes !== pushes.length) {
          unanswered.push({ events: events.length, pushes: pushes.length });
        }
        const since = this.#queue;
        this.#queue = events;
        this.#sealed = events.length;
        for (const event of since) this.#enqueue(event);
        this.#pushes = pushes.concat(this.#pushes);
        this.#waiters = waiters.concat(this.#waiters);
        await new Promise<void>((resolve) => {
          this.#wakeRetry = resolve;
          this.#retry = setTimeout(resolve, delay);
        });
        this.#retry = undefined;
        this.#wakeRetry = undefined;
        delay = Math.min(delay * 2, RETRY_MAX_MS);
      }
    }
    this.#flushing = false;
    if (this.#queue.length === 0) this.#settle();
    else this.#schedule();
  }

  /**
   * Which of the `unanswered` writes committed, if one did: the longest whose
   * events (the first of `events`, the batch that starts with all of them)
   * the log has, all of them, right after this generation.
   */
  async #committed(
    id: string,
    events: readonly JsonObject[],
    unanswered: readonly Written[],
  ): Promise<Written | undefined> {
    const longest = unanswered[unanswered.length - 1].events;
    const logged = await this.#context.storage.read(id, this.#generation, longest);
    let same = 0;
    while (
      same < logged.length && same < longest &&
      logged[same].generation === this.#generation + same + 1 &&
      stringify(logged[same].event) === stringify(events[same])
    ) same++;
    for (let i = unanswered.length - 1; i >= 0; i--) {
      if (unanswered[i].events <= same) return unanswered[i];
    }
    return undefined;
  }

  /**
   * Queue an event last, merged into the last one when both are text deltas
   * and that one is not sealed (`emit`, and the events that arrived during
   * a failed write).
   */
  #enqueue(event: JsonObject): void {
    const last = this.#queue.length > this.#sealed
      ? this.#queue[this.#queue.length - 1]
      : undefined;
    const merged = last && coalesce(last, event);
    if (merged) this.#queue[this.#queue.length - 1] = merged;
    else this.#queue.push(event);
  }

  #settle(): void {
    if (this.#queue.length > 0 && this.#state === "open") return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}

/**
 * Run `fn` in the next macrotask: `setImmediate` where the runtime has it
 * (Deno, Node, Bun), else `setTimeout(fn, 0)`. Deno's `setTimeout(fn, 0)`
 * fires after about 2 ms (its timers have a millisecond's grain), which every
 * shared-storage request waited for; `setImmediate` runs after the pending
 * microtasks as well, within microseconds (bench/README.md, "Gateway on
 * PostgreSQL").
 */
const nextMacrotask: (fn: () => void) => void =
  (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate ??
    ((fn) => setTimeout(fn, 0));

/** Two text deltas of the output artifact as one, or undefined when they do not merge. */
function coalesce(a: JsonObject, b: JsonObject): JsonObject | undefined {
  const x = a.artifactUpdate as Record<string, unknown> | undefined;
  const y = b.artifactUpdate as Record<string, unknown> | undefined;
  if (!x || !y || x.lastChunk || y.lastChunk || y.append !== true) return undefined;
  const ax = x.artifact as { artifactId: string; parts: { text?: string }[] };
  const ay = y.artifact as { artifactId: string; parts: { text?: string }[] };
  if (ax.artifactId !== ay.artifactId || ax.parts.length !== 1 || ay.parts.length !== 1) {
    return undefined;
  }
  const tx = ax.parts[0].text;
  const ty = ay.parts[0].text;
  if (typeof tx !== "string" || typeof ty !== "string") return undefined;
  return {
    artifactUpdate: { ...x, artifact: { ...ax, parts: [{ text: tx + ty }] } },
  };
}
