/** The shapes of A2A v1.0 requests; unknown fields are refused. */
import { isRecord } from "@seam/host";
import { invalidParams } from "../core/_errors.ts";
import { camel, withJsonNames } from "./_proto_names.ts";
import {
  array,
  boolean,
  int,
  oneOf,
  optional,
  record,
  type Shape,
  shapeIssues,
  strictObject,
  string,
  union,
  unknown,
} from "./_shape.ts";
import type { A2AMetadata, A2APart, A2ATaskState } from "../types.ts";
import { isArray, stringify } from "../core/_builtins.ts";

const metadata = optional(record());
const text = optional(string());
const strings = optional(array(string()));
const historyLength = optional(int({ min: 0 }));
const taskId = string("must be a non-empty task id");

/** The field shapes A2A 0.3's requests share with 1.0's (a2a03/_v03_params.ts). */
export const COMMON_FIELDS = { metadata, text, strings, historyLength, taskId } as const;

const part = strictObject({
  text,
  raw: text,
  url: text,
  data: optional(unknown),
  mediaType: text,
  filename: text,
  metadata,
}, {
  rule: (p) => {
    let n = 0;
    if (p.text !== undefined) n++;
    if (p.raw !== undefined) n++;
    if (p.url !== undefined) n++;
    if (p.data !== undefined && p.data !== null) n++;
    if (n === 1) return undefined;
    return n === 0
      ? "a part must hold one of text, raw, url or data (v0.3 `kind`/`file` parts are not v1.0)"
      : "a part must hold exactly one of text, raw, url or data";
  },
});

const message = strictObject({
  messageId: string("must be a non-empty string"),
  role: oneOf(["ROLE_USER", 1], "must be ROLE_USER (a client sends user messages)"),
  parts: array(part, { nonEmpty: "must hold at least one part" }),
  contextId: text,
  taskId: text,
  metadata,
  extensions: strings,
  referenceTaskIds: strings,
});

const sendMessage = strictObject({
  tenant: text,
  message,
  configuration: optional(strictObject({
    acceptedOutputModes: strings,
    historyLength,
    returnImmediately: optional(boolean),
    taskPushNotificationConfig: optional(unknown),
  })),
  metadata,
});

const getTask = strictObject({ tenant: text, id: taskId, historyLength });

const idOnly = strictObject({ tenant: text, id: taskId, metadata });

const STATES = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_AUTH_REQUIRED",
] as const;

const pageSizeRange = "must be between 1 and 100";

const listTasks = strictObject({
  tenant: text,
  contextId: text,
  status: optional(union([oneOf(["TASK_STATE_UNSPECIFIED", ...STATES]), int({ min: 0, max: 8 })])),
  pageSize: optional(
    int({ min: 1, max: 100, minMessage: pageSizeRange, maxMessage: pageSizeRange }),
  ),
  pageToken: text,
  historyLength,
  statusTimestampAfter: text,
  includeArtifacts: optional(boolean),
});

/** A user message as accepted. */
export interface ParsedMessage {
  readonly messageId: string;
  readonly parts: A2APart[];
  readonly contextId?: string;
  readonly taskId?: string;
  readonly metadata?: A2AMetadata;
  readonly extensions?: string[];
  readonly referenceTaskIds?: string[];
}

/** `SendMessage` / `SendStreamingMessage` params as accepted. */
export interface SendParams {
  readonly tenant?: string;
  readonly message: ParsedMessage;
  readonly configuration?: {
    readonly acceptedOutputModes?: string[];
    readonly historyLength?: number;
    readonly returnImmediately?: boolean;
    readonly taskPushNotificationConfig?: unknown;
  };
  readonly metadata?: A2AMetadata;
}

/** `GetTask` params as accepted. */
export interface GetParams {
  readonly tenant?: string;
  readonly id: string;
  readonly historyLength?: number;
}

/** `CancelTask` / `SubscribeToTask` params as accepted. */
export interface IdParams {
  readonly tenant?: string;
  readonly id: string;
  readonly metadata?: A2AMetadata;
}

/** `ListTasks` params as accepted. */
export interface ListParams {
  readonly tenant?: string;
  readonly contextId?: string;
  readonly state?: A2ATaskState;
  readonly pageSize: number;
  readonly pageToken?: string;
  readonly historyLength?: number;
  readonly updatedAfter?: number;
  readonly includeArtifacts: boolean;
}

/** Unknown fields, as the 1.0 refusals name them. */
const named = (keys: readonly string[]) =>
  `${keys.map((k) => stringify(k.slice(0, 60))).join(", ")} (refused rather than ignored)`;

