/**
 * A2A 0.3 wire forms, both ways: requests in 0.3 JSON (JSON-RPC: parts with
 * `kind`, roles `user`/`agent`) or 0.3 proto JSON (HTTP+JSON: `content`,
 * `file.fileWithUri`, `TASK_STATE_CANCELLED`) become the 1.0 params the
 * operations take; the 1.0 tasks, messages and stream events they answer
 * become 0.3 ones. Nothing here knows a binding's envelope.
 */
import { formatPath, type JsonValue } from "@seam/host";
import { z } from "zod";
import { GatewayError } from "./_errors.ts";
import type { StreamEvent } from "./_sse.ts";
import type { GetParams, IdParams, ParsedMessage, SendParams } from "./_validate.ts";
import type {
  A2AArtifact,
  A2AMessage,
  A2AMetadata,
  A2APart,
  A2ATask,
  A2ATaskState,
  A2ATaskStatus,
} from "./types.ts";

/** The two 0.3 wire forms: JSON (the JSON-RPC binding) and proto JSON (HTTP+JSON). */
export type V03Form = "json" | "proto";

type Json = Record<string, unknown>;

// ---------------------------------------------------------------- out

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
const DATA_PART_COMPAT = "data_part_compat";

function isPlain(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
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

// ---------------------------------------------------------------- in

const metadata = z.record(z.string(), z.unknown());
const fileName = { mimeType: z.string().optional(), name: z.string().optional() };

const jsonPart = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("text"), text: z.string(), metadata: metadata.optional() }),
  z.strictObject({
    kind: z.literal("file"),
    file: z.union([
      z.strictObject({ bytes: z.string(), ...fileName }),
      z.strictObject({ uri: z.string(), ...fileName }),
    ], { error: "must hold either bytes (base64) or uri, with optional mimeType and name" }),
    metadata: metadata.optional(),
  }),
  z.strictObject({
    kind: z.literal("data"),
    data: z.record(z.string(), z.unknown(), { error: "must be a JSON object in A2A 0.3" }),
    metadata: metadata.optional(),
  }),
], {
  error: (issue) =>
    issue.code === "invalid_union"
      ? 'kind must be "text", "file" or "data" (an A2A 0.3 part; a part without kind is the 1.0 form, sent with A2A-Version: 1.0)'
      : undefined,
});

const protoPart = z.union([
  z.strictObject({ text: z.string(), metadata: metadata.optional() }),
  z.strictObject({
    file: z.union([
      z.strictObject({ fileWithBytes: z.string(), ...fileName }),
      z.strictObject({ fileWithUri: z.string(), ...fileName }),
    ], { error: "must hold either fileWithBytes (base64) or fileWithUri, with optional mimeType" }),
    metadata: metadata.optional(),
  }),
  z.strictObject({
    data: z.strictObject({
      data: z.record(z.string(), z.unknown(), { error: "must be a JSON object" }),
    }, { error: "must be {data: {...}} (an A2A 0.3 DataPart)" }),
    metadata: metadata.optional(),
  }),
], { error: "a part must hold exactly one of text, file or data (A2A 0.3 proto JSON)" });

const ids = {
  messageId: z.string().min(1, "must be a non-empty string"),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  metadata: metadata.optional(),
  extensions: z.array(z.string()).optional(),
};

const jsonMessage = z.strictObject({
  kind: z.literal("message", { error: 'must be "message"' }).optional(),
  ...ids,
  role: z.literal("user", {
    error: (issue) =>
      issue.input === "ROLE_USER"
        ? 'must be "user" (ROLE_USER is the A2A 1.0 form)'
        : 'must be "user" (a client sends user messages)',
  }),
  parts: z.array(jsonPart).min(1, "must hold at least one part"),
  referenceTaskIds: z.array(z.string()).optional(),
});

const protoMessage = z.strictObject({
  ...ids,
  role: z.literal(["ROLE_USER", 1], {
    error: (issue) =>
      issue.input === "user"
        ? 'must be "ROLE_USER" (proto JSON; "user" is the 0.3 JSON-RPC form)'
        : 'must be "ROLE_USER" (a client sends user messages)',
  }),
  content: z.array(protoPart, {
    error: (issue) =>
      issue.input === undefined
        ? "must hold the parts (A2A 0.3 proto JSON names them content; parts is the JSON-RPC form)"
        : undefined,
  }).min(1, "must hold at least one part"),
});

