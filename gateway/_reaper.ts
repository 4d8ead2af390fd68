/**
 * The reaper of a shared {@linkcode TaskStorage}: it ends every orphan (a
 * live task whose instance's lease lapsed) `FAILED`, saying the run was lost
 * with its instance, and announces the end to push. Separate from the
 * cluster, which runs a pass at every other heartbeat: a pass needs of it
 * only whether it is still open and which tasks run here.
 */
import type { Logger } from "@seam/host";
import type { PushService } from "./_push.ts";
import { agentMessage, isoNow } from "./_task_view.ts";
import { isTaskStorageError, type TaskStorage } from "./task_storage.ts";
import type { StoredTask } from "./task_store.ts";
import { type A2AMetadata, type A2ATask, SEAM_EXTENSION_URI } from "./types.ts";

/** How many orphans one reaper pass ends. */
const REAP_BATCH = 100;

/** What a reaper pass needs of the cluster running it. */
export interface ReapContext {
  readonly storage: TaskStorage;
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
    orphans = await storage.orphans(REAP_BATCH);
  } catch (error) {
    context.logger.error("Looking for orphaned tasks failed", error);
    return;
  }
  for (const orphan of orphans) {
    if (!context.open()) return;
    if (context.runsHere(orphan.task.id)) continue; // ours: still running here
    try {
      const change = lostRun(orphan);
      const push = context.push;
      const body = push && context.transactional
        ? push.body(orphan.task.id, change.events[0])
        : null;
      await storage.append(body !== null ? { ...change, pushes: [body] } : change);
      if (push && !context.transactional) push.event(change.record, change.events[0], true);
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

/** The append that ends an orphan FAILED, at the generation it was found at. */
function lostRun(orphan: StoredTask & { generation?: number }) {
  const now = Date.now();
  const t = orphan.task;
  const why = `Failed: the task's run was lost with its gateway instance${
    orphan.instance ? ` "${orphan.instance}"` : ""
  }, which stopped renewing its lease; what it committed before is kept.`;
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
