// How a run ends from what the remote task said: the stop reason (a seam
// gateway's exact one, else the A2A state's), the output (the agent's own
// words), what went wrong, and the structured value for an `outputSchema`.
// Pure: a function of what the task reader (`_task_reader.ts`) holds.
import type { JsonValue } from "@seam/host";
import {
  type OutputSchema,
  type SubagentFailure,
  type SubagentStopReason,
  type SubagentUsageInput,
  validateStructuredOutput,
} from "@seam/subagent";
import type { FailureData } from "./_async.ts";
import { clipped, failure } from "./_failure.ts";
import type { SeamTaskReport } from "./_extension.ts";
import { type Piece, stateName, TaskStates, textOfPieces } from "./_wire.ts";

/** How a run ends from what the remote said: a stop reason, its output, what went wrong. */
export interface TaskOutcome {
  readonly stopReason: SubagentStopReason;
  readonly pieces: Piece[];
  readonly error?: SubagentFailure;
  readonly structured?: JsonValue;
  /** The remote run's usage, when a seam gateway reported it. */
  readonly usage?: SubagentUsageInput;
}

/** What the outcome is read from: the task as the reader holds it at its end. */
export interface EndedTask {
  /** The last state read (the proto number). */
  readonly state: number;
  /** A seam gateway's report, if it sent one. */
  readonly report: SeamTaskReport | undefined;
  /** Every piece of output held, artifacts in order. */
  readonly pieces: readonly Piece[];
  /** The agent's last word (the task's status message), if any. */
  readonly statusPieces: readonly Piece[] | undefined;
  /** The task's and context's ids, as known. */
  readonly ids: FailureData;
}

/**
 * The outcome of a task that ended (or stopped for input): the exact stop
 * reason a seam gateway reports, else the state's; the output is the
 * agent's own words (its artifacts, else its last word), what went wrong is
 * the `error`; the structured value for an `outputSchema`. A remote end
 * other than by this run's own cancel is never `aborted`: a task cancelled
 * over there ends `error` (`REMOTE_CANCELED`) with the remote's reason.
 * `refused`: why the interruption's input request was refused.
 */
export function taskOutcome(
  task: EndedTask,
  schema: OutputSchema | undefined,
  offerResume: boolean,
  refused?: string,
): TaskOutcome {
  const { state, report, ids } = task;
  const exact = report?.stopReason;
  let stopReason: SubagentStopReason = exact ?? stopReasonOf(state);
  const pieces = [...task.pieces];
  // The remote's words in the error (its last word, a seam gateway's error) can be
  // any length: they are clipped, not the error's own words around them.
  const said = task.statusPieces ? clipped(textOfPieces(task.statusPieces)) : "";
  const data: FailureData = { state: stateName(state), ...ids };
  let error: SubagentFailure | undefined;
  if (exact !== undefined) {
    // A seam gateway's output is the remote run's output, exactly; its word on
    // the end (the task's status message) is the reason.
    const reason = said !== "" ? `: ${said}` : "";
    if (exact === "aborted") {
      stopReason = "error";
      error = failure(
        "REMOTE_CANCELED",
        `the remote run was aborted over there, not by this run${reason}`,
        data,
      );
    } else if (report?.error !== undefined && exact !== "completed") {
      error = typeof report.error === "string"
        ? failure("CHILD_FAILED", `the remote run broke down: ${clipped(report.error)}`, data)
        : {
          ...report.error,
          message: clipped(report.error.message),
          data: isPlainData(report.error.data) ? { ...data, ...report.error.data } : {
            ...data,
            ...(report.error.data === undefined ? {} : { remote: report.error.data }),
          },
        };
    } else if (exact === "error") {
      error = failure("CHILD_FAILED", `the remote run failed${reason}`, data);
    }
  } else {
    // The agent's last word: the output when there is no other, else part of the reason.
    const usedAsOutput = pieces.length === 0 && task.statusPieces !== undefined &&
      task.statusPieces.length > 0;
    if (usedAsOutput) pieces.push(...task.statusPieces!);
    const reason = said !== "" && !usedAsOutput ? `: ${said}` : "";
    switch (state) {
      case TaskStates.COMPLETED:
      case TaskStates.REJECTED:
        break;
      case TaskStates.INPUT_REQUIRED:
      case TaskStates.AUTH_REQUIRED:
        error = failure(
          state === TaskStates.INPUT_REQUIRED ? "INPUT_REQUIRED" : "AUTH_REQUIRED",
          `the remote agent stopped in ${stateName(state)}${reason}: it needs ${
            state === TaskStates.INPUT_REQUIRED ? "more input" : "authentication"
          } to go on${
            refused === undefined ? "" : `, and its input request was refused (${refused})`
          }${offerResume ? "; resume() answers it on the same task" : ""}`,
          data,
        );
        break;
      case TaskStates.CANCELED:
        stopReason = "error";
        error = failure(
          "REMOTE_CANCELED",
          `the remote agent cancelled the task (${stateName(state)}), not this run${
            said !== "" ? `: ${said}` : ""
          }`,
          data,
        );
        break;
      default:
        error = failure(
          "CHILD_FAILED",
          `the remote task ended in ${stateName(state)}${reason}`,
          data,
        );
    }
  }
  let structured: JsonValue | undefined;
  if (schema !== undefined && stopReason === "completed") {
    let index = -1;
    for (let i = pieces.length - 1; i >= 0 && index < 0; i--) {
      if (pieces[i].type === "data") index = i;
    }
    if (index < 0) {
      stopReason = "error";
      error = failure(
        "NO_STRUCTURED_RESULT",
        "the remote agent completed without a structured result (no data part), although an outputSchema was requested",
        data,
      );
    } else {
      const value = (pieces[index] as { data: JsonValue }).data;
      const issues = validateStructuredOutput(schema, value);
      if (issues.length > 0) {
        stopReason = "error";
        error = failure(
          "INVALID_STRUCTURED_RESULT",
          `the remote agent's structured result does not match the outputSchema: ${
            clipped(issues.map((issue) => `${issue.path} ${issue.message}`).join("; "))
          }`,
          data,
        );
      } else {
        pieces.splice(index, 1);
        structured = value;
      }
    }
  }
  const outcome: {
    stopReason: SubagentStopReason;
    pieces: Piece[];
    error?: SubagentFailure;
    structured?: JsonValue;
    usage?: SubagentUsageInput;
  } = { stopReason, pieces };
  if (report?.usage !== undefined) outcome.usage = report.usage;
  if (error !== undefined) outcome.error = error;
  if (structured !== undefined) outcome.structured = structured;
  return outcome;
}

function isPlainData(value: unknown): value is FailureData {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The stop reason of a terminal (or interrupted) A2A state, without the seam extension. */
export function stopReasonOf(state: number): SubagentStopReason {
  switch (state) {
    case TaskStates.COMPLETED:
      return "completed";
    case TaskStates.CANCELED:
      return "aborted";
    case TaskStates.REJECTED:
      return "refusal";
    default:
      return "error";
  }
}