const historyLength = z.int().min(0);
const pushConfig = z.record(z.string(), z.unknown());

const jsonSend = z.strictObject({
  message: jsonMessage,
  configuration: z.strictObject({
    acceptedOutputModes: z.array(z.string()).optional(),
    historyLength: historyLength.optional(),
    blocking: z.boolean().optional(),
    pushNotificationConfig: pushConfig.optional(),
  }).optional(),
  metadata: metadata.optional(),
});

const protoSend = z.strictObject({
  message: protoMessage,
  configuration: z.strictObject({
    acceptedOutputModes: z.array(z.string()).optional(),
    historyLength: historyLength.optional(),
    blocking: z.boolean().optional(),
    pushNotification: pushConfig.optional(),
  }).optional(),
  metadata: metadata.optional(),
});

const taskId = z.string().min(1, "must be a non-empty task id");
const jsonGet = z.strictObject({
  id: taskId,
  historyLength: historyLength.optional(),
  metadata: metadata.optional(),
});
const jsonId = z.strictObject({ id: taskId, metadata: metadata.optional() });

function parse<T>(schema: z.ZodType, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data as T;
  const issues = result.error.issues.slice(0, 5).map((issue) => {
    const where = formatPath("", issue.path) || "params";
    return issue.code === "unrecognized_keys"
      ? `${where}: unknown field${issue.keys.length > 1 ? "s" : ""} ${
        issue.keys.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 40))).join(", ")
      }`
      : `${where}: ${issue.message}`;
  });
  throw new GatewayError("invalidParams", `Invalid params (A2A 0.3 ${what}): ${issues.join("; ")}`);
}

type JsonPartIn = z.infer<typeof jsonPart>;
type ProtoPartIn = z.infer<typeof protoPart>;

function jsonPartIn(part: JsonPartIn): A2APart {
  if (part.kind === "text") {
    return part.metadata ? { text: part.text, metadata: part.metadata as A2AMetadata } : {
      text: part.text,
    };
  }
  const out: A2APart = {};
  if (part.kind === "file") {
    const file = part.file as { bytes?: string; uri?: string; mimeType?: string; name?: string };
    if (file.bytes !== undefined) out.raw = file.bytes;
    else out.url = file.uri;
    if (file.mimeType) out.mediaType = file.mimeType;
    if (file.name) out.filename = file.name;
  } else {
    let data: unknown = part.data;
    const meta = part.metadata ? { ...part.metadata } : undefined;
    if (meta?.[DATA_PART_COMPAT] === true) {
      if ("value" in part.data) data = part.data.value;
      delete meta[DATA_PART_COMPAT];
    }
    out.data = data as JsonValue;
    if (meta && Object.keys(meta).length > 0) out.metadata = meta as A2AMetadata;
    return out;
  }
  if (part.metadata) out.metadata = part.metadata as A2AMetadata;
  return out;
}

function protoPartIn(part: ProtoPartIn): A2APart {
  let out: A2APart;
  if ("text" in part) out = { text: part.text };
  else if ("file" in part) {
    const file = part.file as { fileWithBytes?: string; fileWithUri?: string; mimeType?: string };
    out = file.fileWithBytes !== undefined
      ? { raw: file.fileWithBytes }
      : { url: file.fileWithUri };
    if (file.mimeType) out.mediaType = file.mimeType;
  } else out = { data: part.data.data as JsonValue };
  if (part.metadata) out.metadata = part.metadata as A2AMetadata;
  return out;
}

function messageIn(m: {
  messageId: string;
  contextId?: string;
  taskId?: string;
  metadata?: Json;
  extensions?: string[];
  referenceTaskIds?: string[];
}, parts: A2APart[]): ParsedMessage {
  const out: {
    -readonly [K in keyof ParsedMessage]: ParsedMessage[K];
  } = { messageId: m.messageId, parts };
  if (m.contextId) out.contextId = m.contextId;
  if (m.taskId) out.taskId = m.taskId;
  if (m.metadata) out.metadata = m.metadata as A2AMetadata;
  if (m.extensions) out.extensions = m.extensions;
  if (m.referenceTaskIds) out.referenceTaskIds = m.referenceTaskIds;
  return out;
}

