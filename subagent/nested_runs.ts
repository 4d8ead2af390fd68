/**
 * Nested runs: the runs a provider reports below its own run without the
 * service starting them (an ACP agent's child sessions, a remote gateway's
 * descendants). {@linkcode NestedRuns} gives each an id of its own
 * (`<run id>.<n>`) and tells it as any run is told: `subagent/start`,
 * {@linkcode subagentNestedRun} on every change of its title, state, usage
 * or cancellability, and `subagent/end`; while it may be cancelled its
 * canceller is registered ({@linkcode registerRunControl}), so a per-child
 * cancel (the ACP server's, a gateway's `CancelTask` naming it) finds it.
 * Listeners use {@linkcode onSubagentNestedRun}.
 *
 * @example A provider reporting what its agent says of a child
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { NestedRuns, onSubagentNestedRun, subagentEnd } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const heard: string[] = [];
 * onSubagentNestedRun(root, (info) => heard.push(`${info.runId} ${info.state}`));
 * root.on(subagentEnd, (info) => void heard.push(`${info.runId} ${info.stopReason}`));
 * const nested = new NestedRuns({ runId: "run-1", provider: "acp", scope: root });
 * const child = nested.add("their-id", undefined, { title: "helper", state: "running" })!;
 * nested.update(child, { state: "idle", usage: { inputTokens: 120 } });
 * nested.endAll("completed"); // the run at the top ended
 * assert.deepEqual(heard, ["run-1.1 running", "run-1.1 idle", "run-1.1 completed"]);
 * await root.dispose();
 * ```
 *
 * @module
 */
import {
  deepFreeze,
  defineEvent,
  type EventKey,
  refuseUnknownOptions,
  type Scope,
} from "@seam/host";
import { subagentEnd, subagentNestedRun, subagentStart } from "./events.ts";
import { registerRunControl, type RunCanceller } from "./run_control.ts";
import type {
  SubagentNestedRunInfo,
  SubagentNestedRunUsage,
  SubagentRunInfo,
  SubagentRunPlace,
  SubagentStopReason,
} from "./types.ts";

/** What {@linkcode NestedRuns} reports for. */
export interface NestedRunsOptions {
  /** The run the caller holds: its nested runs are `<runId>.<n>`. */
  readonly runId: string;
  /** The provider's name. */
  readonly provider: string;
  /** Where the run's events go (the delegating parent's scope). */
  readonly scope: Scope;
  /** Where the run sits (its depth); a top-level run when absent. */
  readonly place?: SubagentRunPlace;
  /** The most nested runs followed (default 256): past it, `add` answers `undefined`. */
  readonly max?: number;
}

/** One nested run as {@linkcode NestedRuns} follows it; change it through `update`. */
export interface NestedRun {
  /** Its id: `<run id>.<n>`. */
  readonly runId: string;
  /** The provider's own name for it (an ACP child session's id, the remote's run id). */
  readonly key: string;
  /** The run above it. */
  readonly parentRunId: string;
  /** Its depth. */
  readonly depth: number;
  /** Its title, when given. */
  readonly title: string | undefined;
  /** Its state, as last said (see {@linkcode SubagentNestedRunInfo.state}). */
  readonly state: string | undefined;
  /** What it used, as last said. */
  readonly usage: SubagentNestedRunUsage;
  /** Whether it may be cancelled (when ended: whether it could be, last). */
  readonly cancellable: boolean;
  /** Whether it ended. */
  readonly ended: boolean;
}

/** What changed of a nested run: each field given replaces its value. */
export interface NestedRunChange {
  /** Its title; `null` clears it. */
  readonly title?: string | null;
  /** Its state; `null` clears it. */
  readonly state?: string | null;
  /** The figures that changed (the others stay). */
  readonly usage?: Partial<SubagentNestedRunUsage>;
  /** How to cancel it (cancellable from now on), or `null`: not cancellable any more. */
  readonly cancel?: RunCanceller | null;
}

type Entry = { -readonly [K in keyof NestedRun]: NestedRun[K] };

interface Followed {
  readonly label: string | undefined;
  readonly since: number;
  unregister: (() => void) | undefined;
  /** The canceller registered, so a new one replaces it and the same one is kept. */
  cancel: RunCanceller | undefined;
}

