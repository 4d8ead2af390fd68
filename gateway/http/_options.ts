/** The gateway's options checked once, with their defaults. */
import { type AgentRef, isRecord, refuseUnknownOptions, type Scope } from "@seam/host";
import { getSubagentService, type SubagentService } from "@seam/subagent";
import type { CardInfo } from "./_card.ts";
import type { LiveTaskLimits } from "../core/_live_task.ts";
import { subagentProgressSource } from "../progress.ts";
import { createDefaultTaskStore } from "../memory/_memory_tasks.ts";
import type { TaskStore } from "../task_store.ts";
import type {
  GatewayAuthOptions,
  GatewayCardOptions,
  GatewayCorsOptions,
  GatewayExtendedCardOptions,
  GatewayInspectorOptions,
  GatewayLimits,
  GatewayOptions,
  GatewayProgress,
  GatewayPushOptions,
  GatewayRequiredExtension,
} from "../options.ts";
import { BodyDeadlines, type BodyLimits } from "./_body.ts";
import type { PushOutbox } from "../push_outbox.ts";
import type { PushConfigStore } from "../push_store.ts";
import { isArray, stringify } from "../core/_builtins.ts";

/**
 * Push resolved; the config store and the outbox are made with the push
 * service when not given (so a gateway without push bundles neither).
 */
export interface PushOptionsResolved {
  readonly allowWebhook: GatewayPushOptions["allowWebhook"];
  readonly store: PushConfigStore | undefined;
  readonly outbox: PushOutbox | undefined;
  readonly maxConfigsPerTask: number;
  readonly maxPayloadBytes: number;
}

/** Every option resolved: what the parts of the gateway are built from. */
export interface GatewaySettings {
  readonly scope: Scope;
  readonly subagents: SubagentService;
  readonly store: TaskStore;
  readonly info: CardInfo;
  readonly publicUrl: string | undefined;
  readonly basePath: string;
  readonly trustedHosts: ReadonlySet<string> | undefined;
  readonly cardMaxAge: number;
  readonly body: BodyLimits;
  readonly progress: GatewayProgress | undefined;
  readonly maxResumableRuns: number;
  readonly keptRunIdleMs: number;
  readonly maxLiveTasks: number;
  readonly maxLiveTasksPerPrincipal: number;
  readonly maxStreamsPerPrincipal: number;
  readonly task: LiveTaskLimits;
  /** Whether A2A 0.3 is served beside 1.0. */
  readonly a2a03: boolean;
  readonly extendedCard: GatewayExtendedCardOptions | undefined;
  readonly requiredExtensions: readonly GatewayRequiredExtension[];
}

/** The run inspector's bounds, resolved. */
export interface InspectorLimits {
  readonly maxTasksPerPrincipal: number;
  readonly maxRunsPerTask: number;
  readonly maxTextPerRun: number;
  readonly maxPrincipals: number;
  readonly maxStreamsPerPrincipal: number;
  readonly maxRuns: number;
  readonly maxText: number;
}

const ACTION = "create gateway";

/** Refuse an option: every option check's TypeError, in the words they share. */
export function refuse(message: string): never {
  throw new TypeError(`Cannot ${ACTION}: ${message}`);
}

/** The options `count` checks at the top level of {@linkcode GatewayOptions}. */
type NumericOption = "cancelTimeoutMs" | "cardMaxAge" | "bodyLimit" | "maxResumableRuns";

function count(value: unknown, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new RangeError(
      `Cannot ${ACTION}: ${name} must be ${
        min === 0 ? "a non-negative integer" : `an integer of at least ${min}`
      }, got ${typeof value === "number" ? value : stringify(value) ?? String(value)}`,
    );
  }
  return value;
}

/**
 * Check `options` and fill in the defaults.
 *
 * @throws {TypeError | RangeError} naming the option that is wrong.
 */
