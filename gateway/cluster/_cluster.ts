/**
 * This gateway as one instance of many on a shared {@linkcode TaskStorage}:
 * its instance id and lease (a heartbeat every sixth of the TTL), the
 * journals of the tasks it runs, the streams it serves from the log, the
 * commands it forwards to the instance that runs a task (and answers for its
 * own), and the reaper that ends the tasks of an instance whose lease lapsed:
 * `FAILED`, saying the run was lost with its instance. What needs only the
 * storage lives beside it: sending a command and waiting on another
 * instance's task in _forward.ts, a reaper pass in _reaper.ts, the append of
 * a late steering message in _late_steering.ts, a follow-up in a context
 * whose run another instance keeps in _continue_elsewhere.ts.
 */
import { jsonCopy, type Logger } from "@seam/host";
import { shuttingDown, tooMany } from "../core/_errors.ts";
import { answer, type ClusterEngine } from "./_forward.ts";
import { Journal } from "./_journal.ts";
import { storeLateSteering } from "./_late_steering.ts";
import { ShortLivedMap } from "../core/_short_lived_map.ts";
import type { PushService } from "../push/_push.ts";
import { endUnconfirmed, reap, type ReapContext } from "./_reaper.ts";
import { unavailable } from "../core/_store_errors.ts";
import { isFinalEvent, LogStream } from "./_log_stream.ts";
import type { LiveTask } from "../core/_live_task.ts";
import { type StreamFraming, TaskSubscriber } from "../http/_sse.ts";
import { isTaskStorageError, type JsonObject, type TaskStorage } from "../task_storage.ts";
import type { StoredTask } from "../task_store.ts";

/** What the cluster needs from the gateway. */
export interface ClusterOptions {
  readonly storage: TaskStorage;
  readonly logger: Logger;
  readonly maxSubscribers: number;
  readonly maxBufferedBytes: number;
  /** How long a forwarded command may take to be answered, in ms. */
  readonly commandTimeoutMs: number;
  /** Answers the commands other instances forward to a task this one runs. */
  readonly engine: ClusterEngine;
  /**
   * Push, when it is on. When the storage writes the outbox itself
   * (`enqueuedBy`), notifications ride in the journals' appends; the
   * reaper's ending of an orphan is announced either way.
   */
  readonly push?: PushService;
}

/** Where the cluster is: serving, or closed. */
type ClusterState = "open" | "closed";

/** The gateway's place among its instances (see the module doc). */
export class Cluster {
  /** This instance's id: the owner its tasks name while it runs them. */
  readonly instance: string = crypto.randomUUID();
  #state: ClusterState = "open";
  #ready: Promise<void> | undefined;
  /** The storage's last failure while out of reach (for the log, never for a client); undefined while it answers. */
  #unreachable: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #loop: Promise<void> | undefined;
  #beats = 0;
  /** When the last heartbeat came through (ms). */
  #lastBeat = Date.now();
  /** Whether a heartbeat failed since the last one that came through. */
  #beatFailed = false;
  /** Until when the reaper waits (ms): a lease after this instance reached the storage again. */
  #reapFrom = 0;
  // Held only while each task runs here (_short_lived_map.ts): a plain Map
  // dragged every task's journal, and its task, into the old generation.
  readonly #journals = new ShortLivedMap<string, Journal>();
  readonly #streams = new Map<string, number>();
  /** The streams read from the log open on this instance, which close() ends. */
  readonly #logStreams = new Set<LogStream>();
  /**
   * The tasks whose creation failed here (task id → when, in ms): the write
   * may have committed all the same (its answer lost with its connection),
   * leaving a live task naming this instance, which no reaper ends while
   * this instance renews its lease. Ended once the storage answers again
   * (_reaper.ts, `endUnconfirmed`); at most `MAX_UNCONFIRMED`.
   */
  readonly #unconfirmed = new Map<string, number>();
  /** The late steering messages being stored (`amend`). */
  readonly #amends = new Set<Promise<void>>();
  readonly #stopServing: () => void;
  readonly #options: ClusterOptions;
  /** Whether the storage writes the push outbox itself (`enqueuedBy`). */
  readonly #transactional: boolean;

