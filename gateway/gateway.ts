import { Hono } from "hono";
import { cors as honoCors } from "hono/cors";
import type { AgentRef, Logger, Scope } from "@seam/host";
import {
  getSubagentService,
  type SubagentAgentOptions,
  subagentProgress,
  subagentProviderAdded,
  subagentProviderRemoved,
  type SubagentService,
} from "@seam/subagent";
import { buildCard, type BuiltCard, type CardInfo, etagMatches } from "./_card.ts";
import { createEngine, type Engine, type LiveTask, type Subscriber } from "./_engine.ts";
import { GatewayError } from "./_errors.ts";
import {
  assertJsonContentType,
  assertVersion,
  discardBody,
  EventBuffer,
  json,
  jsonRpcErrorResponse,
  readBody,
  restErrorResponse,
  sseResponse,
  timingSafeEqual,
  utf8,
} from "./_http.ts";
import {
  type GetParams,
  type IdParams,
  type ListParams,
  listQueryToParams,
  parseGetParams,
  parseIdParams,
  parseListParams,
  parseSendParams,
  type SendParams,
} from "./_validate.ts";
import { createMemoryTaskStore, type TaskStore } from "./task_store.ts";
import { type A2ATask, SEAM_EXTENSION_URI } from "./types.ts";

/** What a {@linkcode GatewayParentFactory} learns about the task it makes a parent for. */
export interface GatewayTaskContext {
  /** The new task's id. */
  readonly taskId: string;
  /** The task's context id. */
  readonly contextId: string;
  /** The provider the task runs on. */
  readonly provider: string;
  /** The authenticated principal, or `undefined` when auth is off. */
  readonly principal: string | undefined;
  /**
   * The remote caller's delegation depth from the seam extension (0 when not
   * given). The parent stands in for that caller: give it this depth, so its
   * child is at `depth + 1`.
   */
  readonly depth: number;
  /**
   * A scope owned by the task, disposed once its run is disposed: create
   * per-task state here. It provides the caller's `DelegationContext`
   * (`depth`, `maxDepth`) to the providers below.
   */
  readonly scope: Scope;
}

/**
 * Makes the delegating parent of one task, e.g. a host agent created in
 * `context.scope` with `subagentDepth: context.depth`.
 */
export type GatewayParentFactory = (
  context: GatewayTaskContext,
) => AgentRef | Promise<AgentRef>;

/**
 * A source of streamed text: attached to a delegating parent's scope with
 * `emit(runId, text)`, it reports the text the runs started under that
 * parent stream. The gateway attaches it once to its own parent (the default
 * parent or the `parent` agent) for its lifetime, and once per task whose
 * parent a factory made outside that scope, before the run starts
 * (providers relay progress only when someone listens at start). Text is
 * routed by run id, so a grandchild's text (its own run id) reaches no task;
 * each piece becomes an artifact update (`append: true` after the first).
 * Returns how to stop listening.
 */
export type GatewayProgress = (
  parent: AgentRef,
  emit: (runId: string, text: string) => void,
) => (() => void) | void;

/**
 * The default {@linkcode GatewayProgress}: `subagent/progress` events of kind
 * `text` heard in the parent's scope, where providers emit their children's
 * streamed text.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { subagentProgress } from "@seam/subagent";
 * import { subagentProgressSource } from "@seam/gateway";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const seen: string[] = [];
 * const stop = subagentProgressSource(
 *   { id: "parent", scope: root },
 *   (runId, text) => seen.push(`${runId}:${text}`),
 * );
 * root.emit(subagentProgress, { runId: "r1", kind: "text", text: "Hel" });
 * root.emit(subagentProgress, { runId: "r1", kind: "tool-call", name: "search" });
 * stop?.();
 * root.emit(subagentProgress, { runId: "r1", kind: "text", text: "lo" });
 * assert.deepEqual(seen, ["r1:Hel"]);
 * await root.dispose();
 * ```
 */
