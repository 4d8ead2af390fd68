/**
 * The push notification config methods of both 1.0 bindings, part of the
 * push feature (`@seam/gateway`): `@seam/gateway/lite`, which has no push,
 * leaves them out of its bundle and answers them `pushNotSupported`.
 *
 * @module
 */
import { type BindingContext, type PushBindings, pushOf, type RestCall } from "../http/_binding.ts";
import { discardBody } from "../http/_body.ts";
import { GatewayError, invalidParams } from "../core/_errors.ts";
import { json } from "../http/_http.ts";
import { type Method, ok } from "../http/_jsonrpc.ts";
import { bodyOf, queryOf } from "../http/_rest.ts";

const createPushConfig: Method = async (context, { params, principal, id }) => {
  const push = pushOf(context);
  const input = push.parse.config(params, "");
  if (input.taskId === undefined) {
    throw invalidParams("taskId is required");
  }
  return ok(id, await push.create(input, principal));
};

const listPushConfigs: Method = async (context, { params, principal, id }) => {
  const push = pushOf(context);
  return ok(id, await push.list(push.parse.list(params), principal));
};

/** The push methods, for {@linkcode BindingContext}'s `pushBindings`. */
export const PUSH_BINDINGS: PushBindings = {
  rest: handlePush,
  jsonRpc: {
    create: createPushConfig,
    list: listPushConfigs,
    get: async (context, { params, principal, id }) => {
      const push = pushOf(context);
      return ok(id, await push.get(push.parse.ref(params), principal));
    },
    delete: async (context, { params, principal, id }) => {
      const push = pushOf(context);
      await push.delete(push.parse.ref(params), principal);
      return ok(id, {});
    },
  },
};

/**
 * `/tasks/{id}/pushNotificationConfigs`: POST creates, GET lists;
 * `…/{configId}`: GET reads, DELETE removes.
 */
async function handlePush(context: BindingContext, call: RestCall): Promise<Response> {
  const push = pushOf(context);
  const method = call.request.method;
  const { configId } = call;
  if (configId === undefined ? method === "DELETE" : method === "POST") {
    const allow = configId === undefined ? "GET, POST" : "GET, DELETE";
    throw new GatewayError(
      "methodNotFound",
      `Method not allowed: ${method} ${call.url.pathname.slice(0, 100)} (allowed: ${allow})`,
      { httpStatus: 405 },
    );
  }
  const ref = { taskId: call.id, ...(call.tenant === undefined ? {} : { tenant: call.tenant }) };
  if (method === "POST") {
    const input = push.parse.config(await bodyOf(context, call), "");
    if (input.taskId !== undefined && input.taskId !== call.id) {
      throw invalidParams(
        `taskId "${input.taskId.slice(0, 100)}" does not match the task in the path ("${
          call.id.slice(0, 100)
        }")`,
      );
    }
    return json(await push.create({ ...input, taskId: call.id }, call.principal));
  }
  discardBody(call.request);
  if (configId === undefined) {
    const q = queryOf(call);
    return json(await push.list(push.parse.list({ ...q, ...ref }), call.principal));
  }
  const params = push.parse.ref({ ...ref, id: configId });
  if (method === "GET") return json(await push.get(params, call.principal));
  await push.delete(params, call.principal);
  return json({});
}
