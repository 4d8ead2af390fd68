/**
 * A2A 0.3 wire forms out: the 1.0 tasks, messages and stream events the
 * operations answer, in 0.3 JSON (the JSON-RPC binding: `kind`, roles
 * `user`/`agent`, states `completed`) or 0.3 proto JSON (HTTP+JSON:
 * `content`, `file.fileWithUri`, `TASK_STATE_CANCELLED`). The requests come
 * in through `_v03_params.ts`. Nothing here knows a binding's envelope.
 */
import type { StreamEvent } from "../http/_sse.ts";
import type {
  A2AArtifact,
  A2AMessage,
  A2AMetadata,
  A2APart,
  A2ATask,
  A2ATaskState,
  A2ATaskStatus,
} from "../types.ts";
import { isArray } from "../core/_builtins.ts";

/** The two 0.3 wire forms: JSON (the JSON-RPC binding) and proto JSON (HTTP+JSON). */
export type V03Form = "json" | "proto";

type Json = Record<string, unknown>;

const JSON_STATE: Record<A2ATaskState, string> = {
  TASK_STATE_SUBMITTED: "submitted",
  TASK_STATE_WORKING: "working",
  TASK_STATE_COMPLETED: "completed",
  TASK_STATE_FAILED: "failed",
  TASK_STATE_CANCELED: "canceled",
  TASK_STATE_INPUT_REQUIRED: "input-required",
  TASK_STATE_REJECTED: "rejected",
  TASK_STATE_AUTH_REQUIRED: "auth-required",
};

/** 0.3's proto spells one state differently. */
function protoState(state: A2ATaskState): string {
  return state === "TASK_STATE_CANCELED" ? "TASK_STATE_CANCELLED" : state;
}

/** The states after which a 0.3 stream's status update is `final`. */
const FINAL: ReadonlySet<string> = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
]);

/** The key 0.3 peers (the SDKs) set on a data part whose value was wrapped as `{value}`. */
export const DATA_PART_COMPAT = "data_part_compat";

/** Whether `value` is a JSON object. */
export function isPlain(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !isArray(value);
}

function partOut(part: A2APart, form: V03Form): Json {
  if (part.text !== undefined) {
    const out: Json = form === "json" ? { kind: "text", text: part.text } : { text: part.text };
    if (form === "json" && part.metadata) out.metadata = part.metadata;
    return out;
  }
  if (part.raw !== undefined || part.url !== undefined) {
    const file: Json = form === "json"
      ? (part.raw !== undefined ? { bytes: part.raw } : { uri: part.url })
      : (part.raw !== undefined ? { fileWithBytes: part.raw } : { fileWithUri: part.url });
    if (part.mediaType) file.mimeType = part.mediaType;
    if (form === "json" && part.filename) file.name = part.filename;
    if (form === "proto") return { file };
    const out: Json = { kind: "file", file };
    if (part.metadata) out.metadata = part.metadata;
    return out;
  }
  // 0.3 data is an object: anything else travels as {value} with the flag the SDKs unwrap.
  const wrap = !isPlain(part.data);
  const data = wrap ? { value: part.data ?? null } : part.data as Json;
  if (form === "proto") return { data: { data } };
  const out: Json = { kind: "data", data };
  const metadata = wrap ? { ...part.metadata, [DATA_PART_COMPAT]: true } : part.metadata;
  if (metadata) out.metadata = metadata;
  return out;
}

function partsOut(parts: readonly A2APart[], form: V03Form): Json[] {
  return parts.map((p) => partOut(p, form));
}

/** A message in 0.3 form. */
export function messageOut(message: A2AMessage, form: V03Form): Json {
  const out: Json = form === "json"
    ? {
      kind: "message",
      messageId: message.messageId,
      role: message.role === "ROLE_USER" ? "user" : "agent",
      parts: partsOut(message.parts, form),
    }
    : { messageId: message.messageId, role: message.role, content: partsOut(message.parts, form) };
  if (message.contextId) out.contextId = message.contextId;
  if (message.taskId) out.taskId = message.taskId;
  if (message.metadata) out.metadata = message.metadata;
  if (message.extensions?.length) out.extensions = message.extensions;
  if (form === "json" && message.referenceTaskIds?.length) {
    out.referenceTaskIds = message.referenceTaskIds;
  }
  return out;
}

function statusOut(status: A2ATaskStatus, form: V03Form): Json {
  const out: Json = {
    state: form === "json" ? JSON_STATE[status.state] : protoState(status.state),
  };
  if (status.message) out.message = messageOut(status.message, form);
  if (status.timestamp) out.timestamp = status.timestamp;
  return out;
}

function artifactOut(artifact: A2AArtifact, form: V03Form): Json {
  const out: Json = { artifactId: artifact.artifactId, parts: partsOut(artifact.parts, form) };
  if (artifact.name) out.name = artifact.name;
  if (artifact.description) out.description = artifact.description;
  if (artifact.metadata) out.metadata = artifact.metadata;
  return out;
}

/** A task in 0.3 form. */
export function taskOut(task: A2ATask, form: V03Form): Json {
  const out: Json = form === "json"
    ? { kind: "task", id: task.id, contextId: task.contextId }
    : { id: task.id, contextId: task.contextId };
  out.status = statusOut(task.status, form);
  if (task.artifacts?.length) out.artifacts = task.artifacts.map((a) => artifactOut(a, form));
  if (task.history?.length) out.history = task.history.map((m) => messageOut(m, form));
  if (task.metadata) out.metadata = task.metadata;
  return out;
}

/**
 * The result of `SendMessage` (`{task}` or `{message}`) in 0.3 form: JSON
 * answers the bare task or message (`kind` tells them apart), proto JSON
 * keeps the envelope.
 */
export function sendResultOut(result: unknown, form: V03Form): Json {
  const r = result as { task?: A2ATask; message?: A2AMessage };
  if (r.message !== undefined) {
    const message = messageOut(r.message, form);
    return form === "json" ? message : { message };
  }
  const task = taskOut(r.task!, form);
  return form === "json" ? task : { task };
}

/**
 * One stream event (`{task | message | statusUpdate | artifactUpdate}`) in
 * 0.3 form: a status update says whether it is `final`.
 */
export function eventOut(event: StreamEvent, form: V03Form): Json {
  if (event.task) return sendResultOut(event, form);
  if (event.message) return sendResultOut(event, form);
  if (event.statusUpdate) {
    const u = event.statusUpdate as {
      taskId: string;
      contextId: string;
      status: A2ATaskStatus;
      metadata?: A2AMetadata;
    };
    const out: Json = form === "json"
      ? { kind: "status-update", taskId: u.taskId, contextId: u.contextId }
      : { taskId: u.taskId, contextId: u.contextId };
    out.status = statusOut(u.status, form);
    out.final = FINAL.has(u.status.state);
    if (u.metadata) out.metadata = u.metadata;
    return form === "json" ? out : { statusUpdate: out };
  }
  const u = event.artifactUpdate as {
    taskId: string;
    contextId: string;
    artifact: A2AArtifact;
    append?: boolean;
    lastChunk?: boolean;
    metadata?: A2AMetadata;
  };
  const out: Json = form === "json"
    ? { kind: "artifact-update", taskId: u.taskId, contextId: u.contextId }
    : { taskId: u.taskId, contextId: u.contextId };
  out.artifact = artifactOut(u.artifact, form);
  if (u.append !== undefined) out.append = u.append;
  if (u.lastChunk !== undefined) out.lastChunk = u.lastChunk;
  if (u.metadata) out.metadata = u.metadata;
  return form === "json" ? out : { artifactUpdate: out };
}
