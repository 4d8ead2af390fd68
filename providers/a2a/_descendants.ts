// The descendants a seam gateway tells of its task's run (status updates
// whose seam metadata carries `descendants`; see the gateway's README) become
// nested runs of this run, as an ACP agent's child sessions do
// (`@seam/subagent-acp`): each with an id of its own (`<run id>.<n>`), its
// parent, depth, title, state and usage, told as `subagent/start`, the state
// event the ACP provider defines (`acp/child`), and `subagent/end`; one the
// gateway says may be cancelled is registered for a per-child cancel
// (`registerRunControl`), which names it to the gateway in `CancelTask`.
//
// Usage: a seam gateway's `usage.total` of the task's run already holds its
// descendants (the service there rolls them up, the ACP provider its child
// sessions), so theirs is shown here, never added to this run's.
//
// All of it is the remote's word: bounded, and a bad piece is logged once
// and skipped, never a failure of the run.
import {
  deepFreeze,
  defineEvent,
  type EventKey,
  isRecord,
  type Logger,
  type Scope,
} from "@seam/host";
import {
  registerRunControl,
  SUBAGENT_STOP_REASONS,
  subagentEnd,
  type SubagentRunInfo,
  type SubagentRunPlace,
  subagentStart,
  type SubagentStopReason,
} from "@seam/subagent";
import type { StreamResponse } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { clipped } from "./_failure.ts";
import { SEAM_EXTENSION_URI } from "./_extension.ts";

/** The most nested runs one run follows. */
export const MAX_DESCENDANTS = 256;
/** The most descendant updates one run reads (the gateway sends at most ten a second). */
export const MAX_DESCENDANT_UPDATES = 10_000;

type State = "running" | "idle" | "needs-action" | "ended";
const STATES: ReadonlySet<string> = new Set(["running", "idle", "needs-action", "ended"]);

/** What `acp/child` of `@seam/subagent-acp` carries (this package does not import it). */
interface NestedRunStateInfo {
  readonly runId: string;
  readonly parentRunId: string;
  readonly rootRunId: string;
  readonly provider: string;
  readonly depth: number;
  /** The remote's run id (where an ACP child has its session id). */
  readonly sessionId: string;
  readonly title?: string;
  readonly state?: string;
  readonly cancellable: boolean;
  readonly usage: { readonly contextTokens: number; readonly toolCalls: number };
  readonly ended: boolean;
}
/**
 * The ACP provider's nested-run state event, by its name: the ACP server
 * tells a client a nested run's state from it, and a gateway its clients.
 */
const nestedRunState: EventKey<NestedRunStateInfo> = defineEvent("acp/child");

interface Usage {
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
}

interface Nested {
  readonly runId: string;
  readonly remoteId: string;
  readonly parentRunId: string;
  readonly depth: number;
  readonly provider: string | undefined;
  title: string | undefined;
  state: State;
  stopReason: SubagentStopReason | undefined;
  usage: Usage;
  cancellable: boolean;
  unregister: (() => void) | undefined;
  readonly since: number;
}

/** What the descendants of one run need of it. */
export interface DescendantsOptions {
  readonly runId: string;
  readonly provider: string;
  readonly parent: { readonly scope: Scope };
  readonly place: SubagentRunPlace | undefined;
  readonly logger: () => Logger;
  /** Ask the gateway to cancel its descendant `remoteId`; absent: none is cancellable from here. */
  readonly cancel: ((remoteId: string) => void) | undefined;
}

/** The nested runs of one run (see the module doc). */
export class RemoteDescendants {
  readonly #options: DescendantsOptions;
  /** By the remote's run id. */
  readonly #runs = new Map<string, Nested>();
  #state: "open" | "ended" = "open";
  #serial = 0;
  #updates = 0;
  /** What was already warned of (once each). */
  readonly #warned = new Set<string>();

  constructor(options: DescendantsOptions) {
    this.#options = options;
  }

