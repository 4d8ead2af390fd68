/** The options of {@linkcode createGateway}, and the gateway it returns. */
import type { AgentRef, Scope } from "@seam/host";
import type { SubagentAgentOptions, SubagentService } from "@seam/subagent";
import type { TaskStore } from "./task_store.ts";
import type { PushOutbox } from "./push_outbox.ts";
import type { PushConfigStore } from "./push_store.ts";
import type { A2AMessage } from "./types.ts";

/**
 * The task a run serves, as the gateway accepted it: what a
 * {@linkcode GatewayParentFactory} learns, and what any provider below
 * finds in its parent's scope with {@linkcode getGatewayTask} (the task's
 * scope provides it under {@linkcode gatewayTaskKey}). A live view: when a
 * message steers the run, or a message in its context resumes it as a new
 * task, `taskId` and `message` follow.
 */
export interface GatewayTaskContext {
  /** The task's id (the newest task, once a run was resumed). */
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
  /**
   * The A2A message the gateway accepted last for this run (the one that
   * started it, then each that steered or resumed it), as the task's history
   * keeps it: `messageId`, `parts`, `metadata`, `extensions`, its
   * `taskId` and `contextId`.
   */
  readonly message: A2AMessage;
  /**
   * Answer the message that starts this task with a direct A2A `Message`
   * (the run's output as its parts) instead of a task, as A2A allows for an
   * agent that only replies. Call it while the run starts (synchronously,
   * inside the provider's `start`): the gateway reads it before it answers.
   * The task is then never stored or listed, a stream carries only the
   * message, and `returnImmediately` waits for it anyway.
   */
  replyWithMessage(): void;
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
 * parent stream. The gateway attaches it once per task, to the task's own
 * parent (whose scope is the task's), before the run starts (providers relay
 * progress only when someone listens at start), and stops it when the task
 * ends. Only text tagged with the task's run id reaches the task, so a
 * grandchild's text (its own run id) reaches none, and two tasks whose
 * provider repeats run ids never hear each other; each piece becomes an
 * artifact update (`append: true` after the first). Returns how to stop
 * listening.
 */
export type GatewayProgress = (
  parent: AgentRef,
  emit: (runId: string, text: string) => void,
) => (() => void) | void;

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

/**
 * Push notifications (A2A §4.3): clients register webhooks per task
 * (`CreateTaskPushNotificationConfig`, or `SendMessage`'s
 * `configuration.taskPushNotificationConfig`) and every status change of the
 * task, and its artifact once whole, is POSTed to them as a `StreamResponse`
 * (`{statusUpdate}`, `{artifactUpdate}`), with the config's authentication
 * (`Authorization: {scheme} {credentials}`), its token
 * (`X-A2A-Notification-Token`) and an id that stays the same across retries
 * (`X-A2A-Notification-Id`). Streamed text is not pushed piece by piece.
 */
export interface GatewayPushOptions {
  /**
   * Asked about a webhook the policy refuses as non-public: a literal
   * private, loopback, link-local or reserved IP address, `localhost` or
   * `*.localhost`, a single-label name, or a name under `.local`,
   * `.internal`, `.lan` or `.home.arpa`. `true` allows it. Other names are
   * not resolved (see the gateway README). Only http and https URLs
   * without credentials are ever accepted. Default: none is allowed.
   */
  readonly allowWebhook?: (url: URL) => boolean | Promise<boolean>;
  /** Configs a task may hold. Default 10. */
  readonly maxConfigsPerTask?: number;
  /**
   * The largest notification body, in bytes: a status update beyond it is
   * sent without its message and metadata, an artifact update is not sent
   * (the task holds it). Default 256 KiB.
   */
  readonly maxPayloadBytes?: number;
  /** Where configs are kept. Default {@linkcode createMemoryPushConfigStore}(). */
  readonly configStore?: PushConfigStore;
  /**
   * Where notifications go to be delivered; the gateway's `close()` closes
   * it. Default {@linkcode createMemoryPushOutbox}() with the gateway's logger
   * and `configStore`, so that a config replaced in place
   * (`CreateTaskPushNotificationConfig` with its id and another url, token
   * or authentication) is not sent what was queued for its old target. A
   * memory outbox given here checks that only when it was made with the
   * same `configStore` (`createMemoryPushOutbox({ configStore })`).
   */
  readonly outbox?: PushOutbox;
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
   * `"a2a-gateway"` in the gateway's scope. Every task runs under a scope of
   * its own, nested in the parent's, that provides the caller's
   * `DelegationContext` (its `depth` and `maxDepth`).
   */
  readonly parent?: AgentRef | GatewayParentFactory;
  /**
   * Per-child options passed with every start, e.g. the `model` in-process
   * children run on when the parent is not a host agent.
   */
  readonly agentOptions?: SubagentAgentOptions;
  /** The provider for requests that name none; default: the first registered. */
  readonly defaultProvider?: string;
  /**
   * The origin the card advertises (no trailing slash; may carry a path a
   * proxy strips before requests reach the gateway); `basePath` is added to
   * it. Default: each request's origin, and then the card is cached
   * privately (`Vary: Host`) unless the host is one of `trustedHosts`.
   */
  readonly publicUrl?: string;
  /**
   * The path the gateway is mounted at inside a larger app, as requests
   * arrive (`"/a2a"`: JSON-RPC at `POST /a2a/`, the card at
   * `/a2a/.well-known/agent-card.json`). Default `""` (the root). A request
   * outside it answers 404.
   */
  readonly basePath?: string;
  /**
   * Without `publicUrl`, the hosts (`Host` header, with port when not the
   * default) whose card may be cached publicly; a card request for any other
   * host answers 421. Default: none (cards are cached privately, for any host).
   */
  readonly trustedHosts?: readonly string[];
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
  /**
   * The authenticated extended card (`GetExtendedAgentCard`,
   * `GET /extendedAgentCard`): the public card plus these. Needs `auth`; the
   * card then declares `capabilities.extendedAgentCard`. Without it the card
   * declares none and the call answers `UnsupportedOperationError` (-32004;
   * to an A2A 0.3 client, its `AuthenticatedExtendedCardNotConfiguredError`, -32007).
   */
  readonly extendedCard?: GatewayExtendedCardOptions;
  /**
   * A2A extensions a client must use: declared `required: true` in the
   * card, and a `SendMessage`/`SendStreamingMessage` that activates none of
   * one (neither its `A2A-Extensions` header nor `message.extensions` names
   * it) is refused with `ExtensionSupportRequiredError` (-32008).
   */
  readonly requiredExtensions?: readonly GatewayRequiredExtension[];
  /** The largest request body accepted, in bytes (413 beyond). Default 1 MiB. */
  readonly bodyLimit?: number;
  /** Where a run's streamed text comes from; `false` for none. Default {@linkcode subagentProgressSource}. */
  readonly progress?: GatewayProgress | false;
  /**
   * How many completed runs that can `resume` one principal keeps for a
   * follow-up message in their context (its least recently finished disposed
   * first; `limits.maxLiveTasks` in all). Default 64; 0 disposes every run as
   * soon as its task ends. A cancelled, failed or refused run is never kept.
   */
  readonly maxResumableRuns?: number;
  /**
   * How long a kept run waits for a follow-up message before it is disposed
   * (and an ACP agent process behind it ends), in ms. Default 600,000 (10
   * minutes); at least 1.
   */
  readonly keptRunIdleMs?: number;
  /** How long `CancelTask` waits for the child to confirm before tearing it down, in ms. Default 5,000. */
  readonly cancelTimeoutMs?: number;
  /** Bounds against hostile or careless clients; see {@linkcode GatewayLimits} for the defaults. */
  readonly limits?: GatewayLimits;
  /**
   * Serve A2A 0.3 clients beside 1.0: the 0.3 JSON-RPC methods
   * (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`,
   * `tasks/resubscribe`) at the JSON-RPC base and at `{base}/{provider}/`,
   * the 0.3 HTTP+JSON routes under `{base}/v1` and `{base}/{provider}/v1`,
   * and a card that 0.3 clients read (`url`, `preferredTransport`,
   * `additionalInterfaces`). Default `false`: with it on, the spec makes
   * every request without an `A2A-Version` header a 0.3 request where the
   * versions differ, so the agent card fetched without the header becomes
   * the 0.3 card (1.0 fields kept, 0.3 fields added), which strict 1.0
   * validators refuse; 1.0 clients that send the header (as the SDKs do) see
   * no change.
   */
  readonly a2a03?: boolean;
  /**
   * Push notifications; off unless given (`push: {}` turns them on with the
   * defaults). The card's `capabilities.pushNotifications` says which.
   */
  readonly push?: GatewayPushOptions;
  /**
   * The run inspector: a page at `GET {basePath}/_inspect` showing each
   * principal its own tasks' live tree of runs (provider, depth, status,
   * elapsed time, streamed text, usage, pending input requests), where it
   * can cancel a run or answer a request. `true` for the defaults, or the
   * bounds of what it keeps. Off by default: then nothing is served and
   * nothing is recorded.
   */
  readonly inspector?: boolean | GatewayInspectorOptions;
  /**
   * Other endpoints served under `basePath`, behind the gateway's own bearer
   * auth: a path (`"/mcp"`) to the handler answering it and every path below
   * it (`{basePath}/mcp`, `{basePath}/mcp/…`). The handler gets the request
   * and the principal it authenticated as (`undefined` without `auth`); a
   * request without a valid token is answered 401 before it is called.
   * This is how `@seam/mcp`'s Streamable HTTP endpoint is mounted (the
   * gateway does not import it).
   */
  readonly mounts?: Readonly<Record<string, GatewayMount>>;
}

/** An endpoint mounted in the gateway (see {@linkcode GatewayOptions.mounts}). */
export type GatewayMount = (
  request: Request,
  principal: string | undefined,
) => Response | Promise<Response>;

/**
 * What the run inspector keeps, bounded per principal and overall: the
 * oldest task goes first, a run beyond the cap is counted but not kept, a
 * run's text keeps its newest characters. At the overall caps the oldest
 * ended tasks of any principal go (the least recently active principal's
 * first, one without an open page before one with); a live task is never
 * dropped for them.
 */
export interface GatewayInspectorOptions {
  /** Tasks kept per principal, live or ended (the oldest ended go first). Default 50. */
  readonly maxTasksPerPrincipal?: number;
  /** Runs kept per task, its whole subtree. Default 32. */
  readonly maxRunsPerTask?: number;
  /** Characters of streamed text kept per run (the newest). Default 4,096. */
  readonly maxTextPerRun?: number;
  /** Principals kept (the least recently active without an open page go first). Default 256. */
  readonly maxPrincipals?: number;
  /** Open pages (event streams) per principal. Default 8. */
  readonly maxStreamsPerPrincipal?: number;
  /**
   * Runs kept overall, all principals' tasks together. Past it the oldest
   * ended tasks go to make room; when only live tasks remain, a new run is
   * counted (the task's `runsDropped`) but not kept. Default 10,000.
   */
  readonly maxRuns?: number;
  /**
   * Characters of streamed text kept overall, all runs together. Past it
   * the oldest ended tasks go to make room; when only live tasks remain, a
   * run's text keeps its newest characters and grows no further (it is
   * marked clipped). Default 4,194,304 (4 Mi).
   */
  readonly maxText?: number;
}

/**
 * What one client may hold or send. Every bound refuses with an error that
 * names it (HTTP 408, 413 or 429, JSON-RPC -32600 or -32602); nothing
 * already accepted is lost.
 */
export interface GatewayLimits {
  /** Live tasks overall. Default 10,000. */
  readonly maxLiveTasks?: number;
  /** Live tasks per principal (all unauthenticated callers share one). Default 1,000. */
  readonly maxLiveTasksPerPrincipal?: number;
  /**
   * A task's deadline in ms: past it, its run is cancelled and the task
   * ends `FAILED` with a note. Default 0 (none).
   */
  readonly taskTimeoutMs?: number;
  /** How long a request body may take to arrive, in ms (408 beyond). Default 30,000. */
  readonly bodyTimeoutMs?: number;
  /**
   * How deep any request body may nest objects and arrays (the body is level
   * 1): metadata, parts, extension fields, schemas and steering messages
   * included. Default 64.
   */
  readonly maxJsonDepth?: number;
  /** Follow-up messages a live task takes. Default 100. */
  readonly maxSteeringMessages?: number;
  /** The size (JSON of their parts) of all follow-up messages a live task takes. Default 1 MiB. */
  readonly maxSteeringBytes?: number;
  /**
   * Input requests a live task waits on at once, all its runs together: one
   * more is refused at once (its run hears a refusal naming this bound, the
   * task's state does not change, the ones waiting stay answerable) and a
   * warning is logged once per task. Default 64.
   */
  readonly maxPendingInputsPerTask?: number;
  /** Open streams per task (`SendStreamingMessage` follow-ups, `SubscribeToTask`). Default 16. */
  readonly maxSubscribersPerTask?: number;
  /**
   * Open streams per principal (all unauthenticated callers share one), all
   * its tasks together: `SendStreamingMessage` and `SubscribeToTask`, each
   * held until its stream ends (the client goes, the task ends or stops to
   * ask, the gateway closes). One more is refused (HTTP 429, JSON-RPC
   * -32600) before a task is created. Counted per gateway instance.
   * Default 64.
   */
  readonly maxStreamsPerPrincipal?: number;
  /**
   * Bytes a stream may hold unread; a client that falls further behind has
   * its stream closed with an error event (the task goes on). Default 1 MiB.
   */
  readonly maxStreamBufferBytes?: number;
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

/** What the authenticated extended card adds to the public one. */
export interface GatewayExtendedCardOptions {
  /** A description for authenticated callers (replaces the public one). */
  readonly description?: string;
  /** More skills, shown only to authenticated callers. */
  readonly skills?: readonly GatewayCardSkill[];
}

/** A skill of the agent card (A2A `AgentSkill`). */
export interface GatewayCardSkill {
  /** Unique among the card's skills. */
  readonly id: string;
  /** A human-readable name. */
  readonly name: string;
  /** What it does. */
  readonly description: string;
  /** Keywords. */
  readonly tags?: readonly string[];
  /** Example prompts. */
  readonly examples?: readonly string[];
}

/** An A2A extension the gateway requires. */
export interface GatewayRequiredExtension {
  /** The extension's URI. */
  readonly uri: string;
  /** What it is, for the card. */
  readonly description?: string;
}