export function resolveOptions(options: GatewayOptions): GatewaySettings {
  if (options === null || typeof options !== "object") {
    refuse("options must be an object");
  }
  const scope = options.scope;
  if (!scope || typeof scope.child !== "function" || typeof scope.on !== "function") {
    refuse("options.scope must be a Scope");
  }
  const publicUrl = options.publicUrl?.replace(/\/+$/, "");
  if (publicUrl !== undefined) {
    try {
      new URL(publicUrl);
    } catch {
      refuse(`publicUrl must be an absolute URL, got "${options.publicUrl}"`);
    }
  }
  if (options.parent !== undefined && typeof options.parent !== "function") {
    const p = options.parent as Partial<AgentRef>;
    if (typeof p.id !== "string" || !p.scope || typeof p.scope.child !== "function") {
      refuse("options.parent must be an agent ({id, scope}) or a function");
    }
  }
  const basePath = checkBasePath(options.basePath);
  let trustedHosts: ReadonlySet<string> | undefined;
  if (options.trustedHosts !== undefined) {
    if (
      !isArray(options.trustedHosts) ||
      options.trustedHosts.some((h) => typeof h !== "string" || h === "")
    ) {
      refuse("trustedHosts must be a list of host names (with any non-default port)");
    }
    trustedHosts = new Set(options.trustedHosts.map((h) => h.toLowerCase()));
  }
  const limits = options.limits ?? {};
  if (limits === null || typeof limits !== "object") {
    refuse("limits must be an object");
  }
  // An option (`cardMaxAge`) or a limit (`limits.maxLiveTasks`), checked, or its default.
  const option = (key: NumericOption, fallback: number) => count(options[key], key, fallback);
  const limit = (key: keyof GatewayLimits, fallback: number, min?: number) =>
    count(limits[key], `limits.${key}`, fallback, min);
  const cancelGraceMs = option("cancelTimeoutMs", 5_000);
  const bodyTimeoutMs = limit("bodyTimeoutMs", 30_000, 1);
  const extendedCard = checkExtendedCard(options);
  const requiredExtensions = checkRequiredExtensions(options.requiredExtensions);
  if (options.a2a03 !== undefined && typeof options.a2a03 !== "boolean") {
    refuse(`a2a03 must be a boolean, got ${stringify(options.a2a03)}`);
  }
  return {
    scope,
    extendedCard,
    requiredExtensions,
    subagents: options.subagents ?? getSubagentService(scope),
    store: options.taskStore ?? createDefaultTaskStore(),
    info: {
      name: options.card?.name ?? "seam gateway",
      description: options.card?.description ??
        "Delegates tasks to child agents, a skill per provider.",
      version: options.card?.version ?? "0.1.0",
      provider: options.card?.provider,
      documentationUrl: options.card?.documentationUrl,
      iconUrl: options.card?.iconUrl,
    },
    publicUrl,
    basePath,
    trustedHosts,
    cardMaxAge: option("cardMaxAge", 60),
    body: {
      maxBytes: option("bodyLimit", 1 << 20),
      timeoutMs: bodyTimeoutMs,
      maxDepth: limit("maxJsonDepth", 64, 2),
      deadlines: new BodyDeadlines(bodyTimeoutMs),
    },
    progress: options.progress === false ? undefined : options.progress ?? subagentProgressSource,
    maxResumableRuns: option("maxResumableRuns", 64),
    keptRunIdleMs: count(options.keptRunIdleMs, "keptRunIdleMs", 600_000, 1),
    maxLiveTasks: limit("maxLiveTasks", 10_000, 1),
    maxLiveTasksPerPrincipal: limit("maxLiveTasksPerPrincipal", 1_000, 1),
    maxStreamsPerPrincipal: limit("maxStreamsPerPrincipal", 64, 1),
    task: {
      maxSubscribers: limit("maxSubscribersPerTask", 16, 1),
      maxBufferedBytes: limit("maxStreamBufferBytes", 1 << 20, 1_024),
      maxSteeringMessages: limit("maxSteeringMessages", 100),
      maxSteeringBytes: limit("maxSteeringBytes", 1 << 20),
      deadlineMs: limit("taskTimeoutMs", 0),
      cancelGraceMs,
      maxPendingInputs: limit("maxPendingInputsPerTask", 64, 1),
    },
    a2a03: options.a2a03 ?? false,
  };
}