  /**
   * A stream event: `undefined` for the task's news; for a seam gateway's
   * descendants update (it says nothing of the task itself), taken here,
   * whether it told something new (never past the bounds or after the run's end).
   */
  take(event: StreamResponse): boolean | undefined {
    const payload = event?.payload;
    if (payload?.$case !== "statusUpdate") return undefined;
    const seam = payload.value?.metadata?.[SEAM_EXTENSION_URI];
    if (!isRecord(seam) || seam.descendants === undefined) return undefined;
    if (this.#state !== "open") return false;
    if (++this.#updates > MAX_DESCENDANT_UPDATES) {
      this.#warn(
        "flood",
        `sent more than ${MAX_DESCENDANT_UPDATES} descendant updates; ignoring the rest`,
      );
      return false;
    }
    const list = seam.descendants;
    if (!Array.isArray(list)) {
      this.#warn("list", "sent descendants that are no array; ignoring them");
      return false;
    }
    let told = false;
    for (const entry of list.slice(0, MAX_DESCENDANTS)) told = this.#entry(entry) || told;
    if (typeof seam.dropped === "number" && seam.dropped > 0) {
      this.#warn("dropped", "told only some of its descendants (over its bound)", "debug");
    }
    return told;
  }

  /**
   * The run ended `stopReason`: each nested run still open ends (`completed`
   * when last idle, else what ended the run: `aborted` for a completion), and
   * none is followed any more.
   */
  end(stopReason: SubagentStopReason): void {
    if (this.#state !== "open") return;
    this.#state = "ended";
    for (const nested of this.#runs.values()) {
      if (nested.state === "ended") continue;
      nested.stopReason = nested.state === "idle"
        ? "completed"
        : stopReason === "completed"
        ? "aborted"
        : stopReason;
      nested.state = "ended";
      this.#ended(nested);
    }
  }

  /** One descendant of an update; whether it told something new. */
  #entry(raw: unknown): boolean {
    if (
      !isRecord(raw) || typeof raw.runId !== "string" || raw.runId === "" ||
      !STATES.has(raw.state as string)
    ) {
      this.#warn("shape", "sent a descendant without a run id or a known state; ignoring it");
      return false;
    }
    const remoteId = raw.runId.slice(0, 256);
    let nested = this.#runs.get(remoteId);
    if (nested?.state === "ended") {
      this.#warn(
        "ended",
        `updated descendant ${clipped(remoteId, 100)} after it ended; ignoring it`,
      );
      return false;
    }
    const fresh = nested === undefined;
    nested ??= this.#add(remoteId, raw.parentRunId, raw.provider);
    if (!nested) return false;
    const before = `${nested.title}\n${nested.state}\n${Object.values(nested.usage)}`;
    if (typeof raw.title === "string") nested.title = raw.title.slice(0, 200);
    this.#usage(nested, raw.usage);
    nested.state = raw.state as State;
    const changed = fresh ||
      before !== `${nested.title}\n${nested.state}\n${Object.values(nested.usage)}`;
    this.#cancellable(nested, raw.cancellable === true && nested.state !== "ended");
    const scope = this.#options.parent.scope;
    if (fresh && scope.hasListeners(subagentStart)) scope.emit(subagentStart, this.#info(nested));
    if (nested.state === "ended") {
      nested.stopReason = SUBAGENT_STOP_REASONS.includes(raw.stopReason as SubagentStopReason)
        ? raw.stopReason as SubagentStopReason
        : "completed";
      this.#ended(nested);
    } else if (changed) this.#tell(nested);
    return changed;
  }

