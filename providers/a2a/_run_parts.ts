// The plain parts of a run that hold no state of it: the messages it sends
// (the first, a message to the running task, a follow-up's plan), the
// progress events it emits, and the result it settles with. The run itself
// (`_run.ts`) decides when.
import type { ContentBlock, ContentInput, JsonValue } from "@seam/host";
import {
  type SubagentFailure,
  subagentProgress,
  type SubagentResultInput,
  type SubagentResumeRequest,
  type SubagentRunHandle,
  type SubagentStopReason,
  type SubagentUsageInput,
} from "@seam/subagent";
import type { SendMessageRequest } from "@a2a-js/sdk";
import { Alarm, TimedOut } from "./_async.ts";
import { SEAM_EXTENSION_URI } from "./_extension.ts";
import type { TaskReaderOptions } from "./_task_reader.ts";
import type { RemoteContext, RunPlan } from "./_remote.ts";
import { traceHeaders } from "./_trace.ts";
import { blocksToParts, type Piece, sendRequest, userMessage } from "./_wire.ts";

/** How a run's task reader reads: a resumed run of a seam gateway's context continues it. */
export function readerOptions(remote: RemoteContext, plan: RunPlan): TaskReaderOptions {
  return {
    resourceUris: remote.seam !== undefined,
    maxOutputChars: remote.maxOutputChars,
    ...(plan.resumed && remote.seam !== undefined && plan.taskId === undefined
      ? { continuing: plan.contextId }
      : {}),
  };
}

/** The alarm of `idleTimeoutMs`: a known task that brings nothing new for so long `expire`s. */
export function idleAlarm(remote: RemoteContext, expire: (why: TimedOut) => void): Alarm {
  const ms = remote.idleTimeoutMs;
  return new Alarm(ms, () =>
    expire(
      new TimedOut(`the remote agent brought nothing new for ${ms} ms (idleTimeoutMs)`, {
        option: "idleTimeoutMs",
        ms,
      }),
    ));
}

/** The alarm of `deadlineMs`, if set: a run not ended by then `expire`s. */
export function deadlineAlarm(
  remote: RemoteContext,
  expire: (why: TimedOut) => void,
): Alarm | undefined {
  const ms = remote.deadlineMs;
  if (ms === undefined) return undefined;
  return new Alarm(ms, () =>
    expire(
      new TimedOut(`the run did not end within ${ms} ms (deadlineMs)`, {
        option: "deadlineMs",
        ms,
      }),
    ));
}

/** What a run offers its caller: its handle's members, `sendMessage` and `resume` always. */
export type RunMethods =
  & Pick<SubagentRunHandle, "id" | "started" | "result" | "cancel" | "dispose">
  & Required<Pick<SubagentRunHandle, "sendMessage" | "resume">>;

/** The handle of `run`: `sendMessage` and `resume` where the provider offers them. */
export function runHandle(
  run: RunMethods,
  remote: RemoteContext,
  respond: SubagentRunHandle["respond"],
): SubagentRunHandle {
  const handle: { -readonly [K in keyof SubagentRunHandle]: SubagentRunHandle[K] } = {
    id: run.id,
    started: run.started,
    result: run.result,
    cancel: (reason?: string) => run.cancel(reason),
    dispose: () => run.dispose(),
    respond,
  };
  if (remote.offerSendMessage) handle.sendMessage = (content) => run.sendMessage(content);
  if (remote.offerResume) handle.resume = (content, request) => run.resume(content, request);
  return handle;
}

/** Why run `runId` takes no message while its task waits for the answers to `pending`. */
export function waitingForAnswer(runId: string, pending: readonly { id: string }[]): string {
  const waiting = pending.map((r) => `"${r.id}"`).join(", ");
  return `Cannot send a message to run "${runId}": its remote task waits for an answer${
    waiting === "" ? "" : ` to input request ${waiting}`
  }; answer it with respond()`;
}

/** Content as blocks. */
export function toBlocks(content: ContentInput): readonly ContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** The run's first message (`path`: the run ids from the root down to the run). */
export function firstRequest(
  remote: RemoteContext,
  plan: RunPlan,
  path: readonly string[],
): SendMessageRequest {
  const seam = plan.extension !== undefined;
  const message = userMessage(blocksToParts(plan.prompt), {
    contextId: plan.contextId,
    taskId: plan.taskId,
    // The run path lets the remote's input requests carry it on up to the root.
    metadata: seam ? { [SEAM_EXTENSION_URI]: { ...plan.extension, path } } : undefined,
    extensions: seam ? [SEAM_EXTENSION_URI] : undefined,
  });
  return sendRequest(remote.tenant, message, !remote.streaming);
}

