import type { JsonValue } from "@seam/host";

/**
 * The state of an A2A task, as it appears on the wire (A2A v1.0 JSON).
 * `COMPLETED`, `FAILED`, `CANCELED` and `REJECTED` are terminal.
 */
export type A2ATaskState =
  | "TASK_STATE_SUBMITTED"
  | "TASK_STATE_WORKING"
  | "TASK_STATE_COMPLETED"
  | "TASK_STATE_FAILED"
  | "TASK_STATE_CANCELED"
  | "TASK_STATE_INPUT_REQUIRED"
  | "TASK_STATE_REJECTED"
  | "TASK_STATE_AUTH_REQUIRED";

/** A key-value map carried by A2A objects (`metadata`). */
export type A2AMetadata = { [key: string]: JsonValue };

/**
 * One piece of content (A2A v1.0 `Part`): exactly one of `text`, `raw`
 * (base64 bytes), `url` or `data` (any JSON), plus optional `mediaType`,
 * `filename` and `metadata`.
 */
export interface A2APart {
  /** Plain text. */
  text?: string;
  /** Base64-encoded bytes. */
  raw?: string;
  /** A reference to content. */
  url?: string;
  /** Structured JSON data. */
  data?: JsonValue;
  /** The media type of the content (`text/plain`, `image/png`, …). */
  mediaType?: string;
  /** A file name for the content. */
  filename?: string;
  /** Extra data about the part. */
  metadata?: A2AMetadata;
}

/** A message between a client and the agent (A2A v1.0 `Message`). */
export interface A2AMessage {
  /** Unique per message, chosen by its sender. */
  messageId: string;
  /** Who sent it. */
  role: "ROLE_USER" | "ROLE_AGENT";
  /** The content. */
  parts: A2APart[];
  /** The conversation the message belongs to. */
  contextId?: string;
  /** The task the message belongs to. */
  taskId?: string;
  /** Extra data; the seam extension lives under its URI here. */
  metadata?: A2AMetadata;
  /** URIs of the extensions the message uses. */
  extensions?: string[];
  /** Tasks the message refers to. */
  referenceTaskIds?: string[];
}

/** Where a task is (A2A v1.0 `TaskStatus`). */
export interface A2ATaskStatus {
  /** The task's state. */
  state: A2ATaskState;
  /** The agent's message about this state, when there is one. */
  message?: A2AMessage;
  /** When the task entered this state (ISO 8601). */
  timestamp?: string;
}

/** An output of a task (A2A v1.0 `Artifact`). */
export interface A2AArtifact {
  /** Unique within the task. */
  artifactId: string;
  /** A human-readable name. */
  name?: string;
  /** A human-readable description. */
  description?: string;
  /** The content. */
  parts: A2APart[];
  /** Extra data about the artifact. */
  metadata?: A2AMetadata;
}

/** A unit of work (A2A v1.0 `Task`). */
export interface A2ATask {
  /** Unique, chosen by the gateway. */
  id: string;
  /** The conversation the task belongs to. */
  contextId: string;
  /** Where the task is. */
  status: A2ATaskStatus;
  /** Its outputs. */
  artifacts?: A2AArtifact[];
  /** The messages exchanged, oldest first. */
  history?: A2AMessage[];
  /** Extra data; the seam extension's `provider` and `stopReason` live under its URI here. */
  metadata?: A2AMetadata;
}

/**
 * The URI of the seam A2A extension. Declared in the agent card's
 * `capabilities.extensions` with each provider's capability flags; a client
 * puts its {@linkcode SeamMessageExtension} under this key of
 * `message.metadata`, and finds the run's {@linkcode SeamTaskExtension}
 * under it in `task.metadata`.
 */
export const SEAM_EXTENSION_URI = "https://jsr.io/@seam/gateway/extensions/subagent/v1";