export function subagentProgressSource(
  parent: AgentRef,
  emit: (runId: string, text: string) => void,
): () => void {
  const off = parent.scope.on(subagentProgress, (info) => {
    if (info.kind === "text" && typeof info.text === "string") emit(info.runId, info.text);
  });
  return () => {
    off().catch(() => {});
  };
}

/** Bearer-token authentication. Give `tokens`, `verify`, or both (tokens are tried first). */
export interface GatewayAuthOptions {
  /** Accepted tokens by principal: `{ alice: "…", bob: "…" }`. Compared in constant time. */
  readonly tokens?: Readonly<Record<string, string>>;
  /** Check a token some other way; answer the principal, or `undefined` to refuse it. */
  readonly verify?: (
    token: string,
    request: Request,
  ) => string | undefined | Promise<string | undefined>;
}

/** Cross-origin access for browser clients. Off unless given. */
export interface GatewayCorsOptions {
  /** Allowed origins: `"*"`, a list, or a function answering the origin to allow (or `undefined`). */
  readonly origin: string | readonly string[] | ((origin: string) => string | undefined);
  /** `Access-Control-Max-Age` in seconds. */
  readonly maxAge?: number;
  /** Whether to allow credentials. */
  readonly credentials?: boolean;
}

/** What the agent card says about the gateway. */
export interface GatewayCardOptions {
  /** Default `"seam gateway"`. */
  readonly name?: string;
  /** Default: a sentence about delegating to the registered providers. */
  readonly description?: string;
  /** Default `"0.1.0"`. */
  readonly version?: string;
  /** The organization running the gateway. */
  readonly provider?: { readonly organization: string; readonly url: string };
  /** Where the documentation lives. */
  readonly documentationUrl?: string;
  /** An icon. */
  readonly iconUrl?: string;
}

/** Options of {@linkcode createGateway}. */
export interface GatewayOptions {
  /**
   * The scope the subagent service lives in (or an ancestor of it): the
   * gateway hears `subagent/provider-added`/`-removed` there and is owned by
   * it (disposing it closes the gateway).
   */
  readonly scope: Scope;
  /** The service to serve; default: the one provided to `scope` (`getSubagentService`). */
  readonly subagents?: SubagentService;
  /**
   * The delegating parent. An agent: runs start with it as their parent
   * (forks see its conversation). A factory: called per task with a scope of
   * the task's own (see {@linkcode GatewayTaskContext}). Default: a parent
   * `"a2a-gateway"` in the gateway's scope. When a caller states its `depth`
   * or a `maxDepth`, the task runs under a scope of its own, nested in the
   * parent's, that provides the caller's `DelegationContext`.
   */
  readonly parent?: AgentRef | GatewayParentFactory;
  /**
   * Per-child options passed with every start, e.g. the `model` in-process
   * children run on when the parent is not a host agent.
   */
  readonly agentOptions?: SubagentAgentOptions;
  /** The provider for requests that name none; default: the first registered. */
  readonly defaultProvider?: string;
  /** The base URL the card advertises (no trailing slash); default: each request's origin. */
  readonly publicUrl?: string;
  /** What the card says about the gateway. */
  readonly card?: GatewayCardOptions;
  /** `Cache-Control: max-age` of the cards, in seconds. Default 60. */
  readonly cardMaxAge?: number;
  /** Bearer-token auth; off unless given. */
  readonly auth?: GatewayAuthOptions;
  /** Where tasks are kept; default {@linkcode createMemoryTaskStore}(). */
  readonly taskStore?: TaskStore;
  /** CORS; off unless given. */
  readonly cors?: GatewayCorsOptions;
  /** The largest request body accepted, in bytes (413 beyond). Default 1 MiB. */
  readonly bodyLimit?: number;
  /** Where a run's streamed text comes from; `false` for none. Default {@linkcode subagentProgressSource}. */
  readonly progress?: GatewayProgress | false;
  /**
   * How many finished runs that can `resume` are kept for a follow-up message
   * in their context (least recently finished disposed first). Default 64; 0
   * disposes every run as soon as its task ends.
   */
  readonly maxResumableRuns?: number;
  /** How long `CancelTask` waits for the child to confirm before tearing it down, in ms. Default 5,000. */
  readonly cancelTimeoutMs?: number;
}

