/**
 * The A2A 0.3 HTTP+JSON binding, as the reference SDKs speak it: routes
 * under `/v1` (`POST /v1/message:send`, `GET /v1/tasks/{id}`, …, each also
 * under a `/{tenant}` prefix naming the provider), bodies in 0.3 proto JSON,
 * SSE events holding the bare `StreamResponse`, and errors as a bare
 * `{code, message, data}` body (no `google.rpc.Status`), an SSE `error`
 * event on a stream.
 */
import { isRecord } from "@seam/host";
import type { BindingContext, RestCall } from "../http/_binding.ts";
import type { SendParams } from "../http/_validate.ts";
import {
  answerRoute,
  matchRoute,
  type RestAnswer,
  type RestMatch,
  restTable,
} from "../http/_rest_table.ts";
import { discardBody, readJsonBody } from "../http/_body.ts";
import { GatewayError, jsonRpcError, toGatewayError } from "../core/_errors.ts";
import { json } from "../http/_http.ts";
import { sseResponse, type StreamFraming } from "../http/_sse.ts";
import { eventOut, sendResultOut, taskOut } from "./_v03_convert.ts";
import { sendParamsFromProto } from "./_v03_params.ts";
import { extendedCard03 } from "./_v03_version.ts";
import { acceptV03Send, v03Headers } from "./_v03_jsonrpc.ts";
import { deletePushConfig, getPushConfig, listPushConfigs, setPushConfig } from "./_v03_push.ts";
import { stringify } from "../core/_builtins.ts";

/** HTTP statuses of the 0.3 error codes (as the reference SDK's 0.3 server answers them). */
const STATUS: Readonly<Record<number, number>> = {
  [-32700]: 400,
  [-32600]: 400,
  [-32601]: 404,
  [-32602]: 400,
  [-32603]: 500,
  [-32001]: 404,
  [-32002]: 400,
  [-32003]: 400,
  [-32004]: 400,
  [-32005]: 400,
  [-32006]: 500,
  [-32007]: 400,
  [-32008]: 400,
  [-32009]: 400,
};

/** The bare 0.3 error body. */
function errorBody(error: GatewayError): Record<string, unknown> {
  return jsonRpcError(error);
}

/** A 0.3 HTTP+JSON error response. */
function errorResponse(error: GatewayError, headers?: Record<string, string>): Response {
  const body = errorBody(error);
  const status = error.httpStatus ?? STATUS[body.code as number] ?? 400;
  const h: Record<string, string> = { ...headers };
  if (status === 401) h["www-authenticate"] = 'Bearer realm="a2a"';
  return json(body, status, h);
}

const FRAMING: StreamFraming = {
  event: (event) => stringify(eventOut(event, "proto")),
  error: (error) => stringify(errorBody(error)),
  errorEvent: "error",
};

async function bodyOf(context: BindingContext, request: Request): Promise<unknown> {
  const body = await readJsonBody(request, context.body);
  if (!isRecord(body)) {
    throw new GatewayError(
      "invalidParams",
      "Invalid params (A2A 0.3 HTTP+JSON): the body must be a JSON object (a SendMessageRequest)",
    );
  }
  return body;
}

/** A send's params from its proto JSON body, accepted as both 0.3 bindings accept them. */
async function sendOf(context: BindingContext, call: RestCall): Promise<SendParams> {
  const params = sendParamsFromProto(await bodyOf(context, call.request), call.tenant);
  return acceptV03Send(context, call.request, params);
}

function historyLengthOf(url: URL): number | undefined {
  const raw = url.searchParams.get("historyLength") ?? url.searchParams.get("history_length");
  if (raw === null || raw === "") return undefined;
  if (!/^\d{1,9}$/.test(raw)) {
    throw new GatewayError(
      "invalidParams",
      `Invalid params (A2A 0.3 HTTP+JSON): historyLength must be a non-negative integer, got ${
        stringify(raw.slice(0, 20))
      }`,
    );
  }
  return Number(raw);
}