/**
 * The `push` option resolved (called only where push is built in, so that
 * `@seam/gateway/lite` bundles none of it).
 */
export function resolvePush(push: GatewayOptions["push"]): PushOptionsResolved | undefined {
  if (push === undefined) return undefined;
  if (push === null || typeof push !== "object") {
    refuse("push must be an object (push: {} for the defaults)");
  }
  refuseUnknownOptions(
    ACTION,
    push,
    [
      "allowWebhook",
      "maxConfigsPerTask",
      "maxPayloadBytes",
      "configStore",
      "outbox",
    ] satisfies (keyof GatewayPushOptions)[],
    { under: "push" },
  );
  if (push.allowWebhook !== undefined && typeof push.allowWebhook !== "function") {
    refuse("push.allowWebhook must be a function (url) => boolean");
  }
  const store = push.configStore;
  if (
    store !== undefined &&
    (["put", "list", "delete", "release"] as const).some((m) => typeof store[m] !== "function")
  ) {
    refuse("push.configStore must have put, list, delete and release");
  }
  const outbox = push.outbox;
  if (
    outbox !== undefined &&
    (["enqueue", "discard", "close"] as const).some((m) => typeof outbox[m] !== "function")
  ) {
    refuse("push.outbox must have enqueue, discard and close");
  }
  if (outbox?.enqueuedBy !== undefined && store?.storedIn !== outbox.enqueuedBy) {
    // Its storage's appends read the configs from that storage: any other
    // store would leave every notification unwritten, silently.
    refuse(
      "push.outbox is written by its task storage (enqueuedBy), so push.configStore must keep the configs in that same storage (e.g. createPostgresPushConfigStore(store) beside createPostgresPushOutbox(store))",
    );
  }
  return {
    allowWebhook: push.allowWebhook,
    store,
    outbox,
    maxConfigsPerTask: count(push.maxConfigsPerTask, "push.maxConfigsPerTask", 10, 1),
    maxPayloadBytes: count(push.maxPayloadBytes, "push.maxPayloadBytes", 256 * 1024, 1_024),
  };
}

/** The `inspector` option resolved (like {@linkcode resolvePush}, only where it is built in). */
export function resolveInspector(
  value: GatewayOptions["inspector"],
): InspectorLimits | undefined {
  if (value === undefined || value === false) return undefined;
  if (value !== true && (!isRecord(value))) {
    refuse(
      `inspector must be a boolean or an object of bounds, got ${
        stringify(value) ?? String(value)
      }`,
    );
  }
  const given = value === true ? {} : value;
  refuseUnknownOptions(
    ACTION,
    given,
    [
      "maxTasksPerPrincipal",
      "maxRunsPerTask",
      "maxTextPerRun",
      "maxPrincipals",
      "maxStreamsPerPrincipal",
      "maxRuns",
      "maxText",
    ] satisfies (keyof GatewayInspectorOptions)[],
    { under: "inspector" },
  );
  return {
    maxTasksPerPrincipal: count(
      given.maxTasksPerPrincipal,
      "inspector.maxTasksPerPrincipal",
      50,
      1,
    ),
    maxRunsPerTask: count(given.maxRunsPerTask, "inspector.maxRunsPerTask", 32, 1),
    maxTextPerRun: count(given.maxTextPerRun, "inspector.maxTextPerRun", 4_096, 0),
    maxPrincipals: count(given.maxPrincipals, "inspector.maxPrincipals", 256, 1),
    maxStreamsPerPrincipal: count(
      given.maxStreamsPerPrincipal,
      "inspector.maxStreamsPerPrincipal",
      8,
      1,
    ),
    maxRuns: count(given.maxRuns, "inspector.maxRuns", 10_000, 1),
    maxText: count(given.maxText, "inspector.maxText", 4 * 1024 * 1024, 0),
  };
}

