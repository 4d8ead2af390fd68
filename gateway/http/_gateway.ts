/**
 * The gateway itself, with the parts an entry may leave out of its bundle
 * given as {@linkcode GatewayFeatures}: `@seam/gateway` gives them all,
 * `@seam/gateway/lite` none (bench/README.md, "Edge bundle").
 */
import { subagentProviderAdded, subagentProviderRemoved } from "@seam/subagent";
import { BearerAuth } from "./_auth.ts";
import type { BindingContext } from "./_binding.ts";
import { CardCache } from "./_card.ts";
import { Cors } from "./_cors.ts";
import type { Logger } from "@seam/host";
import type {
  DescendantTrees,
  InspectorRecord,
  InspectorRoutes,
  MountRoutes,
  PushService,
} from "../_features.ts";
import type { V03Card } from "./_card.ts";
import type { PushBindings, V03Bindings } from "./_binding.ts";
import type { InspectorLimits, PushOptionsResolved } from "./_options.ts";
import type { EngineOptions } from "../core/_engine.ts";
import type { TaskHome } from "../core/_home.ts";
import { Engine } from "../core/_engine.ts";
import { restErrorResponse } from "./_http.ts";
import { toGatewayError } from "../core/_errors.ts";
import { handleJsonRpc } from "./_jsonrpc.ts";
import { Operations } from "./_operations.ts";
import { refuse, resolveOptions } from "./_options.ts";
import { handleRest } from "./_rest.ts";
import { routeOf } from "./_routes.ts";
import { traceRequest } from "./_trace.ts";
import type { Gateway, GatewayOptions } from "../options.ts";
import { isTaskStorage } from "../task_storage.ts";

/** The optional parts of a gateway, each behind its option. */
export interface GatewayFeatures {
  /** A2A 0.3 (`a2a03`): its bindings, and what adds it to the cards. */
  readonly v03?: {
    readonly bindings: V03Bindings;
    readonly card: V03Card;
    /** Whether a first path segment is a 1.0 HTTP+JSON route (not a provider's 0.3 address). */
    readonly isV1Route: (segment: string) => boolean;
    /** An A2A 0.3 method's 1.0 successor. */
    readonly v1MethodOf: (method: string) => string | undefined;
  };
  /** Push notifications (`push`): its option resolved, and the service for it. */
  readonly push?: {
    readonly resolve: (push: GatewayOptions["push"]) => PushOptionsResolved | undefined;
    readonly service: (options: PushOptionsResolved, logger: Logger) => PushService;
    /** The push config methods of the 1.0 bindings. */
    readonly bindings: PushBindings;
  };
  /** One instance of many, on a shared task store (`TaskStorage` with `shared: true`). */
  readonly cluster?: (engine: Engine, options: EngineOptions) => TaskHome | undefined;
  /** The run inspector (`inspector`): its option resolved, its memory and its routes. */
  readonly inspector?: {
    readonly resolve: (inspector: GatewayOptions["inspector"]) => InspectorLimits | undefined;
    readonly Record: typeof InspectorRecord;
    readonly Routes: typeof InspectorRoutes;
  };
  /** Other endpoints under `basePath`, behind the bearer auth (`mounts`). */
  readonly mounts?: typeof MountRoutes;
  /** Each task's descendants told to its seam clients, and cancelled by id (`tree`). */
  readonly tree?: typeof DescendantTrees;
}

function missing(option: string, what: string): never {
  refuse(
    `${option} needs createGateway from @seam/gateway (@seam/gateway/lite leaves out ${what})`,
  );
}

/** Refuse an option whose feature the entry left out (checked before the options themselves). */
function checkFeatures(options: GatewayOptions, features: GatewayFeatures): void {
  if (options.push !== undefined && !features.push) missing("push", "push notifications");
  if (options.inspector !== undefined && options.inspector !== false && !features.inspector) {
    missing("inspector", "the run inspector");
  }
  if (options.mounts !== undefined && !features.mounts) missing("mounts", "mounted endpoints");
}