/** The 0.3 routes by path. */
const ROUTES = restTable({
  "v1/message:send": {
    methods: ["POST"],
    handle: async (context, call) => {
      const params = await sendOf(context, call);
      const answer = await context.operations.send(params, call.principal, call.ctx);
      return json(sendResultOut(answer.result, "proto"), 200, v03Headers(answer.headers));
    },
  },
  "v1/message:stream": {
    methods: ["POST"],
    handle: async (context, call) => {
      const params = await sendOf(context, call);
      const answer = await context.operations.stream(params, call.principal, call.ctx, FRAMING);
      return sseResponse(answer.body, v03Headers(answer.headers));
    },
  },
  "v1/tasks/{id}:cancel": {
    methods: ["POST"],
    handle: async (context, call) => {
      discardBody(call.request);
      const params = { tenant: call.tenant, id: call.id };
      return json(taskOut(await context.operations.cancel(params, call.principal), "proto"));
    },
  },
  "v1/tasks/{id}:subscribe": {
    methods: ["GET", "POST"],
    handle: async (context, call) => {
      discardBody(call.request);
      const params = { tenant: call.tenant, id: call.id };
      const answer = await context.operations.subscribe(params, call.principal, FRAMING);
      return sseResponse(answer.body, v03Headers(answer.headers));
    },
  },
  "v1/tasks/{id}": {
    methods: ["GET"],
    handle: async (context, call) => {
      const params = { tenant: call.tenant, id: call.id, historyLength: historyLengthOf(call.url) };
      return json(taskOut(await context.operations.get(params, call.principal), "proto"));
    },
  },
  "v1/tasks/{id}/pushNotificationConfigs": {
    methods: ["GET", "POST"],
    handle: async (context, call) => {
      if (call.request.method === "GET") {
        const configs = await listPushConfigs(
          context,
          call.id,
          call.principal,
          call.tenant,
          "proto",
        );
        return json({ configs, nextPageToken: "" });
      }
      const body = await bodyOf(context, call.request);
      const made = await setPushConfig(
        context,
        body,
        call.principal,
        call.tenant,
        "proto",
        call.id,
      );
      return json(made);
    },
  },
  "v1/tasks/{id}/pushNotificationConfigs/{configId}": {
    methods: ["GET", "DELETE"],
    handle: async (context, call) => {
      if (call.request.method === "GET") {
        const { id, configId, principal, tenant } = call;
        return json(await getPushConfig(context, id, configId, principal, tenant, "proto"));
      }
      await deletePushConfig(context, call.id, call.configId!, call.principal, call.tenant);
      return new Response(null, { status: 204 });
    },
  },
  "v1/card": {
    methods: ["GET"],
    handle: (context, call) =>
      Promise.resolve(json(extendedCard03(context, call.request, "0.3-proto"))),
  },
});

/**
 * The 0.3 route for path segments (`v1/…` or `{tenant}/v1/…`). A 0.3 path
 * has no empty segment: such a path, unversioned, is left to the 1.0 routes.
 */
function match(segs: readonly string[]): RestMatch | undefined {
  return segs.includes("") ? undefined : matchRoute(ROUTES, segs);
}

const ANSWER: RestAnswer = { refuse: errorResponse };

/** Whether path segments name a 0.3 route. */
export function isV03Route(segs: readonly string[]): boolean {
  return match(segs) !== undefined;
}

/** Answer one 0.3 HTTP+JSON request (never rejects: errors are 0.3 error responses). */
export async function handleV03Rest(
  context: BindingContext,
  request: Request,
  url: URL,
  segs: readonly string[],
  ctx: unknown,
): Promise<Response> {
  const path = url.pathname.slice(0, 100);
  try {
    const matched = match(segs);
    if (!matched) {
      throw new GatewayError(
        "methodNotFound",
        `Not found: ${request.method} ${path} is not an A2A 0.3 HTTP+JSON route (they are under {base}/v1: POST /v1/message:send, POST /v1/message:stream, GET /v1/tasks/{id}, POST /v1/tasks/{id}:cancel, GET /v1/tasks/{id}:subscribe); send A2A-Version: 1.0 for the 1.0 routes`,
      );
    }
    return await answerRoute(context, ANSWER, matched, { request, url, ctx });
  } catch (error) {
    discardBody(request);
    return errorResponse(toGatewayError(error, context.logger));
  }
}
