/**
 * A2A 0.3 push-notification configs over the 1.0 push service: the 0.3
 * JSON-RPC methods (`tasks/pushNotificationConfig/set|get|list|delete`) and
 * HTTP+JSON routes (`/v1/tasks/{id}/pushNotificationConfigs[/{configId}]`),
 * their 0.3 shapes (`{taskId, pushNotificationConfig}`, `authentication.schemes`
 * a list, proto JSON's `name`) both ways.
 */
import { type BindingContext, pushOf } from "../http/_binding.ts";
import { GatewayError } from "../core/_errors.ts";
import { parsePushConfig, parsePushConfigList, parsePushConfigRef } from "../push/_push_params.ts";
import type { V03Form } from "./_v03_convert.ts";
import { isPlain } from "./_v03_convert.ts";
import { pushConfigIn } from "./_v03_params.ts";
import type { A2APushNotificationConfig } from "../push_store.ts";
import { stringify } from "../core/_builtins.ts";

type Json = Record<string, unknown>;

/** A config in 0.3 form: `{taskId, pushNotificationConfig}`, or proto JSON's `{name, pushNotificationConfig}`. */
export function pushConfigOut(config: A2APushNotificationConfig, form: V03Form): Json {
  const inner: Json = { id: config.id, url: config.url };
  if (config.token) inner.token = config.token;
  if (config.authentication) {
    const auth: Json = { schemes: [config.authentication.scheme] };
    if (config.authentication.credentials) auth.credentials = config.authentication.credentials;
    inner.authentication = auth;
  }
  return form === "json" ? { taskId: config.taskId, pushNotificationConfig: inner } : {
    name: `tasks/${config.taskId}/pushNotificationConfigs/${config.id}`,
    pushNotificationConfig: inner,
  };
}

function fields(value: unknown, what: string, known: readonly string[]): Json {
  if (!isPlain(value)) {
    throw new GatewayError(
      "invalidParams",
      `Invalid params (A2A 0.3 ${what}): params must be an object`,
    );
  }
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (unknown.length) {
    throw new GatewayError(
      "invalidParams",
      `Invalid params (A2A 0.3 ${what}): unknown field${unknown.length > 1 ? "s" : ""} ${
        unknown.slice(0, 5).map((k) => stringify(k.slice(0, 40))).join(", ")
      } (known: ${known.join(", ")})`,
    );
  }
  return value;
}

function required(p: Json, key: string, what: string): string {
  const v = p[key];
  if (typeof v !== "string" || v === "") {
    throw new GatewayError(
      "invalidParams",
      `Invalid params (A2A 0.3 ${what}): ${key} must be a non-empty string`,
    );
  }
  return v;
}

/** `tasks/pushNotificationConfig/set`: `{taskId, pushNotificationConfig}`. */
export async function setPushConfig(
  context: BindingContext,
  params: unknown,
  principal: string | undefined,
  tenant: string | undefined,
  form: V03Form,
  pathTaskId?: string,
): Promise<Json> {
  const push = pushOf(context);
  const what = form === "json"
    ? "tasks/pushNotificationConfig/set params"
    : "HTTP+JSON TaskPushNotificationConfig";
  const p = fields(
    params,
    what,
    form === "json"
      ? ["taskId", "pushNotificationConfig"]
      : ["name", "pushNotificationConfig", "push_notification_config"],
  );
  const taskId = pathTaskId ?? required(p, "taskId", what);
  const inner = p.pushNotificationConfig ?? p.push_notification_config;
  if (!isPlain(inner)) {
    throw new GatewayError(
      "invalidParams",
      `Invalid params (A2A 0.3 ${what}): pushNotificationConfig must be an object`,
    );
  }
  const input = parsePushConfig(
    { ...pushConfigIn(inner), taskId, ...(tenant ? { tenant } : {}) },
    "pushNotificationConfig",
  );
  return pushConfigOut(await push.create(input, principal), form);
}

/** `tasks/pushNotificationConfig/get`: `{id, pushNotificationConfigId?}` (without one, the task's first config). */
export async function getPushConfig(
  context: BindingContext,
  taskId: string,
  configId: string | undefined,
  principal: string | undefined,
  tenant: string | undefined,
  form: V03Form,
): Promise<Json> {
  const push = pushOf(context);
  if (configId === undefined) {
    const { configs } = await push.list(
      parsePushConfigList({ taskId, ...(tenant ? { tenant } : {}) }),
      principal,
    );
    if (configs.length === 0) {
      throw new GatewayError(
        "taskNotFound",
        `Push notification config not found: task "${taskId.slice(0, 100)}" has none`,
      );
    }
    return pushConfigOut(configs[0], form);
  }
  const ref = parsePushConfigRef({ taskId, id: configId, ...(tenant ? { tenant } : {}) });
  return pushConfigOut(await push.get(ref, principal), form);
}

/** `tasks/pushNotificationConfig/list`: every config of a task. */
export async function listPushConfigs(
  context: BindingContext,
  taskId: string,
  principal: string | undefined,
  tenant: string | undefined,
  form: V03Form,
): Promise<Json[]> {
  const push = pushOf(context);
  const { configs } = await push.list(
    parsePushConfigList({ taskId, ...(tenant ? { tenant } : {}) }),
    principal,
  );
  return configs.map((c) => pushConfigOut(c, form));
}

/** `tasks/pushNotificationConfig/delete`. */
export async function deletePushConfig(
  context: BindingContext,
  taskId: string,
  configId: string,
  principal: string | undefined,
  tenant: string | undefined,
): Promise<void> {
  const ref = parsePushConfigRef({ taskId, id: configId, ...(tenant ? { tenant } : {}) });
  await pushOf(context).delete(ref, principal);
}

/** The JSON-RPC params of get/list/delete: `{id, pushNotificationConfigId?, metadata?}`. */
export function pushRefParams(
  params: unknown,
  method: string,
  needsConfigId: boolean,
): { taskId: string; configId?: string } {
  const what = `${method} params`;
  const p = fields(params, what, ["id", "pushNotificationConfigId", "metadata"]);
  const taskId = required(p, "id", what);
  const configId = p.pushNotificationConfigId;
  if (configId === undefined && !needsConfigId) return { taskId };
  return { taskId, configId: required(p, "pushNotificationConfigId", what) };
}
