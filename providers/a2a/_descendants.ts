// The descendants a seam gateway tells of its task's run (status updates
// whose seam metadata carries `descendants`; see the gateway's README) become
// nested runs of this run, as an ACP agent's child sessions do: each told
// through `NestedRuns` of @seam/subagent (an id of its own, `<run id>.<n>`,
// its parent, depth, title, state and usage; `subagent/start`,
// `subagent/nested-run` and `subagent/end`); one the gateway says may be
// cancelled is registered for a per-child cancel, which names it to the
// gateway in `CancelTask`.
//
// Usage: a seam gateway's `usage.total` of the task's run already holds its
// descendants (the service there rolls them up, the ACP provider its child
// sessions), so theirs is shown here, never added to this run's.
//
// All of it is the remote's word: bounded, and a bad piece is logged once
// and skipped, never a failure of the run.
import { isRecord, type Logger, type Scope } from "@seam/host";
import {
  type NestedRun,
  type NestedRunChange,
  NestedRuns,
  SUBAGENT_STOP_REASONS,
  type SubagentRunPlace,
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

const STATES: ReadonlySet<string> = new Set(["running", "idle", "needs-action", "ended"]);

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
  readonly #runs: NestedRuns;
  #open = true;
  #updates = 0;
  /** What was already warned of (once each). */
  readonly #warned = new Set<string>();

  constructor(options: DescendantsOptions) {
    this.#options = options;
    const { runId, provider, parent, place } = options;
    this.#runs = new NestedRuns({ runId, provider, scope: parent.scope, place });
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
    if (!this.#open) return false;
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
   * The run ended `stopReason`: each nested run still open ends (see
   * `NestedRuns.endAll`), and none is followed any more.
   */
  end(stopReason: SubagentStopReason): void {
    if (!this.#open) return;
    this.#open = false;
    this.#runs.endAll(stopReason);
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
    const known = this.#runs.get(remoteId);
    if (known?.ended) {
      this.#warn(
        "ended",
        `updated descendant ${clipped(remoteId, 100)} after it ended; ignoring it`,
      );
      return false;
    }
    const ended = raw.state === "ended";
    const cancel = this.#options.cancel;
    const change: NestedRunChange = {
      ...(typeof raw.title === "string" ? { title: raw.title.slice(0, 200) } : {}),
      ...(ended ? {} : { state: raw.state as string }),
      usage: this.#usage(remoteId, raw.usage),
      cancel: raw.cancellable === true && !ended && cancel ? () => cancel(remoteId) : null,
    };
    const nested = known ? known : this.#add(remoteId, raw.parentRunId, raw.provider, change);
    if (!nested) return false;
    const changed = !known || this.#runs.update(nested, change);
    if (!ended) return changed;
    const stopReason = raw.stopReason as SubagentStopReason;
    this.#runs.end(nested, SUBAGENT_STOP_REASONS.includes(stopReason) ? stopReason : "completed");
    return true;
  }

  /** A new nested run under its parent (the run itself, or one told before); `undefined` when it cannot be. */
  #add(
    remoteId: string,
    parentId: unknown,
    provider: unknown,
    first: NestedRunChange,
  ): NestedRun | undefined {
    const parent = parentId === undefined ? undefined : this.#runs.get(String(parentId));
    // One that ended may still be told a child: the gateway gathers changes into one update.
    if (parentId !== undefined && !parent) {
      this.#warn(
        "parent",
        `told descendant ${clipped(remoteId, 100)} under a run it never told; ignoring it`,
      );
      return undefined;
    }
    const label = typeof provider === "string" ? provider.slice(0, 64) : undefined;
    const nested = this.#runs.add(remoteId, parent, first, label);
    if (!nested) {
      this.#warn(
        "full",
        `told more than ${MAX_DESCENDANTS} descendants; following the first ones only`,
      );
      return undefined;
    }
    this.#options.logger().debug(
      `A2A run ${this.#options.runId}: the remote's run ${
        clipped(remoteId, 100)
      } is ${nested.runId}`,
    );
    return nested;
  }

  /** The figures of a descendant's `usage` (each absent one 0); `undefined` when none or bad. */
  #usage(remoteId: string, raw: unknown): NestedRunChange["usage"] {
    if (raw === undefined) return undefined;
    const figures = isRecord(raw) ? [raw.inputTokens, raw.outputTokens, raw.toolCalls] : [];
    if (figures.length === 0 || !figures.every((n) => n === undefined || isCount(n))) {
      this.#warn(
        "usage",
        `sent a usage of descendant ${clipped(remoteId, 100)} that is no count (${
          clipped(JSON.stringify(raw) ?? "", 80)
        }); ignoring it`,
      );
      return undefined;
    }
    const [inputTokens = 0, outputTokens = 0, toolCalls = 0] = figures as (number | undefined)[];
    return { inputTokens, outputTokens, toolCalls };
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