/**
 * The deprecated `acp/child` of `@seam/subagent-acp`, told alongside
 * {@linkcode subagentNestedRun} until it is removed; the payloads told here
 * are marked, so {@linkcode onSubagentNestedRun} hears each change once.
 */
interface LegacyInfo {
  readonly runId: string;
  readonly parentRunId: string;
  readonly provider?: string;
  readonly depth?: number;
  readonly title?: string;
  readonly state?: string;
  readonly cancellable?: boolean;
  readonly usage?: { readonly contextTokens?: number; readonly toolCalls?: number };
  readonly ended?: boolean;
}
const legacy: EventKey<LegacyInfo> = defineEvent("acp/child");
const derived = new WeakSet<object>();

/** The nested runs of one run (see the module doc). */
export class NestedRuns {
  readonly #options: NestedRunsOptions;
  readonly #runs = new Map<string, Entry>();
  readonly #followed = new Map<NestedRun, Followed>();
  #open = true;

  /**
   * Report nested runs of the run `options.runId`.
   *
   * @throws {TypeError} for an unknown option, naming it and the known ones.
   */
  constructor(options: NestedRunsOptions) {
    refuseUnknownOptions(
      "follow nested runs",
      options,
      [
        "runId",
        "provider",
        "scope",
        "place",
        "max",
      ] satisfies (keyof NestedRunsOptions)[],
    );
    this.#options = options;
  }

  /** How many nested runs were followed. */
  get size(): number {
    return this.#runs.size;
  }

  /** The nested run the provider calls `key`, if followed. */
  get(key: string): NestedRun | undefined {
    return this.#runs.get(key);
  }

  /** Every nested run followed, in the order they were added. */
  values(): IterableIterator<NestedRun> {
    return this.#runs.values();
  }

  /**
   * A new nested run `key` under `parent` (the run itself when absent), as
   * `first` says (told with it, then `subagent/start` with its title, else
   * `label`, as its label); `undefined` once `max` are followed or the run
   * ended (the caller logs it). `key` must be new.
   */
  add(
    key: string,
    parent: NestedRun | undefined,
    first: NestedRunChange,
    label?: string,
  ): NestedRun | undefined {
    const { runId, place, max = 256 } = this.#options;
    if (!this.#open || this.#runs.size >= max) return undefined;
    const run: Entry = {
      runId: `${runId}.${this.#runs.size + 1}`,
      key,
      parentRunId: parent?.runId ?? runId,
      depth: (parent?.depth ?? place?.depth ?? 1) + 1,
      title: undefined,
      state: undefined,
      usage: { inputTokens: 0, outputTokens: 0, toolCalls: 0 },
      cancellable: false,
      ended: false,
    };
    this.#runs.set(key, run);
    this.#followed.set(run, {
      label,
      since: performance.now(),
      unregister: undefined,
      cancel: undefined,
    });
    this.#apply(run, first);
    this.#tell(run);
    const scope = this.#options.scope;
    if (scope.hasListeners(subagentStart)) scope.emit(subagentStart, this.#info(run));
    return run;
  }