/** The 1.0 push config for a 0.3 one (`authentication.schemes` → `scheme`). */
function pushConfigIn(config: Json): Json {
  const { authentication, ...rest } = config;
  if (!isPlain(authentication)) return config;
  const schemes = Array.isArray(authentication.schemes) ? authentication.schemes : [];
  return {
    ...rest,
    authentication: { scheme: schemes[0], credentials: authentication.credentials },
  };
}

/**
 * `message/send` / `message/stream` params (0.3 JSON) as the 1.0 params the
 * operations take tenant-less (`tenant` names the provider when the request
 * came to its own 0.3 address). A 0.3 send blocks unless `blocking` is false,
 * as the 0.3 servers of the reference SDKs do.
 */
export function sendParamsFromJson(value: unknown, tenant: string | undefined): SendParams {
  const p = parse<z.infer<typeof jsonSend>>(jsonSend, value, "message/send params");
  const c = p.configuration;
  return {
    tenant,
    message: messageIn(p.message, p.message.parts.map(jsonPartIn)),
    configuration: c && {
      acceptedOutputModes: c.acceptedOutputModes,
      historyLength: c.historyLength,
      returnImmediately: c.blocking === false,
      taskPushNotificationConfig: c.pushNotificationConfig &&
        pushConfigIn(c.pushNotificationConfig),
    },
    metadata: p.metadata as A2AMetadata | undefined,
  };
}

/**
 * The body of `POST /v1/message:send` / `:stream` (0.3 proto JSON; field
 * names in camelCase or snake_case, as proto JSON parsers read them) as 1.0
 * params. As in proto3, an absent `blocking` is false: a configuration
 * without it returns at once; no configuration blocks.
 */
export function sendParamsFromProto(value: unknown, tenant: string | undefined): SendParams {
  const body = camelCase(value, 0);
  if (isPlain(body) && body.request !== undefined && body.message === undefined) {
    body.message = body.request; // the proto field's own name
    delete body.request;
  }
  const p = parse<z.infer<typeof protoSend>>(protoSend, body, "HTTP+JSON SendMessageRequest");
  const c = p.configuration;
  return {
    tenant,
    message: messageIn(p.message, p.message.content.map(protoPartIn)),
    configuration: c
      ? {
        acceptedOutputModes: c.acceptedOutputModes,
        historyLength: c.historyLength || undefined,
        returnImmediately: c.blocking !== true,
        taskPushNotificationConfig: c.pushNotification && pushConfigIn(c.pushNotification),
      }
      : undefined,
    metadata: p.metadata as A2AMetadata | undefined,
  };
}

/** `tasks/get` params (0.3 JSON). */
export function getParamsFromJson(value: unknown, tenant: string | undefined): GetParams {
  const p = parse<{ id: string; historyLength?: number }>(jsonGet, value, "tasks/get params");
  return { tenant, id: p.id, historyLength: p.historyLength };
}

/** `tasks/cancel` / `tasks/resubscribe` params (0.3 JSON). */
export function idParamsFromJson(
  value: unknown,
  tenant: string | undefined,
  method: string,
): IdParams {
  const p = parse<{ id: string }>(jsonId, value, `${method} params`);
  return { tenant, id: p.id };
}

const MAX_KEYS_DEPTH = 8;

/**
 * Proto JSON names fields in lowerCamelCase or as in the proto
 * (snake_case): `message_id` → `messageId`, down the request's own
 * structure (metadata and data values are left as given). A field given
 * both ways is refused, as proto JSON parsers do.
 */
function camelCase(value: unknown, depth: number): Json | unknown {
  if (!isPlain(value) || depth >= MAX_KEYS_DEPTH) return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    const name = key.includes("_")
      ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
      : key;
    if (Object.hasOwn(out, name)) {
      throw new GatewayError(
        "invalidParams",
        `Invalid params (A2A 0.3 proto JSON): field "${name.slice(0, 40)}" is given twice`,
      );
    }
    // Metadata and a DataPart's Struct are the caller's own values.
    out[name] = name === "metadata" || name === "data"
      ? v
      : Array.isArray(v)
      ? v.map((item) => camelCase(item, depth + 1))
      : camelCase(v, depth + 1);
  }
  return out;
}
