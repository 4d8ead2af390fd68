/**
 * The one mechanism behind every HTTP+JSON route table (A2A 1.0's in
 * `_rest.ts`, A2A 0.3's in `a2a03/_v03_rest.ts`): routes by path, each path
 * also under a `/{tenant}` prefix, and a matched request whose method the
 * route does not allow answered 405 with `Allow`.
 */
import { type BindingContext, principalOf, type RestCall } from "./_binding.ts";
import { discardBody } from "./_body.ts";
import { GatewayError } from "../core/_errors.ts";

/** One HTTP+JSON route: the HTTP methods it allows and how it answers. */
export interface RestRoute {
  readonly methods: readonly string[];
  readonly handle: (context: BindingContext, call: RestCall) => Promise<Response>;
}

/**
 * A binding's routes by path, segments apart by `/`: each a literal
 * (`message:send`) or a parameter, `{id}` or `{configId}`, that takes a
 * whole segment but a literal suffix (`tasks/{id}:cancel`). A parameter
 * takes an empty segment too: the handler names what is wrong with an empty
 * id. The first path that fits answers, so `tasks/{id}:cancel` stands
 * before `tasks/{id}`.
 */
export type RestRoutes = Readonly<Record<string, RestRoute>>;

/** A request's route, and what its path holds. */
export interface RestMatch {
  readonly route: RestRoute;
  readonly tenant: string | undefined;
  readonly id: string;
  readonly configId?: string;
}

/** A route table ready to match: each path's segments beside its route. */
export type RestTable = readonly (readonly [parts: readonly string[], route: RestRoute])[];

/** The table for `routes`, split once (not per request). */
export function restTable(routes: RestRoutes): RestTable {
  return Object.entries(routes).map(([path, route]) => [path.split("/"), route]);
}

/**
 * The route for path segments (after the base path), tried as they are and
 * then with the first segment as the tenant.
 */
export function matchRoute(table: RestTable, segs: readonly string[]): RestMatch | undefined {
  return fit(table, segs, undefined) ?? fit(table, segs.slice(1), segs[0]);
}

function fit(
  table: RestTable,
  segs: readonly string[],
  tenant: string | undefined,
): RestMatch | undefined {
  for (const [parts, route] of table) {
    const params = paramsOf(parts, segs);
    if (params) return { route, tenant, id: "", ...params };
  }
  return undefined;
}

/** The parameters (`id`, `configId`) of `segs` when they fit a path's `parts`. */
function paramsOf(
  parts: readonly string[],
  segs: readonly string[],
): { id?: string; configId?: string } | undefined {
  if (parts.length !== segs.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const seg = segs[i];
    if (part[0] !== "{") {
      if (seg !== part) return undefined;
      continue;
    }
    const close = part.indexOf("}");
    const suffix = part.slice(close + 1);
    if (!seg.endsWith(suffix)) return undefined;
    params[part.slice(1, close)] = seg.slice(0, seg.length - suffix.length);
  }
  return params;
}

/** How a binding answers its matched requests. */
export interface RestAnswer {
  /** The binding's error response. */
  readonly refuse: (error: GatewayError, headers: Record<string, string>) => Response;
  /** A check once the caller is known, before the route answers (1.0: the version header). */
  readonly check?: (request: Request, url: URL) => void;
}

/**
 * Answer a request its route matched: 405 for a method the route does not
 * allow, else the route's handler with the caller's principal.
 */
export async function answerRoute(
  context: BindingContext,
  answer: RestAnswer,
  matched: RestMatch,
  call: { readonly request: Request; readonly url: URL; readonly ctx: unknown },
): Promise<Response> {
  const { request, url } = call;
  const { route, ...found } = matched;
  if (!route.methods.includes(request.method)) {
    discardBody(request);
    const allow = route.methods.join(", ");
    return answer.refuse(
      new GatewayError(
        "methodNotFound",
        `Method not allowed: ${request.method} ${url.pathname.slice(0, 100)} (allowed: ${allow})`,
        { httpStatus: 405 },
      ),
      { allow },
    );
  }
  const pending = principalOf(context, request);
  const principal = pending && await pending;
  answer.check?.(request, url);
  return await route.handle(context, { ...call, ...found, principal });
}