  constructor(options: ClusterOptions) {
    this.#options = options;
    const push = options.push;
    this.#transactional = push?.outbox.enqueuedBy === options.storage;
    if (push && this.#transactional) push.route = (taskId, body) => this.notify(taskId, body);
    this.#stopServing = options.storage.serve(
      this.instance,
      (command) => answer(options.engine, options.logger, command, (id) => this.emitted(id)),
    );
    const first = this.#beat().then(() => {
      this.#ready = undefined;
    });
    this.#ready = first;
    this.#loop = first.then(() => this.#schedule());
  }

  /** The storage. */
  get storage(): TaskStorage {
    return this.#options.storage;
  }

  /** Settles once the first heartbeat was tried; undefined after. */
  get ready(): Promise<void> | undefined {
    return this.#ready;
  }

  /**
   * Refuse new work while the storage is out of reach.
   *
   * @throws {GatewayError} 503.
   */
  assertReachable(): void {
    if (this.#unreachable !== undefined) throw unavailable();
  }

  /**
   * Before a new task: wait for the first heartbeat, then refuse it while the
   * storage is out of reach.
   *
   * @throws {GatewayError} 503.
   */
  async admit(): Promise<void> {
    await this.#ready;
    this.assertReachable();
  }

  /** Remember `taskId`, whose creation failed, to end it should it be stored all the same. */
  unconfirm(taskId: string): void {
    if (this.#unconfirmed.size < MAX_UNCONFIRMED) {
      this.#unconfirmed.set(taskId, Date.now());
      return;
    }
    this.#options.logger.error(
      `Task "${taskId}" could not be recorded, and ${MAX_UNCONFIRMED} others wait to be checked: if it was stored all the same, it stays live until this instance stops`,
    );
  }

  /**
   * Start journaling a task this instance runs: its creation is generation
   * 1. Answers when that is committed (rejects if it could not be).
   */
  track(taskId: string, snapshot: () => StoredTask, lost: () => void): Promise<void> {
    const journal = new Journal({
      storage: this.#options.storage,
      logger: this.#options.logger,
      instance: this.instance,
      snapshot,
      lost,
      reached: (ok, error) => this.#reached(ok, error),
    });
    this.#journals.set(taskId, journal);
    // The task as it is now: the live record goes on changing until the batch is written.
    journal.emit({ task: jsonCopy(snapshot().task) as JsonObject });
    return journal.created;
  }

  /** Whether this instance runs task `taskId` (journals it). */
  runs(taskId: string): boolean {
    return this.#journals.has(taskId);
  }

  /** Stop writing a task that could not be created: nothing else knows of it. */
  abandon(taskId: string): void {
    this.#journals.get(taskId)?.abandon();
  }

  /** The task's snapshot changed: write it with what is queued. */
  persist(taskId: string): Promise<void> | undefined {
    return this.#journals.get(taskId)?.persist();
  }

  /**
   * A change of a task this instance runs. A status update carries the
   * task's metadata, which the live record goes on changing until the batch
   * is written: it is logged as it is now.
   */
  publish(taskId: string, event: JsonObject): void {
    const journal = this.#journals.get(taskId);
    if (!journal) return;
    const update = event.statusUpdate as JsonObject | undefined;
    if (update?.metadata !== undefined) {
      journal.emit({ statusUpdate: { ...update, metadata: jsonCopy(update.metadata) } });
    } else journal.emit(event);
  }

  /**
   * A push notification's body for a task this instance runs: written with
   * the task's next append. Answers false when the task has no journal here.
   */
  notify(taskId: string, body: string): boolean {
    const journal = this.#journals.get(taskId);
    if (!journal) return false;
    journal.notify(body);
    return true;
  }

  /**
   * A steering message that `live`'s run took as the task ended: once the
   * final state is committed (and the journal gone), the stored history gets
   * what it lacks of the live one, in one more append at the generation the
   * storage is at. Its event is the task as it now is, terminal, which ends a
   * stream as the terminal status does (`isFinalEvent`): a client resuming
   * after that status sees the task once more, never a task that went on. It
   * keeps the end's `updatedAt` (as the memory store's path does): a late
   * message is no change of state, and moves no task in `ListTasks`.
   *
   * The end is waited for at most a second (`AMEND_WAIT_MS`, in
   * _late_steering.ts, which writes the append); nothing is
   * written unless the stored task is terminal (`done` settles too when the
   * journal stopped: at close, after a lost lease). {@linkcode close} waits
   * for the amends under way.
   *
   * @throws {GatewayError} naming the task, saying the run took the message
   * but the task's stored history may lack it: 503 (`STORE_UNAVAILABLE`)
   * while its end is not stored or the store is out of reach.
   */
  amend(live: LiveTask): Promise<void> {
    const amending = storeLateSteering(live, this.#options.storage, this.#options.logger);
    this.#amends.add(amending);
    const settled = () => this.#amends.delete(amending);
    amending.then(settled, settled);
    return amending;
  }

  /** The task's final state is written: forget its journal. */
  untrack(taskId: string): void {
    this.#journals.delete(taskId);
  }

  /**
   * The generation task `taskId` (run here) reaches once what it emitted
   * until now is committed; undefined for a task not run here.
   */
  emitted(taskId: string): number | undefined {
    return this.#journals.get(taskId)?.emitted;
  }

  /**
   * A stream of task `taskId` from the log after `cursor`; with `opening`,
   * from the stored task once it reached that generation (_log_stream.ts).
   *
   * @throws {GatewayError} beyond the subscriber cap, or once closed.
   */
  stream(
    taskId: string,
    framing: StreamFraming,
    cursor: number,
    opening?: number,
  ): TaskSubscriber {
    // A subscribe that read the storage while close() ran would open a stream no one ends.
    if (this.#state === "closed") throw shuttingDown();
    const open = this.#streams.get(taskId) ?? 0;
    const cap = this.#options.maxSubscribers;
    if (open >= cap) {
      throw tooMany(
        `Too many subscribers: task "${taskId}" has ${open} streams open on this instance (the limit is ${cap}); poll it with GetTask instead`,
        "TOO_MANY_SUBSCRIBERS",
      );
    }
    this.#streams.set(taskId, open + 1);
    const subscriber = new TaskSubscriber(framing, this.#options.maxBufferedBytes);
    const stream = new LogStream(
      this.#options.storage,
      taskId,
      cursor,
      subscriber,
      this.#options.logger,
      () => {
        this.#logStreams.delete(stream);
        const n = (this.#streams.get(taskId) ?? 1) - 1;
        if (n <= 0) this.#streams.delete(taskId);
        else this.#streams.set(taskId, n);
      },
      opening,
    );
    this.#logStreams.add(stream);
    stream.start();
    return subscriber;
  }

  /**
   * Stop: the streams read from the log (their clients resume elsewhere), the
   * heartbeat, the reaper and serving commands; wait (bounded) for
   * the journals and the late steering messages being stored (`amend`), which
   * a storage closed next would cut off.
   */
  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    // A stream of a task another instance runs would stay open until that task
    // ends: each ends now, and its client resumes elsewhere with Last-Event-ID.
    for (const stream of [...this.#logStreams]) stream.close();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#stopServing();
    await this.#loop;
    const end = Date.now() + 5_000;
    while (
      (this.#amends.size > 0 || [...this.#journals.values()].some((j) => !j.idle)) &&
      Date.now() < end
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const journal of this.#journals.values()) journal.abandon();
    this.#journals.clear();
  }

  #reached(ok: boolean, error?: unknown): void {
    if (ok) {
      this.#unreachable = undefined;
    } else if (isTaskStorageError(error, "UNAVAILABLE")) {
      this.#unreachable = (error as Error).message;
    }
  }

  #schedule(): void {
    if (this.#state !== "open") return;
    const ttl = this.#options.storage.leaseTtlMs;
    // Beat six times a lease; look for orphans at every other beat.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#loop = (async () => {
        await this.#beat();
        if (
          ++this.#beats % 2 === 0 && this.#unreachable === undefined &&
          Date.now() >= this.#reapFrom
        ) await this.#reap();
        if (this.#unconfirmed.size > 0 && this.#unreachable === undefined) {
          await endUnconfirmed(this.#reapContext(), this.#unconfirmed);
        }
      })().then(() => this.#schedule());
    }, Math.max(20, Math.floor(ttl / 6)));
  }

  async #beat(): Promise<void> {
    try {
      await this.#options.storage.heartbeat(this.instance);
      this.#unreachable = undefined;
      const now = Date.now();
      const ttl = this.#options.storage.leaseTtlMs;
      // Back after failing (or taking a lease) to reach the storage: the other
      // instances may have been cut off as long, their leases lapsed for that
      // alone. Each renews within a lease of being back: wait that long before
      // ending their tasks as orphans, or an outage longer than a lease would
      // fail every live task but those of the first instance back.
      if (this.#beatFailed || now - this.#lastBeat > ttl) this.#reapFrom = now + ttl;
      this.#beatFailed = false;
      this.#lastBeat = now;
    } catch (error) {
      this.#beatFailed = true;
      if (this.#unreachable === undefined) {
        this.#options.logger.error("Renewing this instance's lease failed", error);
      }
      this.#unreachable = error instanceof Error ? error.message : String(error);
    }
  }

  /** End every orphan (a live task whose instance's lease lapsed) FAILED (_reaper.ts). */
  #reap(): Promise<void> {
    return reap(this.#reapContext());
  }

  /** What a reaper pass (_reaper.ts) needs of this instance. */
  #reapContext(): ReapContext {
    return {
      storage: this.#options.storage,
      logger: this.#options.logger,
      push: this.#options.push,
      transactional: this.#transactional,
      instance: this.instance,
      open: () => this.#state === "open",
      runsHere: (taskId) => this.#journals.has(taskId),
    };
  }
}

/**
 * How many tasks whose creation failed an instance remembers to check (each
 * an id and a time): an outage fails every creation it meets, and a burst of
 * them must not hold memory without bound.
 */
const MAX_UNCONFIRMED = 10_000;

/** Whether the event is a task's last. */
export { isFinalEvent };
