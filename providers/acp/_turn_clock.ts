// The deadline of one prompt turn (`turnTimeoutMs`). Waiting for a
// permission function, or for the answer to an input request, does not count
// against it: the clock pauses while one decides (several may overlap) and
// runs on with the time that was left.

/** The turn's deadline (`turnTimeoutMs`), paused while a permission function decides. */
export class TurnClock {
  #state: "running" | "paused" | "stopped" = "running";
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** While paused: the ms left. */
  #left: number;
  /** While running: when it runs out (`performance.now()`). */
  #due = 0;
  #pauses = 0;
  #onTimeout: () => void;

  constructor(ms: number, onTimeout: () => void) {
    this.#left = ms;
    this.#onTimeout = onTimeout;
    this.#arm();
  }

  #arm(): void {
    this.#state = "running";
    this.#due = performance.now() + this.#left;
    this.#timer = setTimeout(() => {
      this.#state = "stopped";
      this.#onTimeout();
    }, this.#left);
  }

  /** A permission function started deciding. */
  pause(): void {
    if (this.#pauses++ > 0 || this.#state !== "running") return;
    clearTimeout(this.#timer);
    this.#state = "paused";
    this.#left = Math.max(0, this.#due - performance.now());
  }

  /** A permission function decided; the last one to do so restarts the clock. */
  resume(): void {
    if (--this.#pauses === 0 && this.#state === "paused") this.#arm();
  }

  /** The turn ended: never time out. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#state = "stopped";
  }
}
