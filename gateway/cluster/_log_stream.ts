/**
 * A stream of one task read from a shared {@linkcode TaskStorage}'s event
 * log: the entries after a cursor (a generation), then each new one as the
 * storage announces its commit, every frame with its generation as the SSE
 * `id`, so a client that reconnects (to any instance) with `Last-Event-ID`
 * misses nothing and sees nothing twice. It ends after the task's terminal
 * event (or at an interrupted state it is waiting in), when the client goes
 * away, or with an error frame when the storage cannot be read: a read the
 * storage fails as out of reach (`UNAVAILABLE`: one connection dropped, the
 * pool reconnecting) is tried again from the same cursor after 100, 300 and
 * 600 ms first, so a blip does not end every stream reading at that moment;
 * an outage past that second ends it as before (the client resumes with
 * `Last-Event-ID` on its own backoff), and any other failure at once.
 *
 * A stream that opens on a task already under way (a follow-up's: an
 * answer, a steering message) opens instead on the stored task once it has
 * reached a generation (what the follow-up led to), then the entries after
 * that: replayed from the start, it would show, and end at, the request the
 * answer answered.
 */
import type { Logger } from "@seam/host";
import { internalError } from "../core/_errors.ts";
import type { TaskSubscriber } from "../http/_sse.ts";
import { isTaskStorageError, type JsonObject, type TaskStorage } from "../task_storage.ts";
import { isTerminalState } from "../task_store.ts";
import type { A2ATaskState } from "../types.ts";

/** How many entries one read takes. */
const PAGE = 256;

/**
 * The waits before each new try of a read the storage failed as out of reach
 * (1 s in all): the next query gets a fresh connection at once, so a single
 * dropped one passes the first; a longer outage is told to the client soon.
 */
const RETRY_MS = [100, 300, 600];

/** Where a log stream is: reading, idle until woken, or ended. */
type LogStreamState = "idle" | "reading" | "ended";

/**
 * Whether `event` ends its task's stream: a terminal status update, or the
 * task itself in a terminal state (a late change to an ended task, `Cluster.amend`).
 */
export function isFinalEvent(event: JsonObject): boolean {
  const of = (event.statusUpdate ?? event.task) as
    | { status?: { state?: A2ATaskState } }
    | undefined;
  const state = of?.status?.state;
  return state !== undefined && isTerminalState(state);
}

/** Whether `state` is an interrupted one (INPUT_REQUIRED, AUTH_REQUIRED). */
const isInterrupted = (state: A2ATaskState | undefined): boolean =>
  state === "TASK_STATE_INPUT_REQUIRED" || state === "TASK_STATE_AUTH_REQUIRED";

/** Whether `event` puts its task in an interrupted state. */
function isInterruptEvent(event: JsonObject): boolean {
  return isInterrupted(
    (event.statusUpdate as { status?: { state?: A2ATaskState } } | undefined)?.status?.state,
  );
}

/** One subscriber fed from the log (see the module doc). */
export class LogStream {
  #state: LogStreamState = "idle";
  #again = false;
  #cursor: number;
  /** The generation the stored task must reach to open the stream on it; undefined once open. */
  #opening: number | undefined;
  /** Failed reads in a row, and the wait before the next try. */
  #failures = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #off: (() => void) | undefined;
  readonly #storage: TaskStorage;
  readonly #taskId: string;
  readonly #subscriber: TaskSubscriber;
  readonly #logger: Logger;
  readonly #ended: () => void;

  constructor(
    storage: TaskStorage,
    taskId: string,
    cursor: number,
    subscriber: TaskSubscriber,
    logger: Logger,
    ended: () => void,
    opening?: number,
  ) {
    this.#opening = opening;
    this.#storage = storage;
    this.#taskId = taskId;
    this.#cursor = cursor;
    this.#subscriber = subscriber;
    this.#logger = logger;
    this.#ended = ended;
    subscriber.onClose = () => this.#end();
  }

  /** Listen first (so no commit slips between), then read what is there. */
  start(): void {
    this.#off = this.#storage.subscribe(this.#taskId, (generation) => {
      if (generation === 0 || generation > this.#cursor) this.#pull();
    });
    this.#pull();
  }

  #pull(): void {
    if (this.#state === "ended") return;
    if (this.#state === "reading") {
      this.#again = true;
      return;
    }
    this.#state = "reading";
    this.#read().catch((error) => {
      if (this.#state !== "reading") return;
      const wait = RETRY_MS[this.#failures++];
      // The read changed nothing (the cursor moves only as a frame is
      // delivered): a new try from the same cursor misses and repeats nothing.
      if (wait !== undefined && isTaskStorageError(error, "UNAVAILABLE")) {
        this.#logger.warn(`Reading the log of task "${this.#taskId}" failed; trying again`, error);
        this.#retry = setTimeout(() => {
          this.#retry = undefined;
          this.#state = "idle";
          this.#pull();
        }, wait);
        return;
      }
      this.#logger.error(`Reading the log of task "${this.#taskId}" failed`, error);
      this.#subscriber.fail(
        internalError(
          `Stream interrupted: the task store cannot be read right now; resubscribe with Last-Event-ID ${this.#cursor} to resume`,
          { httpStatus: 503, metadata: { reason: "STORE_UNAVAILABLE" } },
        ),
      );
      this.#end();
    });
  }

  async #read(): Promise<void> {
    let more = true;
    while (more && this.#state === "reading") {
      this.#again = false;
      if (this.#opening !== undefined) {
        await this.#open();
        // Not reached yet: the next commit wakes the stream (one meanwhile already did).
        more = this.#again || this.#opening === undefined;
        continue;
      }
      const entries = await this.#storage.read(this.#taskId, this.#cursor, PAGE);
      this.#failures = 0;
      for (const [at, entry] of entries.entries()) {
        if (this.#state !== "reading") return;
        // Each generation once, in order, whatever the wake-ups did.
        if (entry.generation <= this.#cursor) continue;
        this.#cursor = entry.generation;
        // A stream ends at the task's end, or where it now waits for input.
        const final = isFinalEvent(entry.event) ||
          (isInterruptEvent(entry.event) && at === entries.length - 1 && entries.length < PAGE);
        this.#subscriber.deliver(entry.event, final, entry.generation);
        if (final || !this.#subscriber.open) return this.#end();
      }
      more = this.#again || entries.length === PAGE;
    }
    if (this.#state === "reading") this.#state = "idle";
  }

  /**
   * Open on the stored task once it reached generation `#opening`, or ended
   * short of it (another instance ended it, its run's last changes never
   * committed): its first frame, at that generation; the last, when the task
   * is over or waits.
   */
  async #open(): Promise<void> {
    const stored = await this.#storage.get(this.#taskId);
    const generation = stored?.generation ?? 0;
    const state = stored?.task.status.state;
    const over = state !== undefined && isTerminalState(state);
    if (this.#state !== "reading" || (stored && !over && generation < this.#opening!)) return;
    this.#opening = undefined;
    if (!stored) return this.#end();
    this.#cursor = generation;
    const final = over || isInterrupted(state);
    this.#subscriber.deliver({ task: stored.task }, final, generation);
    if (final || !this.#subscriber.open) this.#end();
  }

  /** End the stream where it is (its instance closes): the client resumes with Last-Event-ID. */
  close(): void {
    this.#end();
  }

  #end(): void {
    if (this.#state === "ended") return;
    this.#state = "ended";
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#off?.();
    this.#off = undefined;
    this.#subscriber.end();
    this.#ended();
  }
}