  /** A new nested run under its parent (the run itself, or one told before); `undefined` when it cannot be. */
  #add(remoteId: string, parentId: unknown, provider: unknown): Nested | undefined {
    const { runId, logger } = this.#options;
    const parent = parentId === undefined ? undefined : this.#runs.get(String(parentId));
    // One that ended may still be told a child: the gateway gathers changes into one update.
    if (parentId !== undefined && !parent) {
      this.#warn(
        "parent",
        `told descendant ${clipped(remoteId, 100)} under a run it never told; ignoring it`,
      );
      return undefined;
    }
    if (this.#runs.size >= MAX_DESCENDANTS) {
      this.#warn(
        "full",
        `told more than ${MAX_DESCENDANTS} descendants; following the first ones only`,
      );
      return undefined;
    }
    const nested: Nested = {
      runId: `${runId}.${++this.#serial}`,
      remoteId,
      parentRunId: parent?.runId ?? runId,
      depth: (parent?.depth ?? this.#options.place?.depth ?? 1) + 1,
      provider: typeof provider === "string" ? provider.slice(0, 64) : undefined,
      title: undefined,
      state: "running",
      stopReason: undefined,
      usage: { inputTokens: 0, outputTokens: 0, toolCalls: 0 },
      cancellable: false,
      unregister: undefined,
      since: performance.now(),
    };
    this.#runs.set(remoteId, nested);
    logger().debug(
      `A2A run ${runId}: the remote's run ${clipped(remoteId, 100)} is ${nested.runId}`,
    );
    return nested;
  }

  /** Register (or drop) `nested`'s canceller: before its first event, so it is told cancellable. */
  #cancellable(nested: Nested, cancellable: boolean): void {
    const cancel = this.#options.cancel;
    nested.cancellable = cancellable && cancel !== undefined;
    if (nested.cancellable) {
      nested.unregister ??= registerRunControl(
        this.#options.parent.scope,
        nested.runId,
        () => cancel!(nested.remoteId),
      );
    } else {
      nested.unregister?.();
      nested.unregister = undefined;
    }
  }

  #usage(nested: Nested, raw: unknown): void {
    if (raw === undefined) return;
    const figures = isRecord(raw) ? [raw.inputTokens, raw.outputTokens, raw.toolCalls] : [];
    if (figures.length === 0 || !figures.every((n) => n === undefined || isCount(n))) {
      this.#warn(
        "usage",
        `sent a usage of descendant ${clipped(nested.remoteId, 100)} that is no count (${
          clipped(JSON.stringify(raw) ?? "", 80)
        }); ignoring it`,
      );
      return;
    }
    const [inputTokens, outputTokens, toolCalls] = figures as (number | undefined)[];
    nested.usage = {
      inputTokens: inputTokens ?? 0,
      outputTokens: outputTokens ?? 0,
      toolCalls: toolCalls ?? 0,
    };
  }

  #info(nested: Nested): SubagentRunInfo {
    const label = nested.title ?? nested.provider;
    return deepFreeze({
      provider: this.#options.provider,
      parentRunId: nested.parentRunId,
      depth: nested.depth,
      ...(label === undefined ? {} : { label }),
      runId: nested.runId,
      parentId: nested.parentRunId,
      prompt: [],
      inheritsParentContext: false,
    });
  }

  /** Its state, as the ACP provider tells a child session's. */
  #tell(nested: Nested): void {
    const scope = this.#options.parent.scope;
    if (!scope.hasListeners(nestedRunState)) return;
    scope.emit(
      nestedRunState,
      deepFreeze({
        runId: nested.runId,
        parentRunId: nested.parentRunId,
        rootRunId: this.#options.runId,
        provider: this.#options.provider,
        depth: nested.depth,
        sessionId: nested.remoteId,
        ...(nested.title === undefined ? {} : { title: nested.title }),
        ...(nested.state === "ended" ? {} : { state: nested.state }),
        cancellable: nested.cancellable,
        usage: { contextTokens: nested.usage.inputTokens, toolCalls: nested.usage.toolCalls },
        ended: nested.state === "ended",
      }),
    );
  }

  /** `nested` ended: told ended, then `subagent/end` with how and what it used. */
  #ended(nested: Nested): void {
    nested.unregister?.();
    nested.unregister = undefined;
    nested.cancellable = false;
    this.#tell(nested);
    const scope = this.#options.parent.scope;
    if (!scope.hasListeners(subagentEnd)) return;
    const durationMs = Math.max(0, performance.now() - nested.since);
    const figures = {
      ...nested.usage,
      cachedInputTokens: 0,
      modelCalls: 0,
      wallTimeMs: durationMs,
    };
    scope.emit(
      subagentEnd,
      deepFreeze({
        ...this.#info(nested),
        usage: { self: figures, total: figures, partial: true },
        stopReason: nested.stopReason ?? "completed",
        durationMs,
      }),
    );
  }

  #warn(kind: string, what: string, level: "warn" | "debug" = "warn"): void {
    if (this.#warned.has(kind)) return;
    this.#warned.add(kind);
    this.#options.logger()[level](`A2A run ${this.#options.runId}: the remote ${what} (said once)`);
  }
}

/**
 * Whether a per-descendant cancel reaches the gateway over `client`: A2A
 * 1.0's JSON-RPC `CancelTask` carries `metadata`; the SDK's HTTP+JSON client
 * sends that request without a body.
 */
export function cancelsDescendants(client: Client): boolean {
  return client.transport.protocolName === "JSONRPC" && client.protocolVersion.startsWith("1.");
}

function isCount(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
}
