/**
 * A task as the gateway keeps it and as the wire shows it: the record the
 * store holds, its snapshot cut to a history length, and the opaque page
 * tokens of `ListTasks`.
 */
import { invalidParams } from "./_errors.ts";
import type { StreamEvent } from "../http/_sse.ts";
import type { SendParams } from "../http/_validate.ts";
import type { StoredTask } from "../task_store.ts";
import type { A2AArtifact, A2AMessage, A2AMetadata, A2ATask } from "../types.ts";

/** A task as kept: mutable here, a {@linkcode StoredTask} to the store. */
export interface TaskRecord extends StoredTask {
  task: A2ATask;
  updatedAt: number;
}

/** The id and name of the one artifact a task's run produces. */
export const OUTPUT_ARTIFACT = "output";

let isoAt = -1;
let isoText = "";

/**
 * `new Date(now).toISOString()`, computed once per millisecond (every state
 * change stamps one). Measured: bench/gateway_bench.ts, group "status
 * timestamp".
 */
export function isoNow(now: number): string {
  if (now !== isoAt) {
    isoAt = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

/** A task's state as a word for messages: `TASK_STATE_INPUT_REQUIRED` is `input_required`. */
export function stateWord(task: A2ATask): string {
  return task.status.state.slice(11).toLowerCase();
}

/** The agent's message about a task's state (its explanation of how it ended). */
export function agentMessage(task: A2ATask, parts: A2AMessage["parts"]): A2AMessage {
  return {
    messageId: `${task.id}/status`,
    role: "ROLE_AGENT",
    parts,
    taskId: task.id,
    contextId: task.contextId,
  };
}

/** The message `params` brought, as task `taskId` of `contextId` keeps it in its history. */
export function userMessage(params: SendParams, taskId: string, contextId: string): A2AMessage {
  const m = params.message;
  const message: A2AMessage = {
    messageId: m.messageId,
    role: "ROLE_USER",
    parts: m.parts,
    taskId,
    contextId,
  };
  if (m.metadata) message.metadata = m.metadata as A2AMetadata;
  if (m.extensions?.length) message.extensions = m.extensions;
  if (m.referenceTaskIds?.length) message.referenceTaskIds = m.referenceTaskIds;
  return message;
}

/** The output artifact holding the text streamed so far. */
export function streamedArtifact(chunks: readonly string[]): A2AArtifact {
  return { artifactId: OUTPUT_ARTIFACT, name: OUTPUT_ARTIFACT, parts: [{ text: chunks.join("") }] };
}

/** The event of an artifact of `task`: a piece of streamed text (`append`), or the whole. */
export function artifactUpdate(
  task: A2ATask,
  artifact: A2AArtifact,
  append: boolean,
  lastChunk: boolean,
): StreamEvent {
  return {
    artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact, append, lastChunk },
  };
}

/** The event of `task`'s new `status` (with the task's metadata as it is now). */
export function statusUpdate(task: A2ATask, status: A2ATask["status"]): StreamEvent {
  return {
    statusUpdate: {
      taskId: task.id,
      contextId: task.contextId,
      status,
      metadata: task.metadata,
    },
  };
}

/**
 * The wire form of a task: its history cut to the newest `historyLength`
 * messages, its artifacts (or the text `streamed` so far by a live run)
 * unless `includeArtifacts` is false. The record itself is answered when
 * nothing is cut or added: it is serialized at once, never changed by a
 * caller.
 */
export function taskView(
  record: StoredTask,
  historyLength: number | undefined,
  includeArtifacts: boolean,
  streamed: readonly string[] | undefined,
): A2ATask {
  const t = record.task;
  if (
    includeArtifacts && streamed === undefined &&
    (historyLength === undefined || historyLength >= (t.history?.length ?? 0))
  ) return t;
  const out: A2ATask = { id: t.id, contextId: t.contextId, status: t.status };
  if (includeArtifacts) {
    if (streamed !== undefined) out.artifacts = [streamedArtifact(streamed)];
    else if (t.artifacts?.length) out.artifacts = t.artifacts;
  }
  const history = t.history;
  if (history?.length && historyLength !== 0) {
    out.history = historyLength === undefined || historyLength >= history.length
      ? history
      : history.slice(history.length - historyLength);
  }
  if (t.metadata) out.metadata = t.metadata;
  return out;
}

/** Where a page of `ListTasks` ends: the last task's `updatedAt` and id. */
export interface PageCursor {
  readonly updatedAt: number;
  readonly id: string;
}

/** The opaque `nextPageToken` for a cursor. */
export function encodePageToken(cursor: PageCursor): string {
  return btoa(`${cursor.updatedAt}:${cursor.id}`);
}

/**
 * The cursor of a token this gateway issued.
 *
 * @throws {GatewayError} `invalidParams` for anything else.
 */
export function decodePageToken(token: string): PageCursor {
  let text: string;
  try {
    text = atob(token);
  } catch {
    text = "";
  }
  const colon = text.indexOf(":");
  const updatedAt = Number(text.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(updatedAt) || text.includes("\0", colon)) {
    throw invalidParams(
      "pageToken is not a token this gateway issued (use nextPageToken from a previous page)",
    );
  }
  return { updatedAt, id: text.slice(colon + 1) };
}
