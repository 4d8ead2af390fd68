/**
 * One task's descendants, told to the clients that activated the seam
 * extension: every run below the task's own run (in-process children, an
 * ACP agent's child sessions, a remote's descendants an A2A provider
 * reports, at any depth), heard in the task's scope, and sent as status
 * updates of the task whose seam metadata carries `descendants`: each one's
 * run id, parent run id (omitted under the task's own run), provider, title,
 * state (`running`, `idle`, `needs-action`, `ended` with its `stopReason`),
 * usage, and whether it may be cancelled by id (a `CancelTask` naming it).
 *
 * Bounded: at most {@linkcode MAX_DESCENDANTS} per task (the rest are not
 * told, counted in `dropped`, and one warning is logged); changes are
 * gathered and sent at most every {@linkcode TREE_INTERVAL_MS}, at most
 * {@linkcode MAX_PER_UPDATE} per update; every string is cut. Only this
 * instance's streams hear them (a shared store's other instances do not).
 */
import type { Logger, Scope } from "@seam/host";
import {
  findRunControl,
  onSubagentNestedRun,
  subagentEnd,
  subagentInputRequired,
  subagentInputResolved,
  type SubagentNestedRunInfo,
  subagentProgress,
  type SubagentRunInfo,
  subagentStart,
  type SubagentStopReason,
  type SubagentUsageFigures,
} from "@seam/subagent";
import type { LiveTask } from "../core/_live_task.ts";
import type { StreamEvent, TaskSubscriber } from "../http/_sse.ts";
import { type A2AMetadata, SEAM_EXTENSION_URI } from "../types.ts";

/** The most descendants told per task. */
export const MAX_DESCENDANTS = 256;
/** The most descendants one update carries (the rest go in the next). */
export const MAX_PER_UPDATE = 64;
/** The shortest time between two updates of one task, in ms. */
export const TREE_INTERVAL_MS = 100;
/** The most descendants not told that are counted (`dropped` says at least this many past it). */
const MAX_DROPPED = 4096;

/** A descendant's state, as the seam extension words it. */
export type DescendantState = "running" | "idle" | "needs-action" | "ended";

/** One descendant as the seam extension sends it. */
export interface DescendantView {
  readonly runId: string;
  /** The run above it; absent when that is the task's own run. */
  readonly parentRunId?: string;
  readonly provider?: string;
  readonly title?: string;
  readonly state: DescendantState;
  /** How it ended (with `state: "ended"`). */
  readonly stopReason?: SubagentStopReason;
  readonly usage?: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly toolCalls: number;
  };
  /** Whether a `CancelTask` naming it ends it (and its subtree). */
  readonly cancellable?: true;
}

interface Entry {
  readonly runId: string;
  /** The run above, or `undefined` under the task's own run. */
  readonly parentRunId: string | undefined;
  provider: string | undefined;
  title: string | undefined;
  state: DescendantState;
  stopReason: SubagentStopReason | undefined;
  usage: DescendantView["usage"];
  /** Whether it may be cancelled, as its provider last said; unknown: ask `findRunControl`. */
  cancellable?: boolean;
}

const cut = (text: unknown, max: number): string | undefined =>
  typeof text === "string" ? text.slice(0, max) : undefined;

/** A usage figure as sent: a whole count from 0, else 0. */
const count = (n: unknown): number =>
  typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : 0;

/** The tree of one live task (see the module doc). */
export class DescendantTree {
  readonly #task: LiveTask;
  readonly #scope: Scope;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry>();
  /** Changed since the last update, in order. */
  readonly #dirty = new Set<Entry>();
  /** The seam subscribers already sent the whole tree. */
  readonly #told = new WeakSet<TaskSubscriber>();
  readonly #offs: (() => Promise<void>)[] = [];
  /** The descendants not told (past the bound, or below one not told), up to {@linkcode MAX_DROPPED}. */
  readonly #dropped = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #last = 0;
  #state: "following" | "stopped" = "following";

