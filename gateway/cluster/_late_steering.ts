/**
 * A steering message that a task's run took as the task ended, on a shared
 * {@linkcode TaskStorage}: once the end is committed, the stored history
 * gets what it lacks of the live one, in one more append. Separate from the
 * cluster, which tracks these appends for its close: the append needs only
 * the task, the storage and the logger.
 */
import type { Logger } from "@seam/host";
import { internalError } from "../core/_errors.ts";
import type { LiveTask } from "../core/_live_task.ts";
import { storeFailure } from "../core/_store_errors.ts";
import { isTaskStorageError, type TaskStorage } from "../task_storage.ts";
import { isTerminalState, type StoredTask } from "../task_store.ts";

/**
 * How long a late steering message waits for its task's end to be stored
 * (`Cluster.amend`), in ms: well under the 2 s at least that an instance
 * forwarding it waits for the answer (`commandTimeoutMs`), while the journal
 * retries an end the store cannot take for as long as it is out of reach.
 */
const AMEND_WAIT_MS = 1_000;

/**
 * Store the steering message that `live`'s run took as the task ended (see
 * `Cluster.amend`, which documents it and waits for it at close).
 *
 * @throws {GatewayError} naming the task, saying the run took the message
 * but the task's stored history may lack it: 503 (`STORE_UNAVAILABLE`)
 * while its end is not stored or the store is out of reach.
 */
export async function storeLateSteering(
  live: LiveTask,
  storage: TaskStorage,
  logger: Logger,
): Promise<void> {
  const id = live.record.task.id;
  const history = live.record.task.history ?? [];
  // Resending would not help: the task ended, and its run has the message.
  const lacks = (why: string, unreachable?: boolean) =>
    internalError(
      `Task "${id}" ended while the message was on its way: its run took the message, but the task's stored history may lack it (${why})`,
      unreachable
        ? { httpStatus: 503, metadata: { reason: "STORE_UNAVAILABLE", taskId: id } }
        : { metadata: { taskId: id } },
    );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ended = await Promise.race([
    live.done.then(() => true),
    new Promise<false>((resolve) => timer = setTimeout(resolve, AMEND_WAIT_MS, false)),
  ]);
  clearTimeout(timer);
  let stored: StoredTask | undefined;
  // A conflict is another such append of this task's: read it again.
  for (let tries = 0; ended && tries < 5; tries++) {
    try {
      stored = await storage.get(id);
      // `done` settles too when the journal stopped (closed, lost): the end may not be stored.
      if (!stored || !isTerminalState(stored.task.status.state)) break;
      // The stored history is the live one's as of the last commit (the live record's only grows).
      const kept = stored.task.history ?? [];
      if (kept.length >= history.length) return;
      const task = { ...stored.task, history: kept.concat(history.slice(kept.length)) };
      await storage.append({
        record: {
          task,
          owner: stored.owner,
          provider: stored.provider,
          updatedAt: stored.updatedAt,
        },
        expected: stored.generation ?? 0,
        events: [{ task }],
        instance: undefined,
      });
      return;
    } catch (error) {
      if (isTaskStorageError(error, "CONFLICT")) continue;
      const failure = storeFailure(
        error,
        logger,
        `Storing a message to task "${id}"`,
      );
      throw failure.httpStatus
        ? lacks("the task store cannot be reached", true)
        : lacks("the task store failed");
    }
  }
  if (ended && !stored) throw lacks("the store no longer keeps the task");
  if (ended && isTerminalState(stored!.task.status.state)) {
    throw lacks("other writers kept getting there first");
  }
  throw lacks("its end is not stored yet, and will carry the message if it is", true);
}
