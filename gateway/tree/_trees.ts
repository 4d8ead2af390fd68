/**
 * The descendants feature: each task started with the seam extension tells
 * its seam clients its run's descendants (_descendant_tree.ts), and a
 * `CancelTask` whose metadata carries the seam extension's `runId` ends that
 * descendant and its subtree only, the task going on.
 *
 * @module
 */
import { isRecord, type Logger } from "@seam/host";
import { findRunControl } from "@seam/subagent";
import { GatewayError, invalidParams } from "../core/_errors.ts";
import type { Found } from "../core/_home.ts";
import type { LiveTask } from "../core/_live_task.ts";
import { stateWord } from "../core/_task_view.ts";
import { isTerminalState } from "../task_store.ts";
import { SEAM_EXTENSION_URI } from "../types.ts";
import { DescendantTree } from "./_descendant_tree.ts";

const WHERE = `metadata["${SEAM_EXTENSION_URI}"]`;

/** The trees of the live tasks that have one. */
export class DescendantTrees {
  readonly #trees = new WeakMap<LiveTask, DescendantTree>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * Follow `live`'s descendants until it ends, when its message carried the
   * seam extension (`seam`) and it is answered as a task; answers what ends
   * the task's progress: the tree's last update, then `stopProgress`.
   */
  follow(
    live: LiveTask,
    stopProgress: (() => void) | undefined,
    seam: boolean,
  ): (() => void) | undefined {
    if (!seam || live.reply !== "task") return stopProgress;
    const tree = new DescendantTree(live, this.#logger);
    this.#trees.set(live, tree);
    return () => {
      tree.stop();
      stopProgress?.();
    };
  }

  /**
   * Cancel the descendant the seam extension of a `CancelTask` names
   * (`{runId}`) in task `found`, whose principal asked.
   *
   * @throws {GatewayError} -32602 for a malformed extension or a run id that
   * is no live, cancellable descendant of the task; -32002 for a task that ended.
   */
  cancel(found: Found, extension: unknown): void {
    const runId = readRunId(extension);
    const t = found.record.task;
    if (!found.live) {
      if (!isTerminalState(t.status.state)) {
        throw invalidParams(
          `task "${t.id}" runs on another instance: a descendant is cancelled only where its task runs (try again, or cancel the task)`,
        );
      }
      throw new GatewayError(
        "taskNotCancelable",
        `Task not cancelable: task "${t.id}" is already ${
          stateWord(t)
        }, and its descendants with it`,
        { metadata: { taskId: t.id, state: t.status.state } },
      );
    }
    const tree = this.#trees.get(found.live);
    const cancel = tree?.isLive(runId)
      ? findRunControl(found.live.chain.context.scope, runId)
      : undefined;
    if (!cancel) {
      throw invalidParams(
        `task "${t.id}" has no live descendant run "${
          runId.slice(0, 256)
        }" that can be cancelled (${
          tree
            ? "unknown, ended, or not cancellable: see its descendants' `cancellable`"
            : "the task was not started with the seam extension, so none is told"
        }); to end the whole task, send CancelTask without the seam extension`,
      );
    }
    cancel("cancelled by the A2A client (CancelTask naming this descendant)");
  }
}

/** The `runId` of a `CancelTask`'s seam extension. */
function readRunId(extension: unknown): string {
  if (!isRecord(extension)) {
    throw invalidParams(`${WHERE} must be an object: {"runId": "<descendant run id>"}`);
  }
  for (const key of Object.keys(extension)) {
    if (key !== "runId") {
      throw invalidParams(`${WHERE} has unknown field "${key.slice(0, 60)}" (known: runId)`);
    }
  }
  const runId = extension.runId;
  if (typeof runId !== "string" || runId === "" || runId.length > 256) {
    throw invalidParams(
      `${WHERE}.runId must be the id of one of the task's descendants (a non-empty string of at most 256 characters)`,
    );
  }
  return runId;
}
