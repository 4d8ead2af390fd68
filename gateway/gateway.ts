import { subagentProviderAdded, subagentProviderRemoved } from "@seam/subagent";
import { BearerAuth } from "./_auth.ts";
import type { BindingContext } from "./_binding.ts";
import { CardCache } from "./_card.ts";
import { Cors } from "./_cors.ts";
import { Engine } from "./_engine.ts";
import { restErrorResponse } from "./_http.ts";
import { toGatewayError } from "./_errors.ts";
import { InspectorRecord } from "./_inspector_record.ts";
import { InspectorRoutes } from "./_inspector_routes.ts";
import { handleJsonRpc } from "./_jsonrpc.ts";
import { Operations } from "./_operations.ts";
import { resolveOptions } from "./_options.ts";
import { handleRest } from "./_rest.ts";
import { routeOf } from "./_routes.ts";
import { traceRequest } from "./_trace.ts";
import { V03_BINDINGS } from "./_v03.ts";
import { PushService } from "./_push.ts";
import { createMemoryPushOutbox } from "./push_memory_outbox.ts";
import type { Gateway, GatewayOptions } from "./options.ts";

/**
 * Create an A2A v1.0 gateway over a subagent service: every registered
 * provider becomes a skill of the agent card and an address for messages.
 *
 * Addressing: a request goes to the provider named by its `tenant` (the
 * `tenant` field of a JSON-RPC request, or the `/{provider}` path prefix of
 * HTTP+JSON), and to the default provider without one. The card at
 * `/.well-known/agent-card.json` lists every provider; the card at
 * `/{provider}/.well-known/agent-card.json` sets the tenant in its
 * interfaces, so an SDK client made from it addresses that provider.
 *
 * Mounting: with `basePath` (`"/a2a"`) every route lives under that path,
 * the card's URLs included, so the gateway can sit inside an existing Hono
 * app: `app.all("/a2a/*", (c) => gateway.fetch(c.req.raw))`.
 *
 * Limits: bodies are bounded in bytes, read time and nesting depth; live
 * tasks overall and per principal, follow-up messages and open streams per
 * task, and the bytes a stream holds unread are all capped (see
 * {@linkcode GatewayLimits}), each refusal naming its limit.
 *
 * The seam extension ({@linkcode SEAM_EXTENSION_URI}) carries the start-time
 * request fields and the caller's depth in `message.metadata`; see
 * {@linkcode SeamMessageExtension}.
 *
 * Follow-ups: a message with the `taskId` of a running task steers its run
 * (`run.sendMessage`; only `depth` may ride along). A message with the
 * `contextId` of a finished task whose run is kept resumes that run with its
 * original settings; besides `depth` it may carry `maxDepth`, which must
 * repeat the cap the run started under or be looser (a tighter one, or one on
 * a run that started uncapped, is `-32602`, since the resumed run could not
 * honour it), and the other start-time fields are `-32602`. When no run is
 * kept for that context (pushed out by `maxResumableRuns`, another
 * principal's, not resumable, or the gateway restarted), the message starts a
 * fresh run with every field it carries, `maxDepth` included. So a caller
 * that sends its cap with every message (as `@seam/subagent-a2a` does) keeps
 * it whichever way the gateway answers.
 *
 * @example Serve the gateway and send it a message over JSON-RPC
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService, type SubagentProvider } from "@seam/subagent";
 * import { createGateway } from "@seam/gateway";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * const echo: SubagentProvider = {
 *   name: "echo",
 *   capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
 *   inheritsParentContext: false,
 *   start: (request) => ({
 *     id: crypto.randomUUID(),
 *     started: Promise.resolve(),
 *     result: Promise.resolve({ output: request.prompt, stopReason: "completed" as const }),
 *     cancel() {},
 *     dispose: () => Promise.resolve(),
 *   }),
 * };
 * subagents.registerProvider(echo);
 * const gateway = createGateway({ scope: root });
 *
 * const response = await gateway.fetch(
 *   new Request("http://localhost/", {
 *     method: "POST",
 *     headers: { "content-type": "application/json", "a2a-version": "1.0" },
 *     body: JSON.stringify({
 *       jsonrpc: "2.0",
 *       id: 1,
 *       method: "SendMessage",
 *       params: {
 *         message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] },
 *       },
 *     }),
 *   }),
 * );
 * const { result } = await response.json();
 * assert.equal(result.task.status.state, "TASK_STATE_COMPLETED");
 * assert.deepEqual(result.task.artifacts[0].parts, [{ text: "hello" }]);
 * await gateway.close();
 * await root.dispose();
 * ```
 */
