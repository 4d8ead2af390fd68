/**
 * How a task's run ending reads on the task: the terminal state a stop
 * reason (or a fault, or a request to end it early) gives, the output's
 * parts, the words of its status message, and what the seam metadata keeps
 * of it (stopReason, usage, failure). Separate from the live task, which
 * applies it: these are the rules, pure but for the metadata they fill in.
 */
import { jsonCopy } from "@seam/host";
import type { SubagentResult, SubagentStopReason } from "@seam/subagent";
import { blocksToParts } from "./_convert.ts";
import type { A2AMessage, A2ATaskState } from "../types.ts";

/** Who asked for a task to end before its run did. */
export type EarlyEndCause = "client" | "deadline" | "shutdown";

const STATE_OF: Record<SubagentStopReason, A2ATaskState> = {
  completed: "TASK_STATE_COMPLETED",
  aborted: "TASK_STATE_CANCELED",
  error: "TASK_STATE_FAILED",
  "max-tokens": "TASK_STATE_FAILED",
  refusal: "TASK_STATE_REJECTED",
  "budget-exhausted": "TASK_STATE_FAILED",
};

const EXPLAIN: Record<SubagentStopReason, string> = {
  completed: "Completed.",
  aborted: "Canceled before it finished.",
  error: "Failed: the child agent ended with an error.",
  "max-tokens":
    "Failed: the child hit the token limit (stopReason max-tokens); its partial output is in the artifact.",
  refusal: "Rejected: the child agent refused the task.",
  "budget-exhausted":
    "Failed: the run ran out of its budget (stopReason budget-exhausted); its partial output is in the artifact.",
};

/** What a run's end makes of its task (see {@linkcode runOutcome}). */
export interface RunOutcome {
  readonly state: A2ATaskState;
  /** The output, as the parts of its artifact: none when the run left none. */
  readonly parts: A2AMessage["parts"];
  /** The words of the status message; undefined: none. */
  readonly explanation: string | undefined;
}

/**
 * The task's end by its run's `result`, or by the fault that rejected it
 * (`error`); `early`, when an end was asked for before the run's (the
 * deadline's being `deadlineMs`). Fills in `meta`, the task's seam metadata.
 */
export function runOutcome(
  result: SubagentResult | undefined,
  error: unknown,
  meta: Record<string, unknown>,
  early: EarlyEndCause | undefined,
  deadlineMs: number,
): RunOutcome {
  let state: A2ATaskState;
  let parts: A2AMessage["parts"] = [];
  let explanation: string | undefined;
  if (result) {
    meta.stopReason = result.stopReason;
    // The run's usage, rolled up over its subtree, for a seam caller to add to its own.
    // The service's usage is frozen JSON already (subagent/_usage.ts): kept as is.
    if (result.usage) {
      meta.usage = Object.isFrozen(result.usage) ? result.usage : jsonCopy(result.usage);
    }
    state = STATE_OF[result.stopReason];
    parts = blocksToParts(result.output, result.structured);
    if (result.stopReason !== "completed") explanation = EXPLAIN[result.stopReason];
    if (result.error) {
      // What went wrong, as data for a program and in words for a person.
      meta.failure = { code: result.error.code, message: result.error.message };
      explanation = `${explanation} ${result.error.message} (${result.error.code})`;
    }
    if (result.stopReason === "aborted" && early !== undefined) {
      const cause = early;
      if (cause === "client") explanation = "Canceled by the client.";
      else if (cause === "shutdown") explanation = "Canceled: the gateway shut down.";
      else {
        meta.stopReason = "error";
        state = "TASK_STATE_FAILED";
        explanation = `Failed: the task's deadline (${deadlineMs} ms) passed; the run was stopped.`;
      }
    }
  } else {
    const message = error instanceof Error ? error.message : String(error);
    meta.error = message;
    state = "TASK_STATE_FAILED";
    explanation = `Failed: the run broke down (${message})`;
  }
  return { state, parts, explanation };
}

/**
 * The status message of a task ended without its run's confirmation: asked
 * by `cause` (with `reason`), the run did not end within `graceMs` (at
 * shutdown, none is waited for).
 */
export function forcedEndWords(cause: EarlyEndCause, reason: string, graceMs: number): string {
  return cause === "client"
    ? `Canceled by the client; the child did not confirm within ${graceMs} ms and was torn down.`
    : cause === "deadline"
    ? `Failed: ${reason}; the child did not stop within ${graceMs} ms and was torn down.`
    : "Canceled: the gateway shut down.";
}
