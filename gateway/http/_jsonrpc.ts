/** The JSON-RPC 2.0 binding: `POST /` with an A2A method and its params, one table of methods. */
import { isRecord } from "@seam/host";
import {
  acceptSend,
  activatesSeam,
  assertOpen,
  type BindingContext,
  type JsonRpcMethod,
  principalOf,
  type PushMethodName,
  pushOf,
} from "./_binding.ts";
import { discardBody, readJsonBody } from "./_body.ts";
import {
  GatewayError,
  invalidParams,
  invalidRequest,
  jsonRpcError,
  toGatewayError,
} from "../core/_errors.ts";
import { assertVersion, jsonRpcErrorResponse, jsonRpcResult } from "./_http.ts";
import { lastEventId, type Operations } from "./_operations.ts";
import { sseResponse, type StreamFraming } from "./_sse.ts";
import { traceRpcMethod } from "./_trace.ts";
import { parseGetParams, parseIdParams, parseListParams } from "./_validate.ts";
import { isArray, stringify } from "../core/_builtins.ts";

/** A JSON-RPC request's id. */
export type RpcId = string | number | null;

/** One method: its params (an object) in, a response out. */
export type Method = JsonRpcMethod;

/** A JSON-RPC success response. */
export const ok: (
  id: RpcId,
  result: unknown,
  headers?: Readonly<Record<string, string>>,
) => Response = jsonRpcResult;

function framing(id: RpcId): StreamFraming {
  return {
    event: (event) => stringify({ jsonrpc: "2.0", id, result: event }),
    error: (error) => stringify({ jsonrpc: "2.0", id, error: jsonRpcError(error) }),
  };
}

/** A push method: in the push feature (_push_bindings.ts); without it, pushOf refuses. */
function pushMethod(name: PushMethodName): Method {
  return async (context, call) => {
    pushOf(context);
    return await context.pushBindings!.jsonRpc[name](context, call);
  };
}

/** A method answered with what one of the operations gives for its parsed params. */
function answered(
  call: (
    operations: Operations,
    params: unknown,
    principal: string | undefined,
  ) => Promise<unknown>,
): Method {
  return async ({ operations }, { params, principal, id }) =>
    ok(id, await call(operations, params, principal));
}

/** The A2A 1.0 methods. */
const METHODS: ReadonlyMap<string, Method> = new Map<string, Method>([
  ["SendMessage", async (context, { params, principal, id, ctx, request }) => {
    const send = acceptSend(context, request, params);
    const answer = await context.operations.send(send, principal, ctx);
    return ok(id, answer.result, answer.headers);
  }],
  ["SendStreamingMessage", async (context, { params, principal, id, ctx, request }) => {
    const send = acceptSend(context, request, params);
    const answer = await context.operations.stream(send, principal, ctx, framing(id));
    return sseResponse(answer.body, answer.headers);
  }],
  ["GetTask", answered((o, params, who) => o.get(parseGetParams(params), who))],
  ["ListTasks", answered((o, params, who) => o.list(parseListParams(params), who))],
  ["CancelTask", answered((o, params, who) => o.cancel(parseIdParams(params), who))],
  ["SubscribeToTask", async ({ operations }, { params, principal, id, request }) => {
    const answer = await operations.subscribe(
      parseIdParams(params),
      principal,
      framing(id),
      lastEventId(request),
      activatesSeam(request),
    );
    return sseResponse(answer.body, answer.headers);
  }],
  ["CreateTaskPushNotificationConfig", pushMethod("create")],
  ["SetTaskPushNotificationConfig", pushMethod("create")],
  ["GetTaskPushNotificationConfig", pushMethod("get")],
  ["ListTaskPushNotificationConfigs", pushMethod("list")],
  ["ListTaskPushNotificationConfig", pushMethod("list")],
  ["DeleteTaskPushNotificationConfig", pushMethod("delete")],
  [
    "GetExtendedAgentCard",
    (context, { id, request }) => Promise.resolve(ok(id, context.extendedCard(request))),
  ],
]);

/** Not found: a 0.3 method (it has a slash) is named so, with its successor where known. */
function methodNotFound(method: string, context: BindingContext): GatewayError {
  const v1 = context.v1MethodOf?.(method);
  return new GatewayError(
    "methodNotFound",
    `Method not found: "${method.slice(0, 80)}"${
      method.includes("/") ? " is an A2A 0.3 method; this gateway speaks A2A 1.0" : ""
    } (${v1 ? `use ${v1} with A2A-Version: 1.0` : `known: ${[...METHODS.keys()].join(", ")}`})`,
  );
}

/**
 * Answer one JSON-RPC request; `tenant03` is the provider whose own A2A 0.3
 * address (`POST {base}/{provider}/`) it came to.
 */
export async function handleJsonRpc(
  context: BindingContext,
  request: Request,
  ctx: unknown,
  tenant03?: string,
): Promise<Response> {
  let id: RpcId = null;
  try {
    assertOpen(context);
    const pending = principalOf(context, request);
    const principal = pending && await pending;
    const body = await readJsonBody(request, context.body);
    if (isArray(body)) {
      throw invalidRequest("batch requests are not supported");
    }
    if (body === null || typeof body !== "object") {
      throw invalidRequest("expected a JSON-RPC request object");
    }
    const envelope = body as Record<string, unknown>;
    const rawId = envelope.id;
    if (typeof rawId === "string" || (typeof rawId === "number" && Number.isSafeInteger(rawId))) {
      id = rawId;
    } else if (rawId !== undefined && rawId !== null) {
      throw invalidRequest("id must be a string, an integer or null");
    }
    if (envelope.jsonrpc !== "2.0") {
      throw invalidRequest('jsonrpc must be "2.0"');
    }
    const method = envelope.method;
    if (typeof method !== "string" || method === "") {
      throw invalidRequest("method must be a non-empty string");
    }
    if (context.v03) {
      const v1 = METHODS.has(method);
      const call = { method, params: envelope.params, id, v1, ctx, tenant: tenant03 };
      const answer = context.v03.jsonRpc(context, request, call);
      if (answer) return await answer;
    }
    assertVersion(request, undefined);
    let params = envelope.params;
    if (params === undefined || params === null) params = {};
    else if (!isRecord(params)) {
      throw invalidParams("params must be an object");
    }
    const handler = METHODS.get(method);
    if (!handler) throw methodNotFound(method, context);
    traceRpcMethod(request, method);
    return await handler(context, {
      params: params as Record<string, unknown>,
      principal,
      id,
      ctx,
      request,
    });
  } catch (error) {
    discardBody(request);
    return jsonRpcErrorResponse(id, toGatewayError(error, context.logger));
  }
}
