/**
 * The caps on the follow-up messages one live task takes while it runs
 * (`maxSteeringMessages`, and `maxSteeringBytes` of their parts together).
 * Separate from the live task, which holds one from its first follow-up
 * message on: a task that takes none counts nothing.
 */
import { tooMany } from "./_errors.ts";
import type { LiveTaskLimits } from "./_live_task.ts";

/** The follow-up messages a task took (see the module doc). */
export class SteeringCount {
  #steered = 0;
  #steeredBytes = 0;

  /**
   * Count a steering message of `bytes` to task `taskId` against the caps.
   *
   * @throws {GatewayError} beyond them.
   */
  admit(bytes: number, taskId: string, limits: LiveTaskLimits): void {
    if (this.#steered >= limits.maxSteeringMessages) {
      throw tooMany(
        `Too many messages: task "${taskId}" took ${this.#steered} follow-up messages (the limit is ${limits.maxSteeringMessages})`,
        "TOO_MANY_MESSAGES",
      );
    }
    if (this.#steeredBytes + bytes > limits.maxSteeringBytes) {
      throw tooMany(
        `Too much content: task "${taskId}" took ${this.#steeredBytes} bytes of follow-ups, this one ${bytes} (the limit is ${limits.maxSteeringBytes} in all)`,
        "TOO_MUCH_STEERING",
      );
    }
    this.#steered++;
    this.#steeredBytes += bytes;
  }

  /** Take back a steering message the run did not take. */
  release(bytes: number): void {
    this.#steered--;
    this.#steeredBytes -= bytes;
  }
}