  constructor(task: LiveTask, logger: Logger) {
    this.#task = task;
    this.#scope = task.chain.context.scope;
    this.#logger = logger;
    const scope = this.#scope;
    this.#offs.push(
      scope.on(subagentStart, (info) => this.#started(info)),
      scope.on(subagentProgress, (info) => {
        const entry = this.#ensure(info.runId, info.parentRunId, info.provider);
        if (entry && entry.state !== "running" && entry.state !== "ended") {
          this.#set(entry, "running");
        }
      }),
      scope.on(subagentEnd, (info) => {
        const entry = this.#ensure(info.runId, info.parentRunId, info.provider);
        if (!entry || entry.state === "ended") return;
        entry.stopReason = info.stopReason;
        entry.usage = figures(info.usage.total);
        this.#set(entry, "ended");
      }),
      scope.on(subagentInputRequired, (request) => {
        const entry = this.#ensure(request.runId, request.path.at(-2));
        if (entry && entry.state !== "ended") this.#set(entry, "needs-action");
      }),
      scope.on(subagentInputResolved, ({ request }) => {
        const entry = this.#entries.get(request.runId);
        if (entry?.state === "needs-action") this.#set(entry, "running");
      }),
      onSubagentNestedRun(scope, (info) => this.#nested(info)),
    );
  }

  /** Whether `runId` is a live descendant told here. */
  isLive(runId: string): boolean {
    const entry = this.#entries.get(runId);
    return entry !== undefined && entry.state !== "ended";
  }

  /** The task ends: send what changed (before its final state), and hear nothing more. */
  stop(): void {
    if (this.#state === "stopped") return;
    do this.#flush(); while (this.#dirty.size > 0);
    this.#state = "stopped";
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const off of this.#offs.splice(0)) off().catch(() => {});
  }

  #started(info: SubagentRunInfo): void {
    const entry = this.#ensure(info.runId, info.parentRunId, info.provider);
    if (!entry) return;
    const title = cut(info.label, 200);
    // A nested run is told (`#nested`) just before its start, which names its provider.
    const provider = entry.provider ?? cut(info.provider, 64);
    if ((title !== undefined && title !== entry.title) || provider !== entry.provider) {
      entry.title = title ?? entry.title;
      entry.provider = provider;
      this.#mark(entry);
    }
  }

  /** A nested run's state (its end is told by its `subagent/end`, with how it ended). */
  #nested(info: SubagentNestedRunInfo): void {
    const entry = this.#ensure(info.runId, info.parentRunId);
    if (!entry || entry.state === "ended") return;
    const title = cut(info.title, 200) ?? entry.title;
    const usage = figures(info.usage);
    if (info.cancellable !== entry.cancellable) {
      entry.cancellable = info.cancellable;
      this.#mark(entry);
    }
    const state = info.state === "needs-action" || info.state === "idle" ||
        info.state === "running"
      ? info.state
      : entry.state;
    if (
      title === entry.title && state === entry.state &&
      JSON.stringify(usage) === JSON.stringify(entry.usage)
    ) return;
    entry.title = title;
    entry.usage = usage;
    this.#set(entry, state);
  }

