/**
 * The A2A 0.3 JSON-RPC binding: `message/send`, `message/stream`,
 * `tasks/get`, `tasks/cancel`, `tasks/resubscribe` (and the 0.3 names of
 * push configs and the extended card), one table of methods over the same
 * operations as 1.0, in 0.3 JSON (`kind`, `user`/`agent`, `final`).
 */
import { isRecord } from "@seam/host";
import { type BindingContext, principalOf } from "../http/_binding.ts";
import { linkSendTrace, traceRpcMethod } from "../http/_trace.ts";
import { GatewayError, invalidParams, jsonRpcError } from "../core/_errors.ts";
import { json } from "../http/_http.ts";
import { sseResponse, type StreamFraming } from "../http/_sse.ts";
import type { SendParams } from "../http/_validate.ts";
import { eventOut, sendResultOut, taskOut } from "./_v03_convert.ts";
import { extendedCard03 } from "./_v03_version.ts";
import {
  deletePushConfig,
  getPushConfig,
  listPushConfigs,
  pushRefParams,
  setPushConfig,
} from "./_v03_push.ts";
import { getParamsFromJson, idParamsFromJson, sendParamsFromJson } from "./_v03_params.ts";
import { stringify } from "../core/_builtins.ts";

type RpcId = string | number | null;

/** One 0.3 call, its params an object. */
interface V03Call {
  readonly params: Record<string, unknown>;
  readonly principal: string | undefined;
  readonly id: RpcId;
  readonly ctx: unknown;
  /** The provider named by the request's address (`POST {base}/{provider}/`), if any. */
  readonly tenant: string | undefined;
  readonly request: Request;
}

type V03Method = (context: BindingContext, call: V03Call) => Promise<Response>;

/** 0.3 peers spell the extensions header with `X-`. */
export function v03Headers(
  headers: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  const uri = headers?.["a2a-extensions"];
  return uri === undefined ? undefined : { "x-a2a-extensions": uri };
}

function ok(id: RpcId, result: unknown, headers?: Record<string, string>): Response {
  return json({ jsonrpc: "2.0", id, result }, 200, headers);
}

function framing(id: RpcId): StreamFraming {
  return {
    event: (event) => stringify({ jsonrpc: "2.0", id, result: eventOut(event, "json") }),
    error: (error) => stringify({ jsonrpc: "2.0", id, error: jsonRpcError(error) }),
  };
}

/**
 * Refuse a 0.3 message that does not activate every required extension (by
 * 0.3's `X-A2A-Extensions` header, 1.0's `A2A-Extensions`, or
 * `message.extensions`).
 *
 * @throws {GatewayError} -32008 naming the first one missing.
 */
function assertV03Extensions(
  context: BindingContext,
  request: Request,
  params: SendParams,
): void {
  if (context.requiredExtensions.length === 0) return;
  const header = request.headers.get("x-a2a-extensions") ?? request.headers.get("a2a-extensions");
  const active = new Set((header ?? "").split(",").map((uri) => uri.trim()).filter(Boolean));
  for (const uri of params.message.extensions ?? []) active.add(uri);
  for (const uri of context.requiredExtensions) {
    if (!active.has(uri)) {
      throw new GatewayError(
        "extensionRequired",
        `Extension support required: this gateway requires the extension "${uri}"; activate it with the X-A2A-Extensions header (or message.extensions)`,
        { metadata: { extension: uri.slice(0, 200) } },
      );
    }
  }
}

/**
 * The params of a 0.3 `message/send` (or `message/stream`) of either
 * binding, parsed from its form: the extensions the gateway requires
 * checked, and the request's trace linked to them.
 */
export function acceptV03Send(
  context: BindingContext,
  request: Request,
  params: SendParams,
): SendParams {
  assertV03Extensions(context, request, params);
  linkSendTrace(request, params);
  return params;
}