function parse<T>(shape: Shape, value: unknown): T {
  const issues = shapeIssues(shape, value, named);
  if (issues) throw invalidParams(issues.join("; "));
  return value as T;
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

const SEND_KEYS = new Set(["message", "configuration", "tenant", "metadata"]);
const MESSAGE_KEYS = new Set(["messageId", "role", "parts", "contextId", "taskId", "metadata"]);
const CONFIG_KEYS = new Set(["historyLength", "returnImmediately", "acceptedOutputModes"]);

/**
 * The common, plainly valid `SendMessage` (text parts, no unknown fields)
 * recognised without the shape checks, for the hot path; anything else answers
 * `undefined` and goes through the schema, which has the last word and the
 * error messages. What it accepts, the schema accepts unchanged. Measured:
 * bench/gateway_bench.ts, group "SendMessage params" (quick check against
 * the shape checks).
 */
function quickSend(value: unknown): SendParams | undefined {
  if (!isRecord(value)) return undefined;
  for (const key in value) if (!SEND_KEYS.has(key)) return undefined;
  if (value.tenant !== undefined && typeof value.tenant !== "string") return undefined;
  if (value.metadata !== undefined && !isRecord(value.metadata)) return undefined;
  const message = value.message;
  if (!isRecord(message)) return undefined;
  for (const key in message) if (!MESSAGE_KEYS.has(key)) return undefined;
  if (typeof message.messageId !== "string" || message.messageId === "") return undefined;
  if (message.role !== "ROLE_USER" && message.role !== 1) return undefined;
  if (message.contextId !== undefined && typeof message.contextId !== "string") return undefined;
  if (message.taskId !== undefined && typeof message.taskId !== "string") return undefined;
  if (message.metadata !== undefined && !isRecord(message.metadata)) return undefined;
  const parts = message.parts;
  if (!isArray(parts) || parts.length === 0 || parts.length > 64) return undefined;
  for (const part of parts) {
    if (!isRecord(part) || typeof part.text !== "string") return undefined;
    for (const key in part) if (key !== "text") return undefined;
  }
  const config = value.configuration;
  if (config !== undefined) {
    if (!isRecord(config)) return undefined;
    for (const key in config) if (!CONFIG_KEYS.has(key)) return undefined;
    const h = config.historyLength;
    if (h !== undefined && !(Number.isSafeInteger(h) && (h as number) >= 0)) return undefined;
    const r = config.returnImmediately;
    if (r !== undefined && typeof r !== "boolean") return undefined;
    const modes = config.acceptedOutputModes;
    if (modes !== undefined) {
      if (!isArray(modes)) return undefined;
      for (const mode of modes) if (typeof mode !== "string") return undefined;
    }
  }
  return value as unknown as SendParams;
}

/** Check `SendMessage` params. */
export function parseSendParams(value: unknown): SendParams {
  value = withJsonNames(value);
  const params = (quickSend(value) ??
    parse<SendParams>(sendMessage, value)) as SendParams & {
      message: { contextId?: string; taskId?: string };
    };
  const msg = params.message as { contextId?: string; taskId?: string };
  if (msg.contextId === "") msg.contextId = undefined;
  if (msg.taskId === "") msg.taskId = undefined;
  return params;
}

/** Check `GetTask` params. */
export function parseGetParams(value: unknown): GetParams {
  return parse<GetParams>(getTask, withJsonNames(value));
}

/** Check `CancelTask` / `SubscribeToTask` params. */
export function parseIdParams(value: unknown): IdParams {
  return parse<IdParams>(idOnly, withJsonNames(value));
}

/** Check `ListTasks` params (JSON values, or strings from a query string already converted). */
export function parseListParams(value: unknown): ListParams {
  const raw = parse<{
    tenant?: string;
    contextId?: string;
    status?: string | number;
    pageSize?: number;
    pageToken?: string;
    historyLength?: number;
    statusTimestampAfter?: string;
    includeArtifacts?: boolean;
  }>(listTasks, withJsonNames(value));
  let state: A2ATaskState | undefined;
  if (typeof raw.status === "number") state = raw.status === 0 ? undefined : STATES[raw.status - 1];
  else if (raw.status !== undefined && raw.status !== "TASK_STATE_UNSPECIFIED") {
    state = raw.status as A2ATaskState;
  }
  let updatedAfter: number | undefined;
  if (raw.statusTimestampAfter) {
    updatedAfter = Date.parse(raw.statusTimestampAfter);
    if (Number.isNaN(updatedAfter)) {
      throw invalidParams(
        `statusTimestampAfter must be an ISO 8601 timestamp, got ${
          stringify(raw.statusTimestampAfter.slice(0, 40))
        }`,
      );
    }
  }
  return {
    tenant: raw.tenant,
    contextId: emptyToUndefined(raw.contextId),
    state,
    pageSize: raw.pageSize ?? 50,
    pageToken: emptyToUndefined(raw.pageToken),
    historyLength: raw.historyLength,
    updatedAfter,
    includeArtifacts: raw.includeArtifacts ?? false,
  };
}

/**
 * Convert the query string of `GET /tasks` to `ListTasks` params: numbers
 * and booleans from their decimal and lowercase forms; a malformed one is
 * left as a string so the schema names it.
 */
export function listQueryToParams(query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [given, value] of query) {
    const key = given === "A2A-Version" ? given : camel(given);
    if (key === "pageSize" || key === "historyLength") {
      out[key] = /^\d{1,15}$/.test(value) ? Number(value) : value;
    } else if (key === "includeArtifacts") {
      out[key] = value === "true" ? true : value === "false" ? false : value;
    } else if (key === "status" && /^\d$/.test(value)) {
      out[key] = Number(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** `SendMessage` params through the schema only (for tests of the quick path). */
export function parseSendParamsWithSchema(value: unknown): SendParams {
  return parse<SendParams>(sendMessage, withJsonNames(value));
}