export function createGateway(options: GatewayOptions): Gateway {
  const settings = resolveOptions(options);
  const { scope, subagents, basePath } = settings;
  const logger = scope.logger.child("gateway");
  const auth = options.auth ? new BearerAuth(options.auth, logger) : undefined;
  const gatewayScope = scope.child("a2a-gateway");
  const push = settings.push
    ? new PushService({
      ...settings.push,
      outbox: settings.push.outbox ?? createMemoryPushOutbox({ logger: logger.child("push") }),
    }, logger.child("push"))
    : undefined;
  // Made only when the inspector is on: off, nothing listens and nothing is kept.
  const inspector = settings.inspector
    ? new InspectorRecord(settings.inspector, settings.task.maxBufferedBytes)
    : undefined;
  const engine = new Engine({
    inspector,
    subagents,
    store: settings.store,
    logger,
    scope: gatewayScope,
    parent: options.parent,
    parentId: "a2a-gateway",
    progress: settings.progress,
    agentOptions: options.agentOptions,
    defaultProvider: options.defaultProvider,
    maxResumableRuns: settings.maxResumableRuns,
    maxLiveTasks: settings.maxLiveTasks,
    maxLiveTasksPerPrincipal: settings.maxLiveTasksPerPrincipal,
    task: settings.task,
    push,
  });
  if (push) push.find = (id, principal, tenant) => engine.find(id, principal, tenant);
  const cards = new CardCache({
    subagents,
    info: settings.info,
    publicUrl: settings.publicUrl,
    basePath,
    trustedHosts: settings.trustedHosts,
    maxAge: settings.cardMaxAge,
    auth: auth !== undefined,
    defaultProvider: options.defaultProvider,
    v03: settings.a2a03,
    push: push !== undefined,
    extras: {
      extendedCard: settings.extendedCard,
      requiredExtensions: settings.requiredExtensions,
    },
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
    operations: new Operations(engine, logger),
    push,
    auth,
    body: settings.body,
    logger,
    closed: () => closing !== undefined,
    v03: settings.a2a03 ? V03_BINDINGS : undefined,
    extendedCard: (request, v03) => cards.extended(request, v03),
    requiredExtensions: settings.requiredExtensions.map((e) => e.uri),
  };

  const cors = options.cors ? new Cors(options.cors) : undefined;
  const inspect = inspector
    ? new InspectorRoutes({
      record: inspector,
      engine,
      auth,
      body: settings.body,
      logger,
      basePath,
      closed: () => closing !== undefined,
    })
    : undefined;
  const dispatch = (request: Request, ctx: unknown): Promise<Response> | Response => {
    if (inspect?.owns(request.url)) return inspect.handle(request);
    const route = routeOf(request.method, request.url, basePath, settings.a2a03);
    if (route.kind === "card") return cards.respond(request, route.provider);
    if (route.kind === "jsonRpc") return handleJsonRpc(context, request, ctx, route.provider);
    return handleRest(context, request, ctx, basePath);
  };
  const answer = async (request: Request, ctx: unknown): Promise<Response> => {
    if (cors && request.method === "OPTIONS") return cors.preflight(request);
    let response: Response;
    try {
      response = await dispatch(request, ctx);
    } catch (error) {
      response = restErrorResponse(toGatewayError(error, logger));
    }
    if (cors) response = cors.apply(request, response);
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