/** The A2A 0.3 methods. */
export const V03_METHODS: ReadonlyMap<string, V03Method> = new Map<string, V03Method>([
  ["message/send", async (context, { params, principal, id, ctx, tenant, request }) => {
    const send = acceptV03Send(context, request, sendParamsFromJson(params, tenant));
    const answer = await context.operations.send(send, principal, ctx);
    return ok(id, sendResultOut(answer.result, "json"), v03Headers(answer.headers));
  }],
  ["message/stream", async (context, { params, principal, id, ctx, tenant, request }) => {
    const send = acceptV03Send(context, request, sendParamsFromJson(params, tenant));
    const answer = await context.operations.stream(send, principal, ctx, framing(id));
    return sseResponse(answer.body, v03Headers(answer.headers));
  }],
  ["tasks/get", async ({ operations }, { params, principal, id, tenant }) => {
    const task = await operations.get(getParamsFromJson(params, tenant), principal);
    return ok(id, taskOut(task, "json"));
  }],
  ["tasks/cancel", async ({ operations }, { params, principal, id, tenant }) => {
    const ids = idParamsFromJson(params, tenant, "tasks/cancel");
    return ok(id, taskOut(await operations.cancel(ids, principal), "json"));
  }],
  ["tasks/resubscribe", async ({ operations }, { params, principal, id, tenant }) => {
    const ids = idParamsFromJson(params, tenant, "tasks/resubscribe");
    const answer = await operations.subscribe(ids, principal, framing(id));
    return sseResponse(answer.body, v03Headers(answer.headers));
  }],
  ["tasks/pushNotificationConfig/set", async (context, { params, principal, id, tenant }) => {
    return ok(id, await setPushConfig(context, params, principal, tenant, "json"));
  }],
  ["tasks/pushNotificationConfig/get", async (context, { params, principal, id, tenant }) => {
    const ref = pushRefParams(params, "tasks/pushNotificationConfig/get", false);
    return ok(
      id,
      await getPushConfig(context, ref.taskId, ref.configId, principal, tenant, "json"),
    );
  }],
  ["tasks/pushNotificationConfig/list", async (context, { params, principal, id, tenant }) => {
    const ref = pushRefParams(params, "tasks/pushNotificationConfig/list", false);
    return ok(id, await listPushConfigs(context, ref.taskId, principal, tenant, "json"));
  }],
  ["tasks/pushNotificationConfig/delete", async (context, { params, principal, id, tenant }) => {
    const ref = pushRefParams(params, "tasks/pushNotificationConfig/delete", true);
    await deletePushConfig(context, ref.taskId, ref.configId!, principal, tenant);
    return ok(id, null);
  }],
  [
    "agent/getAuthenticatedExtendedCard",
    (context, { id, request }) => Promise.resolve(ok(id, extendedCard03(context, request, "0.3"))),
  ],
]);

/** The 0.3 names of the 1.0 methods, for hints. */
const V1_TO_V03: ReadonlyMap<string, string> = new Map([
  ["SendMessage", "message/send"],
  ["SendStreamingMessage", "message/stream"],
  ["GetTask", "tasks/get"],
  ["CancelTask", "tasks/cancel"],
  ["SubscribeToTask", "tasks/resubscribe"],
]);

/**
 * Answer a 0.3 JSON-RPC request: `method` is a 0.3 method (or the request
 * said `A2A-Version: 0.3`, and a 1.0 or unknown method is refused naming
 * its 0.3 counterpart).
 */
export async function handleV03JsonRpc(
  context: BindingContext,
  request: Request,
  call: {
    readonly method: string;
    readonly params: unknown;
    readonly id: RpcId;
    readonly ctx: unknown;
    readonly tenant?: string;
  },
): Promise<Response> {
  const pending = principalOf(context, request);
  const principal = pending && await pending;
  const handler = V03_METHODS.get(call.method);
  if (!handler) {
    const v03 = V1_TO_V03.get(call.method);
    throw new GatewayError(
      "methodNotFound",
      v03
        ? `Method not found: "${call.method}" is an A2A 1.0 method and this request is A2A 0.3 (${
          call.tenant === undefined ? "A2A-Version: 0.3" : "a provider's 0.3 address"
        }); its 0.3 name is ${v03}, or send it with A2A-Version: 1.0 to the JSON-RPC base`
        : `Method not found: "${
          call.method.slice(0, 80)
        }" (A2A 0.3 methods: message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe)`,
    );
  }
  traceRpcMethod(request, call.method);
  let params = call.params;
  if (params === undefined || params === null) params = {};
  else if (!isRecord(params)) {
    throw invalidParams("params must be an object");
  }
  return await handler(context, {
    params: params as Record<string, unknown>,
    principal,
    id: call.id,
    ctx: call.ctx,
    tenant: call.tenant,
    request,
  });
}
