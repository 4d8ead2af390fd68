/**
 * The subscribers on this instance hearing one live task: each stream opened
 * on it (at most `maxSubscribers`, each buffering at most
 * `maxBufferedBytes`), and each of its events delivered to all of them.
 * Separate from the live task, which makes the set when its first
 * subscriber comes: a task nobody streams from here has none.
 */
import type { Logger } from "@seam/host";
import { tooMany } from "./_errors.ts";
import type { LiveTaskLimits } from "./_live_task.ts";
import { type StreamEvent, type StreamFraming, TaskSubscriber } from "../http/_sse.ts";

/** The subscribers hearing one live task (see the module doc). */
export class TaskSubscribers extends Set<TaskSubscriber> {
  /**
   * A new subscriber to task `taskId`, its first frame (`first`, written
   * now) already in its stream.
   *
   * @throws {GatewayError} beyond the subscriber cap.
   */
  open(
    taskId: string,
    framing: StreamFraming,
    first: StreamEvent,
    limits: LiveTaskLimits,
  ): TaskSubscriber {
    if (this.size >= limits.maxSubscribers) {
      throw tooMany(
        `Too many subscribers: task "${taskId}" has ${this.size} streams open (the limit is ${limits.maxSubscribers}); poll with GetTask`,
        "TOO_MANY_SUBSCRIBERS",
      );
    }
    const subscriber = new TaskSubscriber(framing, limits.maxBufferedBytes);
    subscriber.deliver(first, false);
    if (subscriber.open) {
      this.add(subscriber);
      subscriber.onClose = () => this.delete(subscriber);
    }
    return subscriber;
  }

  /** `event` to every subscriber; `final`: their streams end with it, and the set empties. */
  deliver(event: StreamEvent, final: boolean, logger: Logger): void {
    for (const subscriber of this) {
      try {
        subscriber.deliver(event, final);
      } catch (error) {
        logger.error("A task subscriber threw", error);
      }
    }
    if (final) this.clear();
  }
}