/**
 * An A2A v1.0 endpoint for a subagent service: a fetch handler for any
 * runtime (`Deno.serve`, `deno serve`, Node, Cloudflare Workers, Supabase).
 */
export interface Gateway {
  /**
   * Answer one HTTP request. `env` is ignored; when `ctx` has a `waitUntil`
   * (edge runtimes), tasks that outlive their response are handed to it.
   */
  fetch(request: Request, env?: unknown, ctx?: unknown): Promise<Response>;
  /**
   * Stop: cancel every live task (each ends `TASK_STATE_CANCELED`, its
   * streams closed), dispose every run, stop mirroring providers. Later
   * requests answer 503. Memoized.
   */
  close(): Promise<void>;
  /** How many tasks are running now. */
  readonly liveTasks: number;
}

const DEFAULT_BODY_LIMIT = 1 << 20;
const EXT_HEADERS = { "a2a-extensions": SEAM_EXTENSION_URI } as const;

const V03_METHODS: Record<string, string> = {
  "message/send": "SendMessage",
  "message/stream": "SendStreamingMessage",
  "tasks/get": "GetTask",
  "tasks/cancel": "CancelTask",
  "tasks/resubscribe": "SubscribeToTask",
  "tasks/pushNotificationConfig/set": "CreateTaskPushNotificationConfig",
  "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfig",
  "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigs",
  "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfig",
  "agent/getAuthenticatedExtendedCard": "GetExtendedAgentCard",
};

const PUSH_METHODS = new Set([
  "CreateTaskPushNotificationConfig",
  "SetTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "ListTaskPushNotificationConfig",
  "DeleteTaskPushNotificationConfig",
]);

function pushNotSupported(): GatewayError {
  return new GatewayError(
    "pushNotSupported",
    "Push notifications are not supported by this gateway (capabilities.pushNotifications is false); stream or poll instead",
  );
}

function noExtendedCard(): GatewayError {
  return new GatewayError(
    "unsupportedOperation",
    "Unsupported operation: this gateway has no extended agent card (capabilities.extendedAgentCard is false)",
  );
}

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `Cannot create gateway: ${name} must be a non-negative integer, got ${value}`,
    );
  }
  return value;
}

interface Tokens {
  readonly principal: string;
  readonly bytes: Uint8Array;
}

function checkAuth(auth: GatewayAuthOptions): Tokens[] {
  if (auth.tokens === undefined && auth.verify === undefined) {
    throw new TypeError("Cannot create gateway: auth needs tokens, verify, or both");
  }
  if (auth.verify !== undefined && typeof auth.verify !== "function") {
    throw new TypeError("Cannot create gateway: auth.verify must be a function");
  }
  const tokens: Tokens[] = [];
  const seen = new Set<string>();
  for (const [principal, token] of Object.entries(auth.tokens ?? {})) {
    if (principal === "" || typeof token !== "string" || token === "") {
      throw new TypeError(
        `Cannot create gateway: auth.tokens must map non-empty principals to non-empty tokens (principal "${principal}")`,
      );
    }
    if (seen.has(token)) {
      throw new TypeError(
        `Cannot create gateway: auth.tokens gives principal "${principal}" a token another principal has`,
      );
    }
    seen.add(token);
    tokens.push({ principal, bytes: utf8(token) });
  }
  return tokens;
}

/** A streamed answer: the first frame and how to hear the rest (attached synchronously). */
interface StreamSpec {
  readonly first: Record<string, unknown>;
  readonly attach: (subscriber: Subscriber) => () => void;
  readonly headers?: Record<string, string>;
}

/**
 * A copy of the task as it is now, for a stream's first frame, which is
 * written a little later (a live task changes in place meanwhile).
 */