/** A message to the running task `taskId` (`SendMessage`, blocking). */
export function taskMessage(
  remote: RemoteContext,
  content: ContentInput,
  taskId: string | undefined,
  contextId: string | undefined,
): SendMessageRequest {
  const message = userMessage(blocksToParts(toBlocks(content)), {
    taskId,
    contextId,
    extensions: remote.seam ? [SEAM_EXTENSION_URI] : undefined,
  });
  return sendRequest(remote.tenant, message, true);
}

/**
 * Refuse to resume run `id` when it was disposed, has not finished, or
 * never reached the remote agent (no context to continue).
 *
 * @throws {TypeError} naming why.
 */
export function assertResumable(
  id: string,
  disposed: boolean,
  finished: boolean,
  contextId: string | undefined,
): void {
  const problem = disposed
    ? "it was disposed"
    : !finished
    ? "it has not finished"
    : contextId === undefined
    ? "it never reached the remote agent (there is no context to continue)"
    : undefined;
  if (problem) throw new TypeError(`Cannot resume run "${id}": ${problem}`);
}

/**
 * The plan of a follow-up run in the context `contextId` of the run planned
 * as `plan`, continuing its interrupted task `continueTask` if any.
 */
export function resumePlan(
  remote: RemoteContext,
  plan: RunPlan,
  content: ContentInput,
  request: SubagentResumeRequest | undefined,
  contextId: string | undefined,
  continueTask: string | undefined,
): RunPlan {
  return {
    prompt: toBlocks(content),
    parent: plan.parent,
    depth: plan.depth,
    ...(plan.place ? { place: plan.place } : {}),
    // A continuation is a run of its own: the remote side hangs under its span.
    traceHeaders: traceHeaders(request?.traceContext),
    // A continuation keeps the first run's settings: the caller's depth travels, and
    // so do the depth cap and the budget on a context continuation, so a seam gateway
    // that kept no run for the context (and starts a fresh one) still applies them
    // (one that kept it finds the same budget and lets it pass).
    extension: remote.seam
      ? {
        depth: plan.depth,
        ...(continueTask === undefined && plan.extension?.maxDepth !== undefined
          ? { maxDepth: plan.extension.maxDepth }
          : {}),
        ...(continueTask === undefined && plan.extension?.budget !== undefined
          ? { budget: plan.extension.budget }
          : {}),
      }
      : undefined,
    contextId,
    taskId: continueTask,
    resumed: true,
  };
}

/** Tell the tree where run `runId` went: the remote agent and the task it made. */
export function emitHop(
  remote: RemoteContext,
  plan: RunPlan,
  runId: string,
  taskId: string | undefined,
): void {
  const scope = plan.parent.scope;
  if (taskId === undefined || !scope.hasListeners(subagentProgress)) return;
  scope.emit(
    subagentProgress,
    Object.freeze({
      ...plan.place,
      runId,
      kind: "remote" as const,
      remote: Object.freeze({ ...remote.hop, taskId }),
    }),
  );
}

/** Emit streamed text of run `runId` while someone listens. */
export function emitText(plan: RunPlan, runId: string, text: string): void {
  const scope = plan.parent.scope;
  if (text === "" || !scope.hasListeners(subagentProgress)) return;
  scope.emit(
    subagentProgress,
    Object.freeze({ ...plan.place, runId, kind: "text" as const, text }),
  );
}

/** The result a run settles with (a `data` piece is its JSON text). */
export function runResult(
  stopReason: SubagentStopReason,
  pieces: readonly Piece[],
  error?: SubagentFailure,
  structured?: JsonValue,
  usage?: SubagentUsageInput,
): SubagentResultInput {
  const output: ContentBlock[] = pieces.map((piece) =>
    piece.type === "data" ? { type: "text", text: JSON.stringify(piece.data) } : piece
  );
  const result: {
    output: ContentBlock[];
    stopReason: SubagentStopReason;
    structured?: JsonValue;
    error?: SubagentFailure;
    usage?: SubagentUsageInput;
  } = { output, stopReason };
  if (structured !== undefined) result.structured = structured;
  if (error !== undefined) result.error = error;
  // A seam gateway reports its run's usage; any other agent leaves it partial.
  if (usage !== undefined) result.usage = usage;
  return result;
}
