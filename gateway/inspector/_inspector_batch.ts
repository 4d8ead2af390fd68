/**
 * What the inspector's pages are told, coalesced per principal and sent at
 * most every {@linkcode FLUSH_MS} as one frame: a task or run that changed
 * several times goes once, as it is at the flush, and a run's streamed
 * pieces go as one. A page with a run that streams a word at a time, or a
 * gateway that runs thousands of tasks a second, costs one frame per flush
 * instead of one per change (bench/README.md, "The run inspector").
 */
import type { StreamEvent, TaskSubscriber } from "../http/_sse.ts";

/** How long a change waits for others before the pages hear it, in ms. */
export const FLUSH_MS = 50;

/** A change waiting: built when it is sent (so it says what is true then), or text gathered. */
type Waiting =
  | (() => StreamEvent)
  | { type: "text"; taskId: string; runId: string; text: string; keep: number };

/** Where the batches are: taking changes, or closed (the gateway is closing). */
type BatchState = "open" | "closed";

/** The changes waiting for each principal's pages (see the module doc). */
export class InspectorBatches {
  readonly #waiting = new Map<string | undefined, Map<string, Waiting>>();
  readonly #streamsOf: (owner: string | undefined) => ReadonlySet<TaskSubscriber> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #state: BatchState = "open";

  constructor(streamsOf: (owner: string | undefined) => ReadonlySet<TaskSubscriber> | undefined) {
    this.#streamsOf = streamsOf;
  }

  /** A change under `key`: a later one of the same key replaces it, in its place. */
  put(owner: string | undefined, key: string, build: () => StreamEvent): void {
    this.#of(owner)?.set(key, build);
  }

  /**
   * A piece of a run's streamed text, added to what waits of it. `keep` is
   * how much of the run's text the record keeps now (at most
   * `maxTextPerRun`; less once the overall `maxText` clipped it): no more of
   * it waits (the newest), and the event tells the page to keep no more
   * either, so its copy stays the record's.
   */
  text(owner: string | undefined, taskId: string, runId: string, text: string, keep: number): void {
    const waiting = this.#of(owner);
    if (!waiting) return;
    const key = `x:${runId}`;
    const pending = waiting.get(key);
    const joined = pending && typeof pending !== "function" ? pending.text + text : text;
    const kept = joined.length > keep ? ownText(joined, keep) : joined;
    if (pending && typeof pending !== "function") {
      pending.text = kept;
      pending.keep = keep;
    } else waiting.set(key, { type: "text", taskId, runId, text: kept, keep });
  }

  /** Send what waits for `owner` now (before a new page's snapshot, which already holds it). */
  flush(owner: string | undefined): void {
    const waiting = this.#waiting.get(owner);
    if (!waiting) return;
    this.#waiting.delete(owner);
    const streams = this.#streamsOf(owner);
    if (!streams || streams.size === 0) return;
    const events: StreamEvent[] = [];
    for (const change of waiting.values()) {
      events.push(typeof change === "function" ? change() : change);
    }
    const frame = { type: "batch", events };
    for (const stream of streams) stream.deliver(frame, false);
  }

  /** Drop what waits and stop the timer. */
  close(): void {
    this.#state = "closed";
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waiting.clear();
  }

  #of(owner: string | undefined): Map<string, Waiting> | undefined {
    if (this.#state === "closed") return undefined;
    let waiting = this.#waiting.get(owner);
    if (!waiting) {
      waiting = new Map();
      this.#waiting.set(owner, waiting);
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      for (const owner of [...this.#waiting.keys()]) this.flush(owner);
    }, FLUSH_MS);
    return waiting;
  }
}

/**
 * At most `max` characters of `text` (its tail, or with `head` its start) as
 * a string of their own: V8's slice of a long string keeps the whole parent
 * alive, which would let one huge piece outlive every bound the inspector keeps.
 */
export function ownText(text: string, max: number, head = false): string {
  if (text.length <= max && head) return text;
  const cut = head ? text.slice(0, max) : text.slice(Math.max(0, text.length - max));
  // Joined to a character and cut again, it is copied: the parent can go.
  return (" " + cut).slice(1);
}
