/**
 * The HTTP+JSON binding: one table of routes (`/message:send`,
 * `/tasks/{id}:cancel`, …), each also under a `/{tenant}` prefix naming the
 * provider.
 */
import { isRecord } from "@seam/host";
import {
  acceptSend,
  activatesSeam,
  assertOpen,
  type BindingContext,
  pushOf,
  type RestCall,
} from "./_binding.ts";
import { discardBody, readJsonBody } from "./_body.ts";
import {
  GatewayError,
  invalidParams,
  invalidRequest,
  restErrorBody,
  toGatewayError,
} from "../core/_errors.ts";
import { assertVersion, json, restErrorResponse } from "./_http.ts";
import { lastEventId } from "./_operations.ts";
import { sseResponse, type StreamFraming } from "./_sse.ts";
import {
  type IdParams,
  listQueryToParams,
  parseGetParams,
  parseIdParams,
  parseListParams,
} from "./_validate.ts";
import {
  answerRoute,
  matchRoute,
  type RestAnswer,
  type RestRoute,
  restTable,
} from "./_rest_table.ts";
import { stringify } from "../core/_builtins.ts";

const FRAMING: StreamFraming = {
  event: (event) => stringify(event),
  error: (error) => stringify(restErrorBody(error)),
};

/** A request's JSON object body, with the path's tenant. */
export async function bodyOf(
  context: BindingContext,
  call: RestCall,
): Promise<Record<string, unknown>> {
  const body = await readJsonBody(call.request, context.body);
  if (!isRecord(body)) {
    throw invalidParams("the body must be a JSON object");
  }
  const record = body as Record<string, unknown>;
  if (call.tenant !== undefined) record.tenant = call.tenant;
  return record;
}

/** A request's query as params, with the path's tenant. */
export function queryOf(call: RestCall): Record<string, unknown> {
  const params = listQueryToParams(call.url.searchParams);
  delete params["A2A-Version"];
  if (call.tenant !== undefined) params.tenant = call.tenant;
  return params;
}

/** The task a bodiless task route names (its body, if any, let go). */
function idParamsOf(call: RestCall): IdParams {
  discardBody(call.request);
  return parseIdParams({ tenant: call.tenant, id: call.id });
}

/** `/tasks/{id}/pushNotificationConfigs[/{configId}]`, in the push feature (_push_bindings.ts). */
const PUSH: RestRoute = {
  methods: ["GET", "POST", "DELETE"],
  // Without the feature, pushOf refuses.
  handle: async (context, call) => {
    pushOf(context);
    return await context.pushBindings!.rest(context, call);
  },
};

/** The 1.0 routes by path. */
const ROUTES = restTable({
  "message:send": {
    methods: ["POST"],
    handle: async (context, call) => {
      const params = acceptSend(context, call.request, await bodyOf(context, call));
      const answer = await context.operations.send(params, call.principal, call.ctx);
      return json(answer.result, 200, answer.headers);
    },
  },
  "message:stream": {
    methods: ["POST"],
    handle: async (context, call) => {
      const params = acceptSend(context, call.request, await bodyOf(context, call));
      const answer = await context.operations.stream(params, call.principal, call.ctx, FRAMING);
      return sseResponse(answer.body, answer.headers);
    },
  },
  "tasks": {
    methods: ["GET"],
    handle: async (context, call) =>
      json(await context.operations.list(parseListParams(queryOf(call)), call.principal)),
  },
  "tasks/{id}:cancel": {
    methods: ["POST"],
    handle: async (context, call) =>
      json(await context.operations.cancel(idParamsOf(call), call.principal)),
  },
  "tasks/{id}:subscribe": {
    methods: ["GET", "POST"],
    handle: async (context, call) => {
      const answer = await context.operations.subscribe(
        idParamsOf(call),
        call.principal,
        FRAMING,
        lastEventId(call.request),
        activatesSeam(call.request),
      );
      return sseResponse(answer.body, answer.headers);
    },
  },
  "tasks/{id}": {
    methods: ["GET"],
    handle: async (context, call) => {
      const q = queryOf(call);
      const params = parseGetParams({
        tenant: q.tenant,
        historyLength: q.historyLength,
        id: call.id,
      });
      return json(await context.operations.get(params, call.principal));
    },
  },
  "tasks/{id}/pushNotificationConfigs": PUSH,
  "tasks/{id}/pushNotificationConfigs/{configId}": PUSH,
  "extendedAgentCard": {
    methods: ["GET"],
    handle: (context, call) => Promise.resolve(json(context.extendedCard(call.request))),
  },
});

/** The 1.0 binding's answers: `google.rpc.Status` errors, and the version header checked. */
const ANSWER: RestAnswer = { refuse: restErrorResponse, check: assertVersion };

function notFound(request: Request, path: string): GatewayError {
  return new GatewayError(
    "methodNotFound",
    `Not found: ${request.method} ${
      path.slice(0, 100)
    } (the card: {base}/.well-known/agent-card.json; JSON-RPC: POST {base})`,
  );
}

/** Answer one HTTP+JSON request; `basePath` is where the gateway is mounted (`""` at the root). */
export async function handleRest(
  context: BindingContext,
  request: Request,
  ctx: unknown,
  basePath: string,
): Promise<Response> {
  try {
    assertOpen(context);
    const url = new URL(request.url);
    const path = url.pathname;
    if (basePath && !(path === basePath || path.startsWith(`${basePath}/`))) {
      throw notFound(request, path);
    }
    let segs: string[];
    try {
      segs = path.slice(basePath.length).split("/").slice(1).map(decodeURIComponent);
    } catch {
      throw invalidRequest("the path is not valid UTF-8");
    }
    if (segs.length > 1 && segs[segs.length - 1] === "") segs.pop();
    const v03 = context.v03?.rest(context, request, url, segs, ctx);
    if (v03) return await v03;
    const matched = matchRoute(ROUTES, segs);
    if (!matched) throw notFound(request, path);
    return await answerRoute(context, ANSWER, matched, { request, url, ctx });
  } catch (error) {
    discardBody(request);
    return restErrorResponse(toGatewayError(error, context.logger));
  }
}
