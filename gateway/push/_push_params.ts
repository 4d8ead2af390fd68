/**
 * The params of the push-config methods, checked: camelCase or the proto's
 * snake_case names (as ProtoJSON parsers accept), every other key refused
 * by name, every string bounded.
 */
import { isRecord } from "@seam/host";
import { assertStorableText, invalidParams } from "../core/_errors.ts";
import type { A2APushAuthentication } from "../push_store.ts";
import { stringify } from "../core/_builtins.ts";

/** A config as a client sent it (before the policy and the id). */
export interface PushConfigInput {
  readonly taskId?: string;
  readonly id?: string;
  readonly url: string;
  readonly token?: string;
  readonly authentication?: A2APushAuthentication;
  readonly tenant?: string;
}

/** `Get`/`DeleteTaskPushNotificationConfig` params. */
export interface PushConfigRef {
  readonly taskId: string;
  readonly id: string;
  readonly tenant?: string;
}

/** `ListTaskPushNotificationConfigs` params. */
export interface PushConfigListParams {
  readonly taskId: string;
  readonly pageSize?: number;
  readonly pageToken?: string;
  readonly tenant?: string;
}

const ALIASES: Readonly<Record<string, string>> = {
  task_id: "taskId",
  page_size: "pageSize",
  page_token: "pageToken",
};

const MAX_ID = 256;
const MAX_SECRET = 4_096;
/** An HTTP auth scheme is a token (RFC 9110 §11.1). */
const SCHEME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Credentials go into a header value: visible ASCII and spaces, no CR/LF. */
const HEADER_TEXT = /^[\x20-\x7e]*$/;

/** The object's keys under their camelCase names; unknown keys and clashing aliases refused. */
function normalize(
  value: unknown,
  root: string,
  known: readonly string[],
): Record<string, unknown> {
  if (!isRecord(value)) {
    throw invalidParams(`${root || "params"} must be an object`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = ALIASES[key] ?? key;
    if (!known.includes(name)) {
      throw invalidParams(
        `${root}${root ? "." : ""}${key.slice(0, 64)} is not a field here (known: ${
          known.join(", ")
        })`,
      );
    }
    if (name in out && out[name] !== v) {
      throw invalidParams(`${root}${root ? "." : ""}${name} is given twice with different values`);
    }
    out[name] = v;
  }
  return out;
}

function text(
  record: Record<string, unknown>,
  key: string,
  root: string,
  options: { required?: boolean; max?: number } = {},
): string | undefined {
  const value = record[key];
  const path = `${root}${root ? "." : ""}${key}`;
  if (value === undefined || value === null || value === "") {
    if (options.required) throw invalidParams(`${path} is required`);
    return undefined;
  }
  if (typeof value !== "string") throw invalidParams(`${path} must be a string`);
  const max = options.max ?? MAX_ID;
  if (value.length > max) {
    throw invalidParams(`${path} is ${value.length} characters long (the limit is ${max})`);
  }
  assertStorableText(value, path);
  return value;
}

/** Check a `TaskPushNotificationConfig` (create, or `SendMessage`'s `configuration.taskPushNotificationConfig`). */
export function parsePushConfig(value: unknown, root: string): PushConfigInput {
  const r = normalize(value, root, ["tenant", "id", "taskId", "url", "token", "authentication"]);
  const url = text(r, "url", root, { required: true, max: 2_048 })!;
  const token = text(r, "token", root, { max: MAX_SECRET });
  if (token !== undefined && !HEADER_TEXT.test(token)) {
    throw invalidParams(
      `${root}${root ? "." : ""}token must be printable ASCII (it is sent in a header)`,
    );
  }
  let authentication: A2APushAuthentication | undefined;
  if (r.authentication !== undefined && r.authentication !== null) {
    const path = `${root}${root ? "." : ""}authentication`;
    const a = normalize(r.authentication, path, ["scheme", "credentials"]);
    const scheme = text(a, "scheme", path, { required: true, max: 64 })!;
    if (!SCHEME.test(scheme)) {
      throw invalidParams(`${path}.scheme must be an HTTP authentication scheme such as "Bearer"`);
    }
    const credentials = text(a, "credentials", path, { max: MAX_SECRET });
    if (credentials !== undefined && !HEADER_TEXT.test(credentials)) {
      throw invalidParams(`${path}.credentials must be printable ASCII (it is sent in a header)`);
    }
    authentication = credentials === undefined ? { scheme } : { scheme, credentials };
  }
  const out: {
    -readonly [K in keyof PushConfigInput]: PushConfigInput[K];
  } = { url };
  const taskId = text(r, "taskId", root);
  const id = text(r, "id", root);
  const tenant = text(r, "tenant", root);
  if (taskId !== undefined) out.taskId = taskId;
  if (id !== undefined) out.id = id;
  if (token !== undefined) out.token = token;
  if (authentication) out.authentication = authentication;
  if (tenant !== undefined) out.tenant = tenant;
  return out;
}

/** Check `Get`/`DeleteTaskPushNotificationConfig` params. */
export function parsePushConfigRef(value: unknown): PushConfigRef {
  const r = normalize(value, "", ["tenant", "taskId", "id"]);
  const out: { taskId: string; id: string; tenant?: string } = {
    taskId: text(r, "taskId", "", { required: true })!,
    id: text(r, "id", "", { required: true })!,
  };
  const tenant = text(r, "tenant", "");
  if (tenant !== undefined) out.tenant = tenant;
  return out;
}

/** Check `ListTaskPushNotificationConfigs` params (a query string's page size already a number when it reads as one). */
export function parsePushConfigList(value: unknown): PushConfigListParams {
  const r = normalize(value, "", ["tenant", "taskId", "pageSize", "pageToken"]);
  const out: { taskId: string; pageSize?: number; pageToken?: string; tenant?: string } = {
    taskId: text(r, "taskId", "", { required: true })!,
  };
  const size = r.pageSize;
  if (size !== undefined && size !== null && size !== 0) {
    if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 1 || size > 100) {
      throw invalidParams(
        `pageSize must be an integer between 1 and 100, got ${stringify(size)}`,
      );
    }
    out.pageSize = size;
  }
  const token = text(r, "pageToken", "");
  if (token !== undefined) out.pageToken = token;
  const tenant = text(r, "tenant", "");
  if (tenant !== undefined) out.tenant = tenant;
  return out;
}