/** {@linkcode createGateway} with the given features. */
export function buildGateway(options: GatewayOptions, features: GatewayFeatures): Gateway {
  // Checked first, as resolveOptions checks every option before it looks up the service.
  checkFeatures(options, features);
  const pushOptions = features.push?.resolve(options.push);
  const inspectorLimits = features.inspector?.resolve(options.inspector);
  const settings = resolveOptions(options);
  if (settings.a2a03 && !features.v03) missing("a2a03", "A2A 0.3");
  if (isTaskStorage(settings.store) && settings.store.shared && !features.cluster) {
    missing("a shared taskStore", "the instances' cluster");
  }
  const { scope, basePath } = settings;
  const logger = scope.logger.child("gateway");
  const auth = options.auth ? new BearerAuth(options.auth, logger) : undefined;
  const gatewayScope = scope.child("a2a-gateway");
  const push = pushOptions && features.push!.service(pushOptions, logger.child("push"));
  // Made only when the inspector is on: off, nothing listens and nothing is kept.
  const inspector = inspectorLimits
    ? new features.inspector!.Record(inspectorLimits, settings.task.maxBufferedBytes)
    : undefined;
  const engine = new Engine({
    // subagents, store, progress, the run and task bounds: as resolved.
    ...settings,
    inspector,
    logger,
    scope: gatewayScope,
    parent: options.parent,
    parentId: "a2a-gateway",
    agentOptions: options.agentOptions,
    defaultProvider: options.defaultProvider,
    push,
    home: features.cluster,
    tree: features.tree && new features.tree(logger),
  });
  if (push) push.find = (id, principal, tenant) => engine.find(id, principal, tenant);
  const cards = new CardCache({
    ...settings,
    auth: auth !== undefined,
    defaultProvider: options.defaultProvider,
    v03: settings.a2a03 ? features.v03?.card : undefined,
    push: push !== undefined,
  });
  // Cards are rebuilt after every provider change.
  const unlisten = [
    scope.on(subagentProviderAdded, () => cards.invalidate()),
    scope.on(subagentProviderRemoved, () => cards.invalidate()),
  ];
  // Shutdown ends every live task; their last notifications reach the outbox before it closes.
  const stop = async (): Promise<void> => {
    await engine.shutdown();
    inspector?.close();
    await push?.close();
    settings.body.deadlines.stop();
  };
  gatewayScope.onDispose(stop);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    closing ??= (async () => {
      await stop();
      await Promise.all(unlisten.map((off) => off()));
      await gatewayScope.dispose();
    })();
  const context: BindingContext = {
    operations: new Operations(engine, logger, settings.maxStreamsPerPrincipal),
    push,
    pushBindings: push && features.push!.bindings,
    auth,
    body: settings.body,
    logger,
    closed: () => closing !== undefined,
    v03: settings.a2a03 ? features.v03?.bindings : undefined,
    v1MethodOf: features.v03?.v1MethodOf,
    extendedCard: (request, v03) => cards.extended(request, v03),
    requiredExtensions: settings.requiredExtensions.map((e) => e.uri),
  };

  const cors = options.cors ? new Cors(options.cors) : undefined;
  const inspect = inspector
    ? new features.inspector!.Routes({
      record: inspector,
      engine,
      auth,
      body: settings.body,
      logger,
      basePath,
      closed: () => closing !== undefined,
    })
    : undefined;
  const mounted = options.mounts === undefined
    ? undefined
    : new features.mounts!(options.mounts, basePath, auth);
  const v1Route = settings.a2a03 ? features.v03?.isV1Route : undefined;
  const dispatch = (request: Request, ctx: unknown): Promise<Response> | Response => {
    if (inspect?.owns(request.url)) return inspect.handle(request);
    const mount = mounted?.owner(request.url);
    if (mount) return mounted!.handle(mount, request);
    const route = routeOf(request.method, request.url, basePath, v1Route);
    if (route.kind === "card") return cards.respond(request, route.provider);
    if (route.kind === "jsonRpc") return handleJsonRpc(context, request, ctx, route.provider);
    return handleRest(context, request, ctx, basePath);
  };
  const answer = async (request: Request, ctx: unknown): Promise<Response> => {
    // The inspector is for its own page only: the API's CORS never opens it to other sites.
    const shared = cors !== undefined && !inspect?.owns(request.url);
    if (shared && request.method === "OPTIONS") return cors.preflight(request);
    let response: Response;
    try {
      response = await dispatch(request, ctx);
    } catch (error) {
      response = restErrorResponse(toGatewayError(error, logger));
    }
    if (shared) response = cors!.apply(request, response);
    if (request.method !== "HEAD") return response;
    // A HEAD is answered as its GET, without the body (whose stream is let go).
    await response.body?.cancel();
    return new Response(null, response);
  };

  const rpcPath = `${basePath}/`;
  return {
    fetch: (request, _env, ctx) =>
      traceRequest(request, () => {
        // The hot path, JSON-RPC at the base, skips routing when no CORS
        // headers have to be added (bench/gateway_bench.ts, group "JSON-RPC
        // dispatch").
        if (!cors && request.method === "POST" && isPath(request.url, rpcPath)) {
          return handleJsonRpc(context, request, ctx);
        }
        return answer(request, ctx);
      }),
    close,
    get liveTasks() {
      return engine.liveCount;
    },
  };
}

/**
 * Whether `url`'s path is exactly `path` (a query or fragment may follow),
 * without parsing the URL: the JSON-RPC fast path's one check.
 */
function isPath(url: string, path: string): boolean {
  const scheme = url.indexOf("://");
  if (scheme === -1) return false;
  const slash = url.indexOf("/", scheme + 3);
  if (slash === -1) return path === "/";
  if (!url.startsWith(path, slash)) return false;
  const next = url.charCodeAt(slash + path.length);
  // End of string, `?` or `#` right after the path.
  return Number.isNaN(next) || next === 63 || next === 35;
}
