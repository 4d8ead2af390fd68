/**
 * Cancelling any live run of a tree by its id. Every run the subagent
 * service started is found as it is (from the service's own table of live
 * runs, until the run is disposed); a provider registers each nested run it
 * reports (an ACP agent's child session, a remote agent's descendant) on the
 * scope its events are emitted on, until it ends. Whoever watches a scope's
 * tree (the ACP server's per-child cancel) finds a descendant's canceller
 * here, and only at or below that scope.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { findRunControl, registerRunControl } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const below = root.child("parent run");
 * const cancelled: string[] = [];
 * const unregister = registerRunControl(below, "run-1.1", (reason) => cancelled.push(reason));
 * findRunControl(root, "run-1.1")?.("the client cancelled it");
 * assert.deepEqual(cancelled, ["the client cancelled it"]);
 * assert.equal(findRunControl(root.child("beside"), "run-1.1"), undefined);
 * unregister(); // the run ended
 * assert.equal(findRunControl(root, "run-1.1"), undefined);
 * await root.dispose();
 * ```
 *
 * @module
 */
import type { Scope } from "@seam/host";
import { livePlaces } from "./_run.ts";

/** Cancels one live run (and so its subtree), saying why. */
export type RunCanceller = (reason: string) => void;

/**
 * The live runs' cancellers, each with its run id and scope (ids of separate
 * trees may meet). A set, not a map by id: the edge bundle has no room for
 * more, and a lookup (a client's cancel) is rare beside a registration.
 */
const controls = new Set<readonly [Scope, string, RunCanceller]>();

/**
 * Register how to cancel the live run `runId`, whose events are emitted on
 * `scope`. Returns the function that removes it: call it when the run ends
 * (again is harmless). For the nested runs a provider reports: the runs the
 * subagent service starts need no registration.
 */
export function registerRunControl(
  ...entry: [scope: Scope, runId: string, cancel: RunCanceller]
): () => void {
  // One rest array is the entry: the fewest bytes in the edge bundle.
  controls.add(entry);
  return () => controls.delete(entry);
}

/**
 * How to cancel the live run `runId` whose events are emitted on `scope` or
 * a scope below it (a run the service started, or a nested run a provider
 * registered); `undefined` when there is none (unknown, ended, or in
 * another tree).
 */
export function findRunControl(scope: Scope, runId: string): RunCanceller | undefined {
  for (const [at, id, cancel] of controls) if (id === runId && below(at, scope)) return cancel;
  for (const places of livePlaces) {
    const cell = places.get(runId);
    if (cell?.run && below(cell.scope!, scope)) return cell.run.cancel;
  }
}

/** Whether `at` is `scope` or a scope below it. */
function below(at: Scope, scope: Scope): boolean {
  for (let s: Scope | undefined = at; s; s = s.parent) if (s === scope) return true;
  return false;
}