  /** The descendant `runId`, told from now on when new; `undefined` for the task's own runs and past the bound. */
  #ensure(
    runId: string,
    parentRunId: string | undefined,
    provider?: string,
  ): Entry | undefined {
    const known = this.#entries.get(runId);
    if (known || this.#state === "stopped") return known;
    const own = this.#task.run.id;
    if (runId === own || typeof runId !== "string" || parentRunId === undefined) return undefined;
    // Only runs below the task's own run; below one not told (past the bound), none.
    const under = parentRunId === own ? undefined : this.#entries.get(parentRunId);
    if (parentRunId !== own && !under) {
      if (this.#dropped.has(parentRunId)) this.#drop(runId);
      return undefined;
    }
    if (this.#entries.size >= MAX_DESCENDANTS) {
      this.#drop(runId);
      return undefined;
    }
    const entry: Entry = {
      runId: runId.slice(0, 256),
      parentRunId: under?.runId,
      provider: cut(provider, 64),
      title: undefined,
      state: "running",
      stopReason: undefined,
      usage: undefined,
    };
    this.#entries.set(runId, entry);
    this.#mark(entry);
    return entry;
  }

  /** Not told: counted (and warned of, once). */
  #drop(runId: string): void {
    if (this.#dropped.size === 0) {
      this.#logger.warn(
        `Task "${this.#task.record.task.id}" has more than ${MAX_DESCENDANTS} descendants: its clients are told of the first ones only (said once)`,
      );
    }
    if (this.#dropped.size < MAX_DROPPED) this.#dropped.add(runId);
  }

  #set(entry: Entry, state: DescendantState): void {
    entry.state = state;
    this.#mark(entry);
  }

  /** `entry` changed: send it with the next update. */
  #mark(entry: Entry): void {
    if (this.#state === "stopped") return;
    this.#dirty.add(entry);
    this.#schedule();
  }

  /** The next update, at most {@linkcode TREE_INTERVAL_MS} after the last. */
  #schedule(): void {
    if (this.#timer !== undefined) return;
    const wait = Math.max(0, this.#last + TREE_INTERVAL_MS - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
      if (this.#dirty.size > 0) this.#schedule();
    }, wait);
  }

  /** One update to each seam subscriber: what changed, or the whole tree to one not told yet. */
  #flush(): void {
    this.#last = performance.now();
    const changed = [...this.#dirty].slice(0, MAX_PER_UPDATE);
    for (const entry of changed) this.#dirty.delete(entry);
    let delta: StreamEvent | undefined;
    for (const subscriber of this.#task.subscribers) {
      if (!subscriber.seam || !subscriber.open) continue;
      if (this.#told.has(subscriber)) {
        if (changed.length > 0) this.#deliver(subscriber, delta ??= this.#event(changed));
        continue;
      }
      this.#told.add(subscriber);
      const all = [...this.#entries.values()];
      for (let i = 0; i < all.length; i += MAX_PER_UPDATE) {
        this.#deliver(subscriber, this.#event(all.slice(i, i + MAX_PER_UPDATE)));
      }
    }
  }

  /** A status update of the task carrying `entries` (and no word of the task itself). */
  #event(entries: readonly Entry[]): StreamEvent {
    const t = this.#task.record.task;
    const seam: Record<string, unknown> = { descendants: entries.map((e) => this.#view(e)) };
    if (this.#dropped.size > 0) seam.dropped = this.#dropped.size;
    return {
      statusUpdate: {
        taskId: t.id,
        contextId: t.contextId,
        status: { state: t.status.state, timestamp: t.status.timestamp },
        metadata: { [SEAM_EXTENSION_URI]: seam } as A2AMetadata,
      },
    };
  }

  #deliver(subscriber: TaskSubscriber, event: StreamEvent): void {
    try {
      subscriber.deliver(event, false);
    } catch (error) {
      this.#logger.error("A task subscriber threw", error);
    }
  }

  #view(entry: Entry): DescendantView {
    const view: Record<string, unknown> = { runId: entry.runId, state: entry.state };
    if (entry.parentRunId !== undefined) view.parentRunId = entry.parentRunId;
    if (entry.provider !== undefined) view.provider = entry.provider;
    if (entry.title !== undefined) view.title = entry.title;
    if (entry.stopReason !== undefined) view.stopReason = entry.stopReason;
    if (entry.usage !== undefined) view.usage = entry.usage;
    if (
      entry.state !== "ended" &&
      (entry.cancellable ?? findRunControl(this.#scope, entry.runId) !== undefined)
    ) {
      view.cancellable = true;
    }
    return view as unknown as DescendantView;
  }
}

function figures(
  total: Pick<SubagentUsageFigures, "inputTokens" | "outputTokens" | "toolCalls">,
): DescendantView["usage"] {
  return {
    inputTokens: count(total.inputTokens),
    outputTokens: count(total.outputTokens),
    toolCalls: count(total.toolCalls),
  };
}
