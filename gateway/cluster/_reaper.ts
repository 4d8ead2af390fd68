/**
 * The reaper of a shared {@linkcode TaskStorage}: it ends every orphan (a
 * live task whose instance's lease lapsed) `FAILED`, saying the run was lost
 * with its instance, and announces the end to push; and it ends the tasks
 * whose creation this instance could not confirm (the write's answer lost:
 * it may have committed, naming this instance, whose lease then kept it
 * live for ever) once the storage answers again. Separate from the
 * cluster, which runs a pass at every other heartbeat: a pass needs of it
 * only whether it is still open and which tasks run here.
 */
import type { Logger } from "@seam/host";
import type { PushService } from "../push/_push.ts";
import { agentMessage, isoNow } from "../core/_task_view.ts";
import { isTaskStorageError, type TaskStorage } from "../task_storage.ts";
import { isTerminalState, type StoredTask } from "../task_store.ts";
import { type A2AMetadata, type A2ATask, SEAM_EXTENSION_URI } from "../types.ts";

/** How many orphans one reaper pass ends. */
const REAP_BATCH = 100;

/** What a reaper pass needs of the cluster running it. */
export interface ReapContext {
  readonly storage: TaskStorage;
  /** This instance's id: the instance its own tasks name. */
  readonly instance: string;
  readonly logger: Logger;
  /** Push, when it is on. */
  readonly push: PushService | undefined;
  /** Whether the storage writes the push outbox itself (`enqueuedBy`). */
  readonly transactional: boolean;
  /** Whether the cluster is still open: a pass stops once it is not. */
  open(): boolean;
  /** Whether task `taskId` runs on this instance (its journal is here). */
  runsHere(taskId: string): boolean;
}

/** End every orphan (a live task whose instance's lease lapsed) FAILED. */
export async function reap(context: ReapContext): Promise<void> {
  const storage = context.storage;
  let orphans;
  try {
    // Not its own: a lease of this instance's that lapsed while it still
    // runs its tasks would make REAP_BATCH of them the whole page, each pass.
    orphans = await storage.orphans(REAP_BATCH, { excludeInstance: context.instance });
  } catch (error) {
    context.logger.error("Looking for orphaned tasks failed", error);
    return;
  }
  for (const orphan of orphans) {
    if (!context.open()) return;
    // Ours, still running here (a storage that ignores excludeInstance answers them).
    if (context.runsHere(orphan.task.id)) continue;
    try {
      await endFailed(context, orphan, lostWith(orphan.instance));
      context.logger.warn(
        `Task "${orphan.task.id}" ended FAILED: its instance "${orphan.instance}" stopped renewing its lease`,
      );
    } catch (error) {
      if (!isTaskStorageError(error, "CONFLICT")) {
        context.logger.error(`Ending orphaned task "${orphan.task.id}" failed`, error);
      }
    }
  }
}

/**
 * End the tasks of `unconfirmed` (task id → when its creation failed, in
 * ms) that the storage holds live, naming this instance, with no run here:
 * `FAILED`, saying the task was not run. One is looked at only a lease after
 * its creation failed (a write cut off with its connection has committed or
 * been rolled back by then); it is forgotten once settled (not stored, ended,
 * another instance's, or ended now). A pass stops at the first storage
 * failure, and once it took a sixth of a lease (a heartbeat's interval):
 * the rest wait for the next. The heartbeat waits for the pass, and a pass
 * over thousands (an outage fails every creation it meets) would let this
 * instance's lease lapse, and another instance end its tasks.
 */
export async function endUnconfirmed(
  context: ReapContext,
  unconfirmed: Map<string, number>,
): Promise<void> {
  const now = Date.now();
  const due = now - context.storage.leaseTtlMs;
  const stop = now + context.storage.leaseTtlMs / 6;
  for (const [taskId, failedAt] of unconfirmed) {
    if (!context.open() || Date.now() >= stop) return;
    if (failedAt > due || context.runsHere(taskId)) continue;
    try {
      const stored = await context.storage.get(taskId);
      if (
        stored && !isTerminalState(stored.task.status.state) &&
        stored.instance === context.instance
      ) {
        await endFailed(context, stored, NOT_CONFIRMED);
        context.logger.warn(
          `Task "${taskId}" ended FAILED: it was stored though its creation failed, and it never ran`,
        );
      }
      unconfirmed.delete(taskId);
    } catch (error) {
      if (isTaskStorageError(error, "CONFLICT")) {
        unconfirmed.delete(taskId); // changed meanwhile: no longer this instance's to end
        continue;
      }
      context.logger.error(`Ending task "${taskId}", whose creation failed, failed`, error);
      return;
    }
  }
}

const NOT_CONFIRMED =
  "Failed: the gateway could not confirm this task was stored (the task store failed as it was created), so it did not run it, and the request that created it was answered an error.";

function lostWith(instance: string | undefined): string {
  return `Failed: the task's run was lost with its gateway instance${
    instance ? ` "${instance}"` : ""
  }, which stopped renewing its lease; what it committed before is kept.`;
}

/** Append the end of `stored` FAILED for `why` (at its generation), announced to push. */
async function endFailed(context: ReapContext, stored: StoredTask, why: string): Promise<void> {
  const change = failedEnd(stored, why);
  const push = context.push;
  const body = push && context.transactional ? push.body(stored.task.id, change.events[0]) : null;
  await context.storage.append(body !== null ? { ...change, pushes: [body] } : change);
  if (push && !context.transactional) push.event(change.record, change.events[0], true);
}

/** The append that ends `orphan` FAILED for `why`, at the generation it was found at. */
function failedEnd(orphan: StoredTask, why: string) {
  const now = Date.now();
  const t = orphan.task;
  const status: A2ATask["status"] = {
    state: "TASK_STATE_FAILED",
    timestamp: isoNow(now),
    message: agentMessage(t, [{ text: why }]),
  };
  const seam = {
    ...((t.metadata as Record<string, Record<string, unknown>> | undefined)?.[SEAM_EXTENSION_URI]),
    stopReason: "error",
    failure: { code: "RUN_LOST", message: why },
  };
  const metadata = { ...t.metadata, [SEAM_EXTENSION_URI]: seam } as A2AMetadata;
  const task: A2ATask = { ...t, status, metadata };
  return {
    record: { task, owner: orphan.owner, provider: orphan.provider, updatedAt: now },
    expected: orphan.generation ?? 0,
    events: [{ statusUpdate: { taskId: t.id, contextId: t.contextId, status, metadata } }],
    instance: undefined,
  };
}