function frozenView(task: A2ATask): A2ATask {
  return structuredClone(task);
}

/** Whether `url`'s path is `/` (no query string either way matters). */
function isRootPath(url: string): boolean {
  const scheme = url.indexOf("://");
  if (scheme === -1) return false;
  const slash = url.indexOf("/", scheme + 3);
  if (slash === -1) return true;
  const next = url.charCodeAt(slash + 1);
  // End of string, `?` or `#` right after the first slash.
  return Number.isNaN(next) || next === 63 || next === 35;
}

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
  if (options === null || typeof options !== "object") {
    throw new TypeError("Cannot create gateway: options must be an object");
  }
  const scope = options.scope;
  if (!scope || typeof scope.child !== "function" || typeof scope.on !== "function") {
    throw new TypeError("Cannot create gateway: options.scope must be a Scope");
  }
  const subagents = options.subagents ?? getSubagentService(scope);
  const bodyLimit = positive(options.bodyLimit, "bodyLimit", DEFAULT_BODY_LIMIT);
  const cardMaxAge = positive(options.cardMaxAge, "cardMaxAge", 60);
  const maxResumableRuns = positive(options.maxResumableRuns, "maxResumableRuns", 64);
  const cancelTimeoutMs = positive(options.cancelTimeoutMs, "cancelTimeoutMs", 5_000);
  const tokens = options.auth ? checkAuth(options.auth) : undefined;
  const verify = options.auth?.verify;
  const publicUrl = options.publicUrl?.replace(/\/+$/, "");
  if (publicUrl !== undefined) {
    try {
      new URL(publicUrl);
    } catch {
      throw new TypeError(
        `Cannot create gateway: publicUrl must be an absolute URL, got "${options.publicUrl}"`,
      );
    }
  }
  if (options.parent !== undefined && typeof options.parent !== "function") {
    const p = options.parent as Partial<AgentRef>;
    if (typeof p.id !== "string" || !p.scope || typeof p.scope.child !== "function") {
      throw new TypeError(
        "Cannot create gateway: options.parent must be an agent ({id, scope}) or a function",
      );
    }
  }
  const logger: Logger = scope.logger.child("gateway");
  const info: CardInfo = {
    name: options.card?.name ?? "seam gateway",
    description: options.card?.description ??
      "Delegates self-contained tasks to child agents through the seam subagent providers listed as skills.",
    version: options.card?.version ?? "0.1.0",
    provider: options.card?.provider,
    documentationUrl: options.card?.documentationUrl,
    iconUrl: options.card?.iconUrl,
  };
  const gatewayScope = scope.child("a2a-gateway");
  const store = options.taskStore ?? createMemoryTaskStore();
  const engine: Engine = createEngine({
    subagents,
    store,
    logger,
    scope: gatewayScope,
    parent: options.parent,
    parentId: "a2a-gateway",
    progress: options.progress === false ? undefined : options.progress ?? subagentProgressSource,
    agentOptions: options.agentOptions,
    defaultProvider: options.defaultProvider,
    maxResumableRuns,
    cancelTimeoutMs,
  });

  // Cards, rebuilt after every provider change.
  const cards = new Map<string, BuiltCard>();
  const invalidate = () => cards.clear();
  const unlisten = [
    scope.on(subagentProviderAdded, invalidate),
    scope.on(subagentProviderRemoved, invalidate),
  ];
  gatewayScope.onDispose(() => engine.shutdown());
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    closing ??= (async () => {
      await engine.shutdown();
      await Promise.all(unlisten.map((off) => off()));
      await gatewayScope.dispose();
    })();

  const defaultProvider = (): string | undefined => {
    const name = options.defaultProvider ?? subagents.list()[0];
    return name !== undefined && subagents.getProvider(name) ? name : undefined;
  };

  const cardResponse = (request: Request, only: string | undefined): Response => {
    const base = publicUrl ?? new URL(request.url).origin;
    const key = `${base}\n${only ?? ""}`;
    let card = cards.get(key);
    if (!card) {
      const single = only === undefined ? undefined : subagents.getProvider(only);
      if (only !== undefined && !single) {
        return restErrorResponse(
          new GatewayError("methodNotFound", `Not found: no provider named "${only.slice(0, 64)}"`),
        );
      }
      const providers = [];
      for (const name of subagents.list()) {
        const p = subagents.getProvider(name);
        if (p) providers.push(p);
      }
      card = buildCard({
        info,
        base,
        providers,
        defaultProvider: defaultProvider(),
        only: single,
        auth: options.auth !== undefined,
      });
      if (cards.size >= 64) cards.clear();
      cards.set(key, card);
    }
    const headers = {
      etag: card.etag,
      "cache-control": cardMaxAge > 0 ? `public, max-age=${cardMaxAge}` : "no-cache",
    };
    if (etagMatches(request.headers.get("if-none-match"), card.etag)) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(card.body, {
      headers: { ...headers, "content-type": "application/json" },
    });
  };

  const authenticate = async (request: Request): Promise<string | undefined> => {
    if (!tokens) return undefined;
    const header = request.headers.get("authorization");
    const match = header === null ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) {
      throw new GatewayError(
        "invalidRequest",
        "Unauthenticated: send Authorization: Bearer <token>",
        { httpStatus: 401 },
      );
    }
    const given = utf8(match[1]);
    let principal: string | undefined;
    for (const entry of tokens) {
      if (timingSafeEqual(given, entry.bytes) && principal === undefined) {
        principal = entry.principal;
      }
    }
    if (principal === undefined && verify) {
      try {
        principal = await verify(match[1], request);
      } catch (error) {
        logger.error("auth.verify threw", error);
        principal = undefined;
      }
      if (principal !== undefined && (typeof principal !== "string" || principal === "")) {
        logger.error("auth.verify answered something other than a principal string");
        principal = undefined;
      }
    }
    if (principal === undefined) {
      throw new GatewayError("invalidRequest", "Unauthenticated: the bearer token is not valid", {
        httpStatus: 401,
        metadata: { reason: "invalid_token" },
      });
    }
    return principal;
  };

  const waitUntil = (ctx: unknown, live: LiveTask): void => {
    const w = (ctx as { waitUntil?: unknown } | undefined)?.waitUntil;
    if (typeof w === "function") {
      try {
        w.call(ctx, live.done);
      } catch (error) {
        logger.warn("ctx.waitUntil threw", error);
      }
    }
  };

  /** Subscribe a buffer now; hand its events to the response's subscriber later. */
  const bufferFor = (live: LiveTask) => {
    const buffer = new EventBuffer();
    live.subscribers.add(buffer.push);
    const remove = () => {
      live.subscribers.delete(buffer.push);
    };
    const attach = (subscriber: Subscriber): () => void => {
      buffer.sink = subscriber;
      for (const [event, final] of buffer.events) subscriber(event, final);
      buffer.events.length = 0;
      return remove;
    };
    return { attach, remove };
  };

  // ---- operations shared by both bindings ----

  const opSend = async (
    params: SendParams,
    principal: string | undefined,
    ctx: unknown,
  ): Promise<{ result: unknown; headers?: Record<string, string> }> => {
    const sent = await engine.send(params, principal);
    const live = sent.live;
    if (params.configuration?.returnImmediately) waitUntil(ctx, live);
    else await live.done;
    return {
      result: { task: engine.snapshot(live.record, params.configuration?.historyLength) },
      headers: sent.extension ? EXT_HEADERS : undefined,
    };
  };

  const opStream = async (
    params: SendParams,
    principal: string | undefined,
    ctx: unknown,
  ): Promise<StreamSpec> => {
    let first: Record<string, unknown> | undefined;
    let buffered: ReturnType<typeof bufferFor> | undefined;
    try {
      const sent = await engine.send(params, principal, (live) => {
        first = {
          task: frozenView(engine.snapshot(live.record, params.configuration?.historyLength)),
        };
        buffered = bufferFor(live);
      });
      waitUntil(ctx, sent.live);
      return {
        first: first!,
        attach: buffered!.attach,
        headers: sent.extension ? EXT_HEADERS : undefined,
      };
    } catch (error) {
      buffered?.remove();
      throw error;
    }
  };

  const opGet = async (params: GetParams, principal: string | undefined) => {
    const found = await engine.find(params.id, principal, params.tenant);
    return engine.snapshot(found.record, params.historyLength);
  };

  const opCancel = (params: IdParams, principal: string | undefined) =>
    engine.cancel(params.id, principal, params.tenant);

  const opList = (params: ListParams, principal: string | undefined) =>
    engine.list(params, principal);

  const opSubscribe = async (
    params: IdParams,
    principal: string | undefined,
  ): Promise<StreamSpec> => {
    const found = await engine.find(params.id, principal, params.tenant);
    const live = found.live;
    if (!live || live.terminal) {
      const t = found.record.task;
      throw new GatewayError(
        "unsupportedOperation",
        `Unsupported operation: task "${t.id}" is ${
          t.status.state.slice(11).toLowerCase()
        }; there is nothing to subscribe to (use GetTask)`,
      );
    }
    return {
      first: { task: frozenView(engine.snapshot(live.record)) },
      attach: bufferFor(live).attach,
    };
  };

  // ---- JSON-RPC ----

  const rpc = async (request: Request, ctx: unknown): Promise<Response> => {
    let id: string | number | null = null;
    try {
      if (closing) throw new GatewayError("internal", "The gateway is closed", { httpStatus: 503 });
      const principal = tokens ? await authenticate(request) : undefined;
      const body = await readJsonBody(request, bodyLimit);
      if (Array.isArray(body)) {
        throw new GatewayError(
          "invalidRequest",
          "Invalid request: batch requests are not supported",
        );
      }
      if (body === null || typeof body !== "object") {
        throw new GatewayError(
          "invalidRequest",
          "Invalid request: expected a JSON-RPC request object",
        );
      }
      const envelope = body as Record<string, unknown>;
      const rawId = envelope.id;
      if (
        typeof rawId === "string" || (typeof rawId === "number" && Number.isSafeInteger(rawId))
      ) {
        id = rawId;
      } else if (rawId !== undefined && rawId !== null) {
        throw new GatewayError(
          "invalidRequest",
          "Invalid request: id must be a string, an integer or null",
        );
      }
      if (envelope.jsonrpc !== "2.0") {
        throw new GatewayError("invalidRequest", 'Invalid request: jsonrpc must be "2.0"');
      }
      const method = envelope.method;
      if (typeof method !== "string" || method === "") {
        throw new GatewayError(
          "invalidRequest",
          "Invalid request: method must be a non-empty string",
        );
      }
      assertVersion(request, undefined);
      let params = envelope.params;
      if (params === undefined || params === null) params = {};
      else if (typeof params !== "object" || Array.isArray(params)) {
        throw new GatewayError("invalidParams", "Invalid params: params must be an object");
      }
      const ok = (result: unknown, headers?: Record<string, string>) =>
        json({ jsonrpc: "2.0", id, result }, 200, headers);
      const stream = (spec: StreamSpec) => {
        const rid = id;
        return sseResponse(
          spec.first,
          (event) => JSON.stringify({ jsonrpc: "2.0", id: rid, result: event }),
          spec.attach,
          spec.headers,
        );
      };
      switch (method) {
        case "SendMessage": {
          const out = await opSend(parseSendParams(params), principal, ctx);
          return ok(out.result, out.headers);
        }
        case "SendStreamingMessage":
          return stream(await opStream(parseSendParams(params), principal, ctx));
        case "GetTask":
          return ok(await opGet(parseGetParams(params), principal));
        case "ListTasks":
          return ok(await opList(parseListParams(params), principal));
        case "CancelTask":
          return ok(await opCancel(parseIdParams(params), principal));
        case "SubscribeToTask":
          return stream(await opSubscribe(parseIdParams(params), principal));
        case "GetExtendedAgentCard":
          throw noExtendedCard();
      }
      if (PUSH_METHODS.has(method)) throw pushNotSupported();
      const v1 = V03_METHODS[method];
      throw new GatewayError(
        "methodNotFound",
        v1
          ? `Method not found: "${method}" is an A2A 0.3 method; this gateway speaks A2A 1.0 (use ${v1} with A2A-Version: 1.0)`
          : `Method not found: "${
            method.slice(0, 80)
          }" (known: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask)`,
      );
    } catch (error) {
      discardBody(request);
      return jsonRpcErrorResponse(id, toGatewayError(error));
    }
  };

  // ---- HTTP+JSON ----

  type Route =
    | { kind: "send" | "stream" | "list" | "card" }
    | { kind: "get" | "cancel" | "subscribe" | "push"; id: string };

  const ROUTE_METHODS: Record<Route["kind"], readonly string[]> = {
    send: ["POST"],
    stream: ["POST"],
    list: ["GET"],
    card: ["GET"],
    get: ["GET"],
    cancel: ["POST"],
    subscribe: ["GET", "POST"],
    push: ["GET", "POST", "DELETE"],
  };

  const match = (segs: readonly string[]): Route | undefined => {
    const [a, b, c] = segs;
    if (segs.length === 1) {
      if (a === "message:send") return { kind: "send" };
      if (a === "message:stream") return { kind: "stream" };
      if (a === "tasks") return { kind: "list" };
      if (a === "extendedAgentCard") return { kind: "card" };
      return undefined;
    }
    if (a !== "tasks") return undefined;
    if (segs.length === 2) {
      if (b.endsWith(":cancel")) return { kind: "cancel", id: b.slice(0, -7) };
      if (b.endsWith(":subscribe")) return { kind: "subscribe", id: b.slice(0, -10) };
      return { kind: "get", id: b };
    }
    if (c === "pushNotificationConfigs" && segs.length <= 4) return { kind: "push", id: b };
    return undefined;
  };

  const rest = async (request: Request, ctx: unknown): Promise<Response> => {
    try {
      if (closing) throw new GatewayError("internal", "The gateway is closed", { httpStatus: 503 });
      const url = new URL(request.url);
      let segs: string[];
      try {
        segs = url.pathname.split("/").slice(1).map(decodeURIComponent);
      } catch {
        throw new GatewayError("invalidRequest", "Invalid request: the path is not valid UTF-8");
      }
      if (segs.length > 1 && segs[segs.length - 1] === "") segs.pop();
      let tenant: string | undefined;
      let route = match(segs);
      if (!route && segs.length >= 2) {
        route = match(segs.slice(1));
        if (route) tenant = segs[0];
      }
      if (!route) {
        throw new GatewayError(
          "methodNotFound",
          `Not found: ${request.method} ${
            url.pathname.slice(0, 100)
          } (the agent card is at /.well-known/agent-card.json; JSON-RPC is POST /)`,
        );
      }
      const allowed = ROUTE_METHODS[route.kind];
      if (!allowed.includes(request.method)) {
        discardBody(request);
        return restErrorResponse(
          new GatewayError(
            "methodNotFound",
            `Method not allowed: ${request.method} ${url.pathname.slice(0, 100)} (allowed: ${
              allowed.join(", ")
            })`,
            { httpStatus: 405 },
          ),
          { allow: allowed.join(", ") },
        );
      }
      const principal = tokens ? await authenticate(request) : undefined;
      assertVersion(request, url);
      const readJson = async (): Promise<Record<string, unknown>> => {
        const body = await readJsonBody(request, bodyLimit);
        if (body === null || typeof body !== "object" || Array.isArray(body)) {
          throw new GatewayError("invalidParams", "Invalid params: the body must be a JSON object");
        }
        const record = body as Record<string, unknown>;
        if (tenant !== undefined) record.tenant = tenant;
        return record;
      };
      const query = () => {
        const params = listQueryToParams(url.searchParams);
        delete params["A2A-Version"];
        if (tenant !== undefined) params.tenant = tenant;
        return params;
      };
      switch (route.kind) {
        case "send": {
          const out = await opSend(parseSendParams(await readJson()), principal, ctx);
          return json(out.result, 200, out.headers);
        }
        case "stream": {
          const spec = await opStream(parseSendParams(await readJson()), principal, ctx);
          return sseResponse(spec.first, (e) => JSON.stringify(e), spec.attach, spec.headers);
        }
        case "list":
          return json(await opList(parseListParams(query()), principal));
        case "get": {
          const q = query();
          return json(
            await opGet(
              parseGetParams({ tenant: q.tenant, historyLength: q.historyLength, id: route.id }),
              principal,
            ),
          );
        }
        case "cancel":
          discardBody(request);
          return json(await opCancel(parseIdParams({ tenant, id: route.id }), principal));
        case "subscribe": {
          discardBody(request);
          const spec = await opSubscribe(parseIdParams({ tenant, id: route.id }), principal);
          return sseResponse(spec.first, (e) => JSON.stringify(e), spec.attach, spec.headers);
        }
        case "push":
          throw pushNotSupported();
        case "card":
          throw noExtendedCard();
      }
    } catch (error) {
      discardBody(request);
      return restErrorResponse(toGatewayError(error));
    }
  };

  const toGatewayError = (error: unknown): GatewayError => {
    if (error instanceof GatewayError) return error;
    logger.error("A request failed unexpectedly", error);
    return new GatewayError("internal", "Internal error");
  };

  // The caller's execution context rides in Hono's env (its own getter
  // throws, expensively, when a runtime gives none).
  const executionContext = (c: { env: unknown }): unknown => (c.env as { ctx?: unknown }).ctx;

  const app = new Hono();
  if (options.cors) {
    const origin = options.cors.origin;
    app.use(
      "*",
      honoCors({
        origin: typeof origin === "function"
          ? (o: string) => origin(o) ?? null
          : typeof origin === "string"
          ? origin
          : [...origin],
        allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
        allowHeaders: ["Authorization", "Content-Type", "A2A-Version", "A2A-Extensions"],
        exposeHeaders: ["ETag", "A2A-Extensions", "WWW-Authenticate"],
        maxAge: options.cors.maxAge,
        credentials: options.cors.credentials,
      }),
    );
  }
  app.get("/.well-known/agent-card.json", (c) => cardResponse(c.req.raw, undefined));
  app.get(
    "/:provider/.well-known/agent-card.json",
    (c) => cardResponse(c.req.raw, c.req.param("provider")),
  );
  app.post("/", (c) => rpc(c.req.raw, executionContext(c)));
  app.all("*", (c) => rest(c.req.raw, executionContext(c)));
  app.onError((error) => restErrorResponse(toGatewayError(error)));

  return {
    fetch: (request, _env, ctx) => {
      // The hot path, JSON-RPC at the root, skips the router when no
      // middleware (CORS) has to see it; everything else goes through Hono.
      if (!options.cors && request.method === "POST" && isRootPath(request.url)) {
        return rpc(request, ctx);
      }
      return Promise.resolve(app.fetch(request, { ctx }, ctx as never)).catch((error) =>
        restErrorResponse(toGatewayError(error))
      );
    },
    close,
    get liveTasks() {
      return engine.liveCount;
    },
  };
}

/** A JSON body (content type checked, size limited), or a -32700 parse error. */
async function readJsonBody(request: Request, bodyLimit: number): Promise<unknown> {
  assertJsonContentType(request);
  const text = await readBody(request, bodyLimit);
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError("parse", "Parse error: the request body is not valid JSON");
  }
}