/**
 * What a client may put under {@linkcode SEAM_EXTENSION_URI} in
 * `message.metadata` when it starts a task. Every field is optional; an
 * unknown field is rejected, and a field the addressed provider cannot honour
 * is rejected (`UnsupportedOperationError`, -32004), never ignored.
 *
 * On a follow-up: a message steering a running task (`taskId`) carries only
 * `depth`. A message continuing a finished task's context (`contextId`, no
 * `taskId`) carries `depth` and may carry `maxDepth`: when the gateway keeps
 * that context's run, the cap must equal the run's own or be looser (the run
 * keeps its settings; a tighter cap is refused, `-32602`), and when it does
 * not, the message starts a fresh run under that cap. Send the cap with a
 * continuation, so it holds even when the gateway starts afresh.
 */
export interface SeamMessageExtension {
  /** Ask for a structured result (an object-rooted JSON Schema); it arrives as a `data` part. */
  readonly outputSchema?: { readonly [keyword: string]: JsonValue };
  /**
   * Absolute cap on the child's depth. The child's depth is the caller's
   * `depth` + 1. Also allowed on a continuation (see above).
   */
  readonly maxDepth?: number;
  /** Restrict the child's tools. */
  readonly toolFilter?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
  /** The child's persona. */
  readonly persona?: string;
  /**
   * What the task's run and its subtree may use (`SubagentBudget` of
   * `@seam/subagent`: `tokens`, `wallTimeMs`, `toolCalls`, `children`,
   * `liveChildren`): the caller's own run's effective budget, already
   * tightened there. The gateway's service enforces it; running out ends the
   * task FAILED with `stopReason: "budget-exhausted"` in the seam metadata.
   * Only on a message that starts a task.
   */
  readonly budget?: {
    readonly tokens?: number;
    readonly wallTimeMs?: number;
    readonly toolCalls?: number;
    readonly children?: number;
    readonly liveChildren?: number;
  };
  /**
   * The caller's own delegation depth (a top agent is 0; default 0), so a
   * `maxDepth` set at the top holds across any number of gateway hops.
   */
  readonly depth?: number;
  /**
   * The run ids from the root of the caller's delegation tree down to the
   * caller's own run (at most 64 ids, each a non-empty string of at most 256
   * characters). The gateway gives it to the task's runs, so the `path` of
   * their input requests starts at the caller's root across any number of
   * hops. Read on the message that starts a task.
   */
  readonly path?: readonly string[];
}

/** The capability flags of one provider, as the card's extension declares them. */
export interface SeamProviderDescriptor {
  /** The start-time capability flags (`budget`: whether the seam extension's `budget` holds). */
  readonly capabilities: {
    readonly outputSchema: boolean;
    readonly depthLimit: boolean;
    readonly toolFilter: boolean;
    readonly persona: boolean;
    readonly budget?: boolean;
  };
  /** Whether the child sees the delegating parent's conversation. */
  readonly inheritsParentContext: boolean;
}

/** The `params` of the seam extension in an agent card. */
export interface SeamCardExtensionParams {
  /** The provider this card addresses (the default provider on the root card), if any. */
  readonly provider?: string;
  /** The provider a request without a tenant goes to, if any. */
  readonly defaultProvider?: string;
  /** Every registered provider by name. */
  readonly providers: { readonly [name: string]: SeamProviderDescriptor };
}

/** What the gateway puts under {@linkcode SEAM_EXTENSION_URI} in `task.metadata`. */
export interface SeamTaskExtension {
  /** The provider the task runs on. */
  readonly provider: string;
  /** The child's run id, once it exists. */
  readonly runId?: string;
  /** The run's exact stop reason, once it ended. */
  readonly stopReason?:
    | "completed"
    | "aborted"
    | "error"
    | "max-tokens"
    | "refusal"
    | "budget-exhausted";
  /**
   * The id of the task whose run this one resumed, when it continued a
   * context. A message naming a context whose run is no longer kept starts a
   * fresh run, without the conversation: its task has no `resumedFrom`.
   */
  readonly resumedFrom?: string;
  /**
   * On a shared store, once the task ended: the gateway instance that keeps
   * its run for a follow-up in its context, where such a message reaching
   * another instance is sent on.
   */
  readonly keptOn?: string;
  /** What went wrong, when the run failed for an infrastructure or contract fault. */
  readonly error?: string;
  /** What went wrong in the run, as its result's `error` said (`SubagentFailure`). */
  readonly failure?: { readonly code: string; readonly message: string };
}
