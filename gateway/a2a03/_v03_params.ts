/**
 * A2A 0.3 requests in: params in 0.3 JSON (JSON-RPC) or the bodies of 0.3
 * proto JSON (HTTP+JSON) checked by shape, unknown fields refused, each
 * refusal naming the field and the version, and made into the 1.0 params
 * the operations take.
 */
import type { JsonValue } from "@seam/host";
import { GatewayError } from "../core/_errors.ts";
import {
  array,
  boolean,
  discriminated,
  oneOf,
  optional,
  record,
  type Shape,
  shapeIssues,
  strictObject,
  string,
  union,
  unknown,
} from "../http/_shape.ts";
import { DATA_PART_COMPAT, isPlain } from "./_v03_convert.ts";
import {
  COMMON_FIELDS,
  type GetParams,
  type IdParams,
  type ParsedMessage,
  type SendParams,
} from "../http/_validate.ts";
import type { A2AMetadata, A2APart } from "../types.ts";
import { isArray, stringify } from "../core/_builtins.ts";

type Json = Record<string, unknown>;

const { metadata, text, strings, historyLength, taskId } = COMMON_FIELDS;
const fileName = { mimeType: text, name: text };

const jsonPart = discriminated(
  "kind",
  {
    text: strictObject({ kind: unknown, text: string(), metadata }),
    file: strictObject({
      kind: unknown,
      file: union([
        strictObject({ bytes: string(), ...fileName }),
        strictObject({ uri: string(), ...fileName }),
      ], "must hold either bytes (base64) or uri, with optional mimeType and name"),
      metadata,
    }),
    data: strictObject({
      kind: unknown,
      data: record("must be a JSON object in A2A 0.3"),
      metadata,
    }),
  },
  (issue) =>
    issue.code === "invalid_union"
      ? 'kind must be "text", "file" or "data" (an A2A 0.3 part; a part without kind is the 1.0 form, sent with A2A-Version: 1.0)'
      : undefined,
);

const protoPart = union([
  strictObject({ text: string(), metadata }),
  strictObject({
    file: union([
      strictObject({ fileWithBytes: string(), ...fileName }),
      strictObject({ fileWithUri: string(), ...fileName }),
    ], "must hold either fileWithBytes (base64) or fileWithUri, with optional mimeType"),
    metadata,
  }),
  strictObject({
    data: strictObject({ data: record("must be a JSON object") }, {
      message: "must be {data: {...}} (an A2A 0.3 DataPart)",
    }),
    metadata,
  }),
], "a part must hold exactly one of text, file or data (A2A 0.3 proto JSON)");

const ids = {
  messageId: string("must be a non-empty string"),
  contextId: text,
  taskId: text,
  metadata,
  extensions: strings,
};

const jsonMessage = strictObject({
  kind: optional(oneOf(["message"], 'must be "message"')),
  ...ids,
  role: oneOf(
    ["user"],
    (issue) =>
      issue.input === "ROLE_USER"
        ? 'must be "user" (ROLE_USER is the A2A 1.0 form)'
        : 'must be "user" (a client sends user messages)',
  ),
  parts: array(jsonPart, { nonEmpty: "must hold at least one part" }),
  referenceTaskIds: strings,
});

const protoMessage = strictObject({
  ...ids,
  role: oneOf(
    ["ROLE_USER", 1],
    (issue) =>
      issue.input === "user"
        ? 'must be "ROLE_USER" (proto JSON; "user" is the 0.3 JSON-RPC form)'
        : 'must be "ROLE_USER" (a client sends user messages)',
  ),
  content: array(protoPart, {
    nonEmpty: "must hold at least one part",
    message: (issue) =>
      issue.input === undefined
        ? "must hold the parts (A2A 0.3 proto JSON names them content; parts is the JSON-RPC form)"
        : undefined,
  }),
});

const pushConfig = optional(record());

/** A send's params in either 0.3 form, which differ in the message and the push config's name. */
function sendShape(message: Shape, pushKey: "pushNotificationConfig" | "pushNotification"): Shape {
  return strictObject({
    message,
    configuration: optional(strictObject({
      acceptedOutputModes: strings,
      historyLength,
      blocking: optional(boolean),
      [pushKey]: pushConfig,
    })),
    metadata,
  });
}

const jsonSend = sendShape(jsonMessage, "pushNotificationConfig");
const protoSend = sendShape(protoMessage, "pushNotification");

const jsonGet = strictObject({ id: taskId, historyLength, metadata });
const jsonId = strictObject({ id: taskId, metadata });

/** Unknown fields, as the 0.3 refusals name them. */
const named = (keys: readonly string[]) =>
  keys.slice(0, 5).map((k) => stringify(k.slice(0, 40))).join(", ");

function parse<T>(shape: Shape, value: unknown, what: string): T {
  const issues = shapeIssues(shape, value, named);
  if (!issues) return value as T;
  throw new GatewayError("invalidParams", `Invalid params (A2A 0.3 ${what}): ${issues.join("; ")}`);
}

type FileIn = { mimeType?: string; name?: string };
type JsonPartIn =
  | { kind: "text"; text: string; metadata?: Json }
  | { kind: "file"; file: ({ bytes: string } | { uri: string }) & FileIn; metadata?: Json }
  | { kind: "data"; data: Json; metadata?: Json };
type ProtoPartIn =
  | { text: string; metadata?: Json }
  | { file: ({ fileWithBytes: string } | { fileWithUri: string }) & FileIn; metadata?: Json }
  | { data: { data: Json }; metadata?: Json };
interface MessageIn {
  messageId: string;
  contextId?: string;
  taskId?: string;
  metadata?: Json;
  extensions?: string[];
}
interface SendIn<M, P extends string> {
  message: M;
  configuration?: {
    acceptedOutputModes?: string[];
    historyLength?: number;
    blocking?: boolean;
  } & { [K in P]?: Json };
  metadata?: Json;
}
type JsonSendIn = SendIn<
  MessageIn & { parts: JsonPartIn[]; referenceTaskIds?: string[] },
  "pushNotificationConfig"
>;
type ProtoSendIn = SendIn<MessageIn & { content: ProtoPartIn[] }, "pushNotification">;

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

/**
 * The 1.0 push config for a 0.3 one: the first of `authentication.schemes`
 * (a list in 0.3) becomes `scheme`; no scheme and no credentials, no
 * authentication.
 */
export function pushConfigIn(config: Json): Json {
  const { authentication, ...rest } = config;
  if (!isPlain(authentication)) return config;
  const schemes = isArray(authentication.schemes) ? authentication.schemes : [];
  if (schemes.length === 0 && authentication.credentials === undefined) return rest;
  const auth: Json = { scheme: schemes[0] };
  if (authentication.credentials !== undefined) auth.credentials = authentication.credentials;
  return { ...rest, authentication: auth };
}

/**
 * `message/send` / `message/stream` params (0.3 JSON) as the 1.0 params the
 * operations take tenant-less (`tenant` names the provider when the request
 * came to its own 0.3 address). A 0.3 send blocks unless `blocking` is false,
 * as the 0.3 servers of the reference SDKs do.
 */
export function sendParamsFromJson(value: unknown, tenant: string | undefined): SendParams {
  const p = parse<JsonSendIn>(jsonSend, value, "message/send params");
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
  const p = parse<ProtoSendIn>(protoSend, body, "HTTP+JSON SendMessageRequest");
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
      : isArray(v)
      ? v.map((item) => camelCase(item, depth + 1))
      : camelCase(v, depth + 1);
  }
  return out;
}
