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
  principalOf,
  pushOf,
  type RestCall,
  type RestRoute,
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
import { listQueryToParams, parseGetParams, parseIdParams, parseListParams } from "./_validate.ts";
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

const ROUTES = {
  send: {
    methods: ["POST"],
    handle: async (context, call) => {
      const params = acceptSend(context, call.request, await bodyOf(context, call));
      const answer = await context.operations.send(params, call.principal, call.ctx);
      return json(answer.result, 200, answer.headers);
    },
  },
  stream: {
    methods: ["POST"],
    handle: async (context, call) => {
      const params = acceptSend(context, call.request, await bodyOf(context, call));
      const answer = await context.operations.stream(params, call.principal, call.ctx, FRAMING);
      return sseResponse(answer.body, answer.headers);
    },
  },
  list: {
    methods: ["GET"],
    handle: async (context, call) =>
      json(await context.operations.list(parseListParams(queryOf(call)), call.principal)),
  },
  get: {
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
  cancel: {
    methods: ["POST"],
    handle: async (context, call) => {
      discardBody(call.request);
      const params = parseIdParams({ tenant: call.tenant, id: call.id });
      return json(await context.operations.cancel(params, call.principal));
    },
  },
  subscribe: {
    methods: ["GET", "POST"],
    handle: async (context, call) => {
      discardBody(call.request);
      const params = parseIdParams({ tenant: call.tenant, id: call.id });
      const answer = await context.operations.subscribe(
        params,
        call.principal,
        FRAMING,
        lastEventId(call.request),
        activatesSeam(call.request),
      );
      return sseResponse(answer.body, answer.headers);
    },
  },
  push: {
    methods: ["GET", "POST", "DELETE"],
    // In the push feature (_push_bindings.ts): without it, pushOf refuses.
    handle: async (context, call) => {
      pushOf(context);
      return await context.pushBindings!.rest(context, call);
    },
  },
  extendedCard: {
    methods: ["GET"],
    handle: (context, call) => Promise.resolve(json(context.extendedCard(call.request))),
  },
} as const satisfies Record<string, RestRoute>;

type RouteName = keyof typeof ROUTES;

/** The route for path segments (after the base path and any tenant), and the task id in it. */
function match(
  segs: readonly string[],
): { name: RouteName; id: string; configId?: string } | undefined {
  const [a, b, c] = segs;
  if (segs.length === 1) {
    if (a === "message:send") return { name: "send", id: "" };
    if (a === "message:stream") return { name: "stream", id: "" };
    if (a === "tasks") return { name: "list", id: "" };
    if (a === "extendedAgentCard") return { name: "extendedCard", id: "" };
    return undefined;
  }
  if (a !== "tasks") return undefined;
  if (segs.length === 2) {
    if (b.endsWith(":cancel")) return { name: "cancel", id: b.slice(0, -7) };
    if (b.endsWith(":subscribe")) return { name: "subscribe", id: b.slice(0, -10) };
    return { name: "get", id: b };
  }
  if (c === "pushNotificationConfigs" && segs.length <= 4) {
    return { name: "push", id: b, configId: segs[3] };
  }
  return undefined;
}

function notFound(request: Request, path: string): GatewayError {
  return new GatewayError(
    "methodNotFound",
    `Not found: ${request.method} ${
      path.slice(0, 100)
    } (the agent card is at .well-known/agent-card.json under the gateway's base; JSON-RPC is POST to the base)`,
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
    let tenant: string | undefined;
    let matched = match(segs);
    if (!matched && segs.length >= 2) {
      matched = match(segs.slice(1));
      if (matched) tenant = segs[0];
    }
    if (!matched) throw notFound(request, path);
    const route: RestRoute = ROUTES[matched.name];
    if (!route.methods.includes(request.method)) {
      discardBody(request);
      return restErrorResponse(
        new GatewayError(
          "methodNotFound",
          `Method not allowed: ${request.method} ${path.slice(0, 100)} (allowed: ${
            route.methods.join(", ")
          })`,
          { httpStatus: 405 },
        ),
        { allow: route.methods.join(", ") },
      );
    }
    const pending = principalOf(context, request);
    const principal = pending && await pending;
    assertVersion(request, url);
    return await route.handle(context, {
      request,
      url,
      tenant,
      id: matched.id,
      configId: matched.configId,
      principal,
      ctx,
    });
  } catch (error) {
    discardBody(request);
    return restErrorResponse(toGatewayError(error, context.logger));
  }
}
