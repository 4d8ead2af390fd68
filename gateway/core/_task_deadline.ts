/**
 * A live task's deadline (`taskTimeoutMs`): armed when the task starts,
 * paused while the task waits on input (INPUT_REQUIRED, AUTH_REQUIRED) and
 * armed again for what was left of it once the task works again. Separate
 * from the live task, which ends the task early when it passes: made only
 * for a task that has one.
 */

/** The deadline of one task (see the module doc). */
export class TaskDeadline {
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the deadline falls (ms since the epoch); while paused, what is left of it. */
  #at = 0;
  #left = 0;
  readonly #passed: () => void;

  /** Arm the deadline `ms` from now; `passed` is called once it falls. */
  constructor(ms: number, passed: () => void) {
    this.#passed = passed;
    this.#arm(ms);
  }

  #arm(ms: number): void {
    this.#at = Date.now() + ms;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#passed();
    }, ms);
  }

  /** Stop the clock, keeping what is left of it (at least 1 ms). */
  pause(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#left = Math.max(1, this.#at - Date.now());
  }

  /** Arm it again for what was left when it paused. */
  resume(): void {
    if (this.#left > 0) {
      this.#arm(this.#left);
      this.#left = 0;
    }
  }

  /** Stop it for good (the task ended). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