  /** Apply `change` to `run`, told when something changed; whether it did (never after its end). */
  update(run: NestedRun, change: NestedRunChange): boolean {
    if (run.ended || !this.#apply(run as Entry, change)) return false;
    this.#tell(run);
    return true;
  }

  /** `run` ended `stopReason`: its canceller removed, then `subagent/end` with what it used. */
  end(run: NestedRun, stopReason: SubagentStopReason): void {
    if (run.ended) return;
    const followed = this.#followed.get(run)!;
    followed.unregister?.();
    (run as Entry).ended = true;
    this.#tell(run);
    const scope = this.#options.scope;
    if (!scope.hasListeners(subagentEnd)) return;
    const durationMs = Math.max(0, performance.now() - followed.since);
    const figures = { ...run.usage, cachedInputTokens: 0, modelCalls: 0, wallTimeMs: durationMs };
    scope.emit(
      subagentEnd,
      deepFreeze({
        ...this.#info(run),
        usage: { self: figures, total: figures, partial: true },
        stopReason,
        durationMs,
      }),
    );
  }

  /**
   * The run ended `stopReason`: each nested run still open ends —
   * `completed` when last idle (or never said), `error` when last
   * `"failed"`, else `stopReason` (`aborted` for a completion: the run ended
   * with it still at work) — and none is added after.
   */
  endAll(stopReason: SubagentStopReason): void {
    this.#open = false;
    for (const run of this.#runs.values()) {
      this.end(
        run,
        run.state === undefined || run.state === "idle"
          ? "completed"
          : run.state === "failed"
          ? "error"
          : stopReason === "completed"
          ? "aborted"
          : stopReason,
      );
    }
  }

  /** `change` applied; whether it changed anything. */
  #apply(run: Entry, change: NestedRunChange): boolean {
    const before = JSON.stringify(run);
    if (change.title !== undefined) run.title = change.title ?? undefined;
    if (change.state !== undefined) run.state = change.state ?? undefined;
    if (change.usage) run.usage = { ...run.usage, ...change.usage };
    const followed = this.#followed.get(run)!;
    const cancel = change.cancel;
    if (cancel !== undefined && cancel !== followed.cancel) {
      followed.unregister?.();
      followed.unregister = cancel
        ? registerRunControl(this.#options.scope, run.runId, cancel)
        : undefined;
      followed.cancel = cancel ?? undefined;
    }
    run.cancellable = followed.unregister !== undefined;
    return JSON.stringify(run) !== before;
  }

  #info(run: NestedRun): SubagentRunInfo {
    const label = run.title ?? this.#followed.get(run)!.label;
    return deepFreeze({
      provider: this.#options.provider,
      parentRunId: run.parentRunId,
      depth: run.depth,
      ...(label === undefined ? {} : { label }),
      runId: run.runId,
      parentId: run.parentRunId,
      prompt: [],
      inheritsParentContext: false,
    });
  }

  /** `run` as it is now: {@linkcode subagentNestedRun} while open, and the deprecated `acp/child`. */
  #tell(run: NestedRun): void {
    const { scope, provider, runId: rootRunId } = this.#options;
    const info = nestedInfo({ ...run, provider });
    if (!run.ended && scope.hasListeners(subagentNestedRun)) {
      scope.emit(subagentNestedRun, deepFreeze(info));
    }
    if (!scope.hasListeners(legacy)) return;
    const told = deepFreeze({
      ...info,
      rootRunId,
      sessionId: run.key,
      usage: { contextTokens: info.usage.inputTokens, toolCalls: info.usage.toolCalls },
      ended: run.ended,
    });
    derived.add(told);
    scope.emit(legacy, told);
  }
}

/**
 * Listen for {@linkcode subagentNestedRun} on `scope` (and below), and for
 * the deprecated `acp/child` a provider tells that predates it (heard as
 * the same, its usage's `contextTokens` as `inputTokens`; its end, as for
 * any run, by `subagent/end`). Returns what removes the listeners.
 */
export function onSubagentNestedRun(
  scope: Scope,
  listener: (info: SubagentNestedRunInfo) => void,
): () => Promise<void> {
  const offs = [
    scope.on(subagentNestedRun, listener),
    scope.on(legacy, (info) => {
      if (derived.has(info) || info.ended || typeof info?.runId !== "string") return;
      listener(nestedInfo({
        provider: "",
        depth: 0,
        ...info,
        cancellable: info.cancellable === true,
        usage: {
          inputTokens: info.usage?.contextTokens ?? 0,
          outputTokens: 0,
          toolCalls: info.usage?.toolCalls ?? 0,
        },
      }));
    }),
  ];
  return () => Promise.all(offs.map((off) => off())).then(() => {});
}

/** The event's payload of these fields, and no other (an unknown title or state left out). */
function nestedInfo(
  { runId, parentRunId, provider, depth, title, state, usage, cancellable }:
    & Omit<SubagentNestedRunInfo, "title" | "state">
    & { readonly title?: string; readonly state?: string },
): SubagentNestedRunInfo {
  return {
    runId,
    parentRunId,
    provider,
    depth,
    ...(title === undefined ? {} : { title }),
    ...(state === undefined ? {} : { state }),
    usage: { ...usage },
    cancellable,
  };
}