function checkBasePath(value: unknown): string {
  if (value === undefined || value === "" || value === "/") return "";
  if (
    typeof value !== "string" || !value.startsWith("/") || /[?#\s]/.test(value) ||
    value.includes("//")
  ) {
    refuse(
      `basePath must be a path like "/a2a" (a leading slash, no query), got ${stringify(value)}`,
    );
  }
  return value.replace(/\/+$/, "");
}

function checkExtendedCard(options: GatewayOptions): GatewayExtendedCardOptions | undefined {
  const card = options.extendedCard;
  if (card === undefined) return undefined;
  if (card === null || typeof card !== "object") {
    refuse("extendedCard must be an object");
  }
  if (!options.auth) {
    refuse("extendedCard is for authenticated callers; give auth too");
  }
  if (card.description !== undefined && typeof card.description !== "string") {
    refuse("extendedCard.description must be a string");
  }
  for (const [i, skill] of (card.skills ?? []).entries()) {
    if (
      !skill || typeof skill.id !== "string" || skill.id === "" ||
      typeof skill.name !== "string" || typeof skill.description !== "string"
    ) {
      refuse(`extendedCard.skills[${i}] needs an id, a name and a description`);
    }
  }
  return card;
}

function checkRequiredExtensions(
  value: readonly GatewayRequiredExtension[] | undefined,
): readonly GatewayRequiredExtension[] {
  if (value === undefined) return [];
  if (!isArray(value)) {
    refuse("requiredExtensions must be a list of {uri}");
  }
  for (const [i, ext] of value.entries()) {
    if (!ext || typeof ext.uri !== "string" || ext.uri === "") {
      refuse(`requiredExtensions[${i}].uri must be a URI`);
    }
  }
  return value;
}

/** Every option of {@linkcode GatewayOptions}, in its order. */
const KNOWN_OPTIONS = [
  "scope",
  "subagents",
  "parent",
  "agentOptions",
  "defaultProvider",
  "publicUrl",
  "basePath",
  "trustedHosts",
  "card",
  "cardMaxAge",
  "auth",
  "taskStore",
  "cors",
  "extendedCard",
  "requiredExtensions",
  "bodyLimit",
  "progress",
  "maxResumableRuns",
  "keptRunIdleMs",
  "cancelTimeoutMs",
  "limits",
  "a2a03",
  "push",
  "inspector",
  "mounts",
] as const satisfies readonly (keyof GatewayOptions)[];

/**
 * The options of the nested objects checked with the top level (`push` and
 * `inspector` are checked where they are built in).
 */
const KNOWN_NESTED: readonly [keyof GatewayOptions, readonly string[]][] = [
  [
    "limits",
    [
      "maxLiveTasks",
      "maxLiveTasksPerPrincipal",
      "taskTimeoutMs",
      "bodyTimeoutMs",
      "maxJsonDepth",
      "maxSteeringMessages",
      "maxSteeringBytes",
      "maxPendingInputsPerTask",
      "maxSubscribersPerTask",
      "maxStreamsPerPrincipal",
      "maxStreamBufferBytes",
    ] satisfies (keyof GatewayLimits)[],
  ],
  ["auth", ["tokens", "verify"] satisfies (keyof GatewayAuthOptions)[]],
  ["cors", ["origin", "maxAge", "credentials"] satisfies (keyof GatewayCorsOptions)[]],
  [
    "card",
    [
      "name",
      "description",
      "version",
      "provider",
      "documentationUrl",
      "iconUrl",
    ] satisfies (keyof GatewayCardOptions)[],
  ],
  ["extendedCard", ["description", "skills"] satisfies (keyof GatewayExtendedCardOptions)[]],
];

/**
 * Refuse an option (or a limit, or one of `auth`, `cors`, `card` or
 * `extendedCard`) the gateway does not know, naming the known ones: a
 * misspelt bound would otherwise be its default, silently. In
 * `createGateway` (of `@seam/gateway` and of `@seam/gateway/lite`) and
 * `serveGateway`.
 */
export function refuseUnknownGatewayOptions(options: GatewayOptions): void {
  if (!isRecord(options)) return; // resolveOptions says what is wrong
  refuseUnknownOptions(ACTION, options, KNOWN_OPTIONS);
  for (const [under, known] of KNOWN_NESTED) {
    const given = options[under];
    if (isRecord(given)) refuseUnknownOptions(ACTION, given, known, { under });
  }
}
