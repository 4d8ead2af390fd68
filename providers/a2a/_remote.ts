// What a run is given: what every run of one provider shares (the client,
// the bounds, the policy), and what one run's request is.
import type { AgentRef, ContentBlock, Logger } from "@seam/host";
import type { OutputSchema, SubagentRunPlace } from "@seam/subagent";
import type { Client } from "@a2a-js/sdk/client";
import type { SeamMessageFields, SeamRemoteProvider } from "./_extension.ts";
import type { ReconnectLimits } from "./_reconnect.ts";

/** A live run, as the provider tracks it (disposed with the provider). */
export interface LiveRun {
  dispose(): Promise<void>;
}

/** What every run of one provider shares. */
export interface RemoteContext {
  readonly client: Client;
  readonly providerName: string;
  /** The agent the runs go to, as `subagent/progress` of kind `remote` names it. */
  readonly hop: { readonly url?: string; readonly agentName: string };
  /** The request `tenant` (a seam gateway's provider), or `""`. */
  readonly tenant: string;
  /** The addressed provider of a seam gateway; `undefined` for other agents. */
  readonly seam: SeamRemoteProvider | undefined;
  readonly streaming: boolean;
  readonly timeoutMs: number;
  /** How long a known task may bring nothing new before the run ends `error`. */
  readonly idleTimeoutMs: number;
  /** How long a whole run may take; `undefined`: no bound. */
  readonly deadlineMs: number | undefined;
  /** The most output one run holds, in characters. */
  readonly maxOutputChars: number;
  readonly pollIntervalMs: number;
  /** The bounds of following a task after its stream drops (`pollIntervalMs` among them). */
  readonly reconnect: ReconnectLimits;
  readonly serviceParameters: Record<string, string> | undefined;
  readonly logger: Logger | undefined;
  readonly offerResume: boolean;
  readonly offerSendMessage: boolean;
  /**
   * Read the task once more (`GetTask`) when its stream ends it, for its
   * artifacts: the SDK client's v0.3 HTTP+JSON stream drops `append`, so
   * streamed chunks cannot be assembled reliably.
   */
  readonly refreshOnEnd: boolean;
  readonly live: Set<LiveRun>;
}

/** One run's request, as planned by the provider. */
export interface RunPlan {
  readonly prompt: readonly ContentBlock[];
  readonly parent: AgentRef;
  readonly signal?: AbortSignal;
  readonly outputSchema?: OutputSchema;
  /** The caller's delegation depth (forwarded to a seam gateway). */
  readonly depth: number;
  /** The seam extension for the message (seam gateways only). */
  readonly extension?: SeamMessageFields;
  /** The context to continue (a resume). */
  readonly contextId?: string;
  /** The interrupted task to continue (a resume after INPUT_REQUIRED or AUTH_REQUIRED). */
  readonly taskId?: string;
  /** Whether this run continues an earlier run's context. */
  readonly resumed: boolean;
  /** Where the run sits in the tree (the service's), for its progress events. */
  readonly place?: SubagentRunPlace;
  /** W3C trace headers (`traceparent`, `tracestate`) for every request of the run. */
  readonly traceHeaders?: Readonly<Record<string, string>>;
}
