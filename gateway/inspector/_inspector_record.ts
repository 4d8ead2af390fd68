/**
 * What the run inspector keeps: per principal, its tasks and the runs below
 * each (heard as `subagent/start`, `subagent/progress` and `subagent/end` in
 * the task's own scope), every collection bounded, and the pages that follow
 * them as event streams. Made only when the inspector is on.
 *
 * Past the overall bounds (runs and text of all principals together) the
 * oldest ended tasks make room, wherever they are; a live task is never
 * dropped for them: its new runs are counted instead, its text stops growing.
 */
import type { JsonValue, Scope } from "@seam/host";
import {
  subagentEnd,
  type SubagentInputRequest,
  subagentProgress,
  type SubagentRunPlace,
  subagentStart,
} from "@seam/subagent";
import { tooMany } from "../core/_errors.ts";
import { InspectorBatches, ownText } from "./_inspector_batch.ts";
import type { LiveTask } from "../core/_live_task.ts";
import type { InspectorLimits } from "../http/_options.ts";
import { type StreamEvent, type StreamFraming, TaskSubscriber } from "../http/_sse.ts";
import type { TaskContextRecord } from "../core/_task_start.ts";
import { stringify } from "../core/_builtins.ts";
import { taskTitle } from "./_inspector_list.ts";

/** One run as the page shows it. */
export interface InspectedRun {
  readonly runId: string;
  readonly taskId: string;
  parentRunId: string | undefined;
  depth: number | undefined;
  provider: string | undefined;
  label: string | undefined;
  /** `running`, or the stop reason it ended with. */
  status: string;
  readonly startedAt: number;
  endedAt: number | undefined;
  /** The newest `maxTextPerRun` characters it streamed. */
  text: string;
  /** Whether older text was dropped. */
  clipped: boolean;
  toolCalls: number;
  lastTool: string | undefined;
  /** Where it runs when it went over A2A: the remote agent and its task there. */
  remote: { url: string | undefined; agentName: string; taskId: string } | undefined;
  usage: JsonValue | undefined;
  budget: JsonValue | undefined;
  error: { code: string; message: string } | undefined;
  /** When it waited for an answer (`until` undefined: it waits now), the first `MAX_WAITS`. */
  waits: { from: number; until: number | undefined }[];
}

/** How many waits for input of one run are kept (the timeline shows these). */
export const MAX_WAITS = 20;

/** A pending input request, as the page shows it. */
export interface InspectedInput {
  readonly id: string;
  readonly runId: string;
  readonly kind: string;
  readonly message: string;
  readonly tool: string | undefined;
  readonly options: readonly { id: string; label: string; kind: string }[] | undefined;
}

/** One task as the page shows it. */
export interface InspectedTask {
  readonly id: string;
  readonly contextId: string;
  readonly provider: string;
  state: string;
  readonly createdAt: number;
  updatedAt: number;
  rootRunId: string;
  statusText: string | undefined;
  inputs: InspectedInput[];
  /** Where the caller sits when it came over A2A from another seam run (the seam extension). */
  readonly from: { readonly depth: number; readonly path: readonly string[] } | undefined;
  /** Runs beyond `maxRunsPerTask`, counted but not kept. */
  runsDropped: number;
  /** The budget the task's run started under (the seam extension's), if any. */
  budget: JsonValue | undefined;
  /** The first words of its first prompt (`taskTitle`), once the task is made. */
  title?: string;
}

interface TaskEntry {
  readonly task: InspectedTask;
  readonly runs: Map<string, InspectedRun>;
  /** Whether the task is in a final state (only these make room overall). */
  ended: boolean;
}

/** One principal's tasks (oldest first) and open pages. */
interface PrincipalEntry {
  readonly tasks: Map<string, TaskEntry>;
  readonly streams: Set<TaskSubscriber>;
  /** How many of `tasks` have ended (a principal with none is passed over when making room). */
  ended: number;
}

/** Events go to a page as bare JSON, one per SSE `data:` line. */
const FRAMING: StreamFraming = {
  event: (event) => stringify(event),
  error: (error) => stringify({ type: "error", message: error.message }),
};

/** The run inspector's memory (see the module doc). */
export class InspectorRecord {
  readonly #principals = new Map<string | undefined, PrincipalEntry>();
  /** Each watched task context's caller path. */
  readonly #paths = new WeakMap<TaskContextRecord, readonly string[]>();
  /** Tasks heard of whose start has not been confirmed by `taskChanged`. */
  readonly #unconfirmed = new WeakSet<InspectedTask>();
  readonly #limits: InspectorLimits;
  readonly #maxBufferedBytes: number;
  readonly #batches = new InspectorBatches((owner) => this.#principals.get(owner)?.streams);
  /** Runs kept, all principals' (bounded by `maxRuns`). */
  #runs = 0;
  /** Characters of text kept, all runs' (bounded by `maxText`). */
  #text = 0;
  /** Ended tasks kept, all principals' (none: nothing can make room). */
  #ended = 0;

  constructor(limits: InspectorLimits, maxBufferedBytes: number) {
    this.#limits = limits;
    this.#maxBufferedBytes = maxBufferedBytes;
  }

  /** The bounds, for the page (it clips its own copy of the text the same way). */
  get limits(): InspectorLimits {
    return this.#limits;
  }

  /**
   * Hear the runs below a task's scope (called before its first run starts;
   * `path` is the caller's run path, kept current by the starter).
   */
  watch(scope: Scope, context: TaskContextRecord, path: readonly string[]): void {
    const owner = context.principal;
    this.#paths.set(context, path);
    // A start that failed leaves a task nobody will see: forget it with its scope.
    scope.onDispose(() => {
      const entry = this.#principals.get(owner)?.tasks.get(context.taskId);
      if (entry && this.#unconfirmed.has(entry.task)) this.#drop(owner, entry.task.id);
    });
    scope.on(subagentStart, (info) => {
      const run = this.#run(this.#entry(context), info.runId, info, true);
      if (!run) return;
      // The run's own (tightened) budget: event payloads are frozen, kept as they are.
      if (info.budget) run.budget = info.budget as unknown as JsonValue;
      this.#changedRun(owner, run);
    });
    scope.on(subagentProgress, (info) => {
      const entry = this.#entry(context);
      const run = this.#run(entry, info.runId, info);
      if (!run) return;
      if (info.kind === "text" && typeof info.text === "string") {
        this.#append(entry, run, info.text);
        if (this.#listening(owner)) {
          this.#batches.text(owner, run.taskId, run.runId, info.text, run.text.length);
        }
      } else if (info.kind === "remote" && info.remote) {
        const hop = info.remote;
        run.remote = {
          url: typeof hop.url === "string" ? ownText(hop.url, 300, true) : undefined,
          agentName: ownText(String(hop.agentName), 100, true),
          taskId: ownText(String(hop.taskId), 100, true),
        };
        this.#changedRun(owner, run);
      } else if (info.kind === "tool-call") {
        run.toolCalls++;
        run.lastTool = typeof info.name === "string" ? ownText(info.name, 100, true) : undefined;
        this.#changedRun(owner, run);
      }
    });
    scope.on(subagentEnd, (info) => {
      const run = this.#run(this.#entry(context), info.runId, info);
      if (!run) return;
      run.status = info.stopReason;
      run.endedAt = run.startedAt + info.durationMs;
      // Event payloads are deeply frozen: kept as they are, never copied.
      run.usage = info.usage as unknown as JsonValue;
      const extra = info as unknown as { budget?: unknown; result?: { budget?: unknown } };
      run.budget = jsonObject(extra.budget ?? extra.result?.budget);
      if (info.error) {
        run.error = { code: info.error.code, message: ownText(info.error.message, 500, true) };
      }
      this.#changedRun(owner, run);
    });
  }

  /**
   * A task was created (with the budget its run started under, if any), or
   * changed state (its pending requests with it).
   */
  taskChanged(live: LiveTask, budget?: unknown): void {
    const record = live.record;
    const t = record.task;
    const entry = this.#entry(live.chain.context, t.id);
    const task = entry.task;
    this.#unconfirmed.delete(task);
    if (budget !== undefined) task.budget = jsonObject(budget);
    task.state = t.status.state;
    const ended = isEnded(task.state);
    if (ended !== entry.ended) {
      const principal = this.#principals.get(live.chain.context.principal);
      const step = ended ? 1 : -1;
      entry.ended = ended;
      if (principal) principal.ended += step;
      this.#ended += step;
    }
    task.updatedAt = record.updatedAt;
    task.rootRunId = live.run.id;
    const status = t.status.message?.parts.find((p) => typeof p.text === "string")?.text;
    task.statusText = status === undefined ? undefined : ownText(status, 1_000, true);
    task.inputs = live.phase === "interrupted" ? live.waitingInputs.map(inputView) : [];
    task.title ??= taskTitle(t);
    for (const run of markWaits(entry.runs, task.inputs)) this.#changedRun(record.owner, run);
    if (this.#listening(record.owner)) {
      this.#batches.put(record.owner, `t:${task.id}`, () => ({ type: "task", task }));
    }
  }

  /** Everything `principal` may see now. */
  snapshot(principal: string | undefined): StreamEvent {
    const entry = this.#principals.get(principal);
    const tasks: InspectedTask[] = [];
    const runs: InspectedRun[] = [];
    let text = 0;
    for (const { task, runs: own } of entry?.tasks.values() ?? []) {
      tasks.push(task);
      for (const run of own.values()) {
        runs.push(run);
        text += run.text.length;
      }
    }
    // One frame, so within the stream's bound: past half of it, each run's text
    // shares what is left (its newest part, marked clipped).
    const room = Math.floor(this.#maxBufferedBytes / 2);
    const share = Math.max(256, Math.floor(room / Math.max(1, runs.length)));
    const shown = text <= room
      ? runs
      : runs.map((run) =>
        run.text.length <= share
          ? run
          : { ...run, text: run.text.slice(run.text.length - share), clipped: true }
      );
    // The server's clock, so a page elsewhere counts elapsed time without its own clock's skew.
    return { type: "snapshot", now: Date.now(), tasks, runs: shown, limits: this.#limits };
  }

  /** The runs of one of `principal`'s tasks, if it kept them. */
  runsOf(principal: string | undefined, taskId: string): InspectedRun[] | undefined {
    const entry = this.#principals.get(principal)?.tasks.get(taskId);
    return entry ? [...entry.runs.values()] : undefined;
  }

  /**
   * A page's event stream: the snapshot first, then every change.
   *
   * @throws {GatewayError} 429 beyond `maxStreamsPerPrincipal`.
   */
  subscribe(principal: string | undefined): TaskSubscriber {
    const entry = this.#principal(principal);
    if (entry.streams.size >= this.#limits.maxStreamsPerPrincipal) {
      throw tooMany(
        `Too many inspector pages: ${entry.streams.size} are open for this principal (the limit is ${this.#limits.maxStreamsPerPrincipal}); close one`,
        "TOO_MANY_SUBSCRIBERS",
      );
    }
    // The open pages hear what waits first: the snapshot already holds it.
    this.#batches.flush(principal);
    const stream = new TaskSubscriber(FRAMING, this.#maxBufferedBytes);
    stream.deliver(this.snapshot(principal), false);
    if (stream.open) {
      entry.streams.add(stream);
      stream.onClose = () => entry.streams.delete(stream);
    }
    return stream;
  }

  /** End every page's stream (the gateway is closing). */
  close(): void {
    this.#batches.close();
    for (const entry of this.#principals.values()) {
      for (const stream of [...entry.streams]) stream.end();
    }
  }

  #principal(principal: string | undefined): PrincipalEntry {
    let entry = this.#principals.get(principal);
    if (entry) {
      // Most recently active last: the first is the one to evict.
      this.#principals.delete(principal);
    } else {
      entry = { tasks: new Map(), streams: new Set(), ended: 0 };
      if (this.#principals.size >= this.#limits.maxPrincipals) this.#evictPrincipal();
    }
    this.#principals.set(principal, entry);
    return entry;
  }

  /**
   * Make room for one more principal: the least recently active without an
   * open page goes, else the least recently active (its pages' streams end;
   * a page reconnects and starts from a new snapshot).
   */
  #evictPrincipal(): void {
    let victim: string | undefined;
    let found = false;
    for (const [key, entry] of this.#principals) {
      if (entry.streams.size === 0) {
        victim = key;
        found = true;
        break;
      }
    }
    if (!found) {
      const first = this.#principals.entries().next();
      if (first.done) return;
      victim = first.value[0];
      for (const stream of [...first.value[1].streams]) stream.end();
    }
    for (const entry of this.#principals.get(victim)?.tasks.values() ?? []) this.#forget(entry);
    this.#principals.delete(victim);
  }

  #admitTask(owner: string | undefined, principal: PrincipalEntry, entry: TaskEntry): void {
    const tasks = principal.tasks;
    if (tasks.size >= this.#limits.maxTasksPerPrincipal) {
      // The oldest ended task goes first; when none has ended, the oldest.
      let victim: string | undefined;
      for (const [id, e] of tasks) {
        if (e.ended) {
          victim = id;
          break;
        }
      }
      victim ??= tasks.keys().next().value;
      if (victim !== undefined) this.#drop(owner, victim);
    }
    tasks.set(entry.task.id, entry);
  }

  #drop(owner: string | undefined, taskId: string): void {
    const principal = this.#principals.get(owner);
    const entry = principal?.tasks.get(taskId);
    if (!principal || !entry) return;
    principal.tasks.delete(taskId);
    if (entry.ended) principal.ended--;
    this.#forget(entry);
    if (principal.streams.size > 0) {
      this.#batches.put(owner, `d:${taskId}`, () => ({ type: "drop", taskId }));
    }
  }

  /** A task is no longer kept: what it held leaves the overall counts. */
  #forget(entry: TaskEntry): void {
    this.#runs -= entry.runs.size;
    for (const run of entry.runs.values()) this.#text -= run.text.length;
    if (entry.ended) this.#ended--;
  }

  /**
   * Make room overall for `runs` more runs and `text` more characters: the
   * oldest ended task goes, of the least recently active principal without
   * an open page, else of one with (its pages hear the drop), until both fit
   * or no ended task but `growing` (the task that asks) is left. A live task
   * never goes: the caller keeps what still fits.
   */
  #makeRoom(runs: number, text: number, growing: TaskEntry): void {
    const { maxRuns, maxText } = this.#limits;
    while (this.#ended > 0 && (this.#runs + runs > maxRuns || this.#text + text > maxText)) {
      const victim = oldestEnded(this.#principals, growing);
      if (!victim) return;
      this.#drop(victim[0], victim[1]);
    }
  }

  /**
   * The entry of the context's current task (or of `taskId`), made on first
   * sight: a run's first event may come before its task is made.
   */
  #entry(context: TaskContextRecord, taskId = context.taskId): TaskEntry {
    const owner = context.principal;
    const known = this.#principals.get(owner)?.tasks.get(taskId);
    if (known) return known;
    const path = this.#paths.get(context);
    const principal = this.#principal(owner);
    const now = Date.now();
    const entry: TaskEntry = {
      task: {
        id: taskId,
        contextId: context.contextId,
        provider: context.provider,
        state: "TASK_STATE_SUBMITTED",
        createdAt: now,
        updatedAt: now,
        rootRunId: "",
        statusText: undefined,
        inputs: [],
        from: context.depth > 0 || (path && path.length > 0)
          ? { depth: context.depth, path: [...(path ?? [])] }
          : undefined,
        runsDropped: 0,
        budget: undefined,
      },
      runs: new Map(),
      ended: false,
    };
    this.#unconfirmed.add(entry.task);
    this.#admitTask(owner, principal, entry);
    return entry;
  }

  /**
   * The run `runId` of a task, made by its first event (a run's text may
   * come before its start is heard). One turned away at a cap is counted in
   * `runsDropped` by its start only, so once.
   */
  #run(
    entry: TaskEntry,
    runId: string,
    place: Partial<SubagentRunPlace>,
    starting = false,
  ): InspectedRun | undefined {
    let run = entry.runs.get(runId);
    if (!run) {
      if (entry.runs.size >= this.#limits.maxRunsPerTask) {
        if (starting) entry.task.runsDropped++;
        return undefined;
      }
      if (this.#runs >= this.#limits.maxRuns) {
        this.#makeRoom(1, 0, entry);
        if (this.#runs >= this.#limits.maxRuns) {
          if (starting) entry.task.runsDropped++;
          return undefined;
        }
      }
      run = {
        runId,
        taskId: entry.task.id,
        parentRunId: undefined,
        depth: undefined,
        provider: undefined,
        label: undefined,
        status: "running",
        startedAt: Date.now(),
        endedAt: undefined,
        text: "",
        clipped: false,
        toolCalls: 0,
        lastTool: undefined,
        remote: undefined,
        usage: undefined,
        budget: undefined,
        error: undefined,
        waits: [],
      };
      entry.runs.set(runId, run);
      this.#runs++;
    }
    run.parentRunId ??= place.parentRunId;
    run.depth ??= place.depth;
    run.provider ??= place.provider;
    run.label ??= place.label;
    return run;
  }

  #append(entry: TaskEntry, run: InspectedRun, text: string): void {
    const max = this.#limits.maxTextPerRun;
    // A huge piece is cut before it is joined: only its tail can stay.
    const piece = text.length > max ? text.slice(text.length - max) : text;
    const had = run.text.length;
    let keep = Math.min(max, had + piece.length);
    if (this.#text + keep - had > this.#limits.maxText) {
      this.#makeRoom(0, keep - had, entry);
      // Only live tasks left to make room: the run keeps its newest characters, no more of them.
      keep = Math.min(keep, had + this.#limits.maxText - this.#text);
    }
    const next = run.text + piece;
    if (next.length > keep || piece !== text) {
      run.text = ownText(next, keep);
      run.clipped = true;
    } else run.text = next;
    this.#text += run.text.length - had;
  }

  /** Whether a page of `owner` is open (events are built only then). */
  #listening(owner: string | undefined): boolean {
    return (this.#principals.get(owner)?.streams.size ?? 0) > 0;
  }

  /** A run changed: the pages hear it as it is at the next flush, without its text (they have the pieces). */
  #changedRun(owner: string | undefined, run: InspectedRun): void {
    if (this.#listening(owner)) {
      this.#batches.put(owner, `r:${run.runId}`, () => ({ type: "run", run: withoutText(run) }));
    }
  }
}

/** The owner and id of the first task `InspectorRecord#makeRoom` may drop. */
function oldestEnded(
  principals: ReadonlyMap<string | undefined, PrincipalEntry>,
  growing: TaskEntry,
): [string | undefined, string] | undefined {
  for (const paged of [false, true]) {
    for (const [owner, principal] of principals) {
      if (principal.ended === 0 || (principal.streams.size > 0) !== paged) continue;
      for (const [id, entry] of principal.tasks) {
        if (entry.ended && entry !== growing) return [owner, id];
      }
    }
  }
  return undefined;
}

function isEnded(state: string): boolean {
  return /COMPLETED|CANCELED|FAILED|REJECTED/.test(state);
}

/** A run without its text (the page has the text from the deltas and the snapshot). */
function withoutText(run: InspectedRun): Omit<InspectedRun, "text"> {
  const { text: _, ...rest } = run;
  return rest;
}

/** A budget as a run reports it (an object), else nothing. */
function jsonObject(value: unknown): JsonValue | undefined {
  return value !== null && typeof value === "object" ? value as JsonValue : undefined;
}

function inputView(request: SubagentInputRequest): InspectedInput {
  return {
    id: request.id,
    runId: request.runId,
    kind: request.kind,
    message: ownText(request.message, 2_000, true),
    tool: request.toolCall ? (request.toolCall.title ?? request.toolCall.name) : undefined,
    options: request.options?.map((o) => ({ id: o.id, label: o.label, kind: o.kind })),
  };
}

/**
 * Open a wait on each run that asks now, close it on each that no longer
 * does; the runs whose waits changed.
 */
function markWaits(
  runs: ReadonlyMap<string, InspectedRun>,
  inputs: InspectedInput[],
): InspectedRun[] {
  const asking = new Set(inputs.map((input) => input.runId));
  const now = Date.now();
  const changed: InspectedRun[] = [];
  for (const run of runs.values()) {
    const last = run.waits.at(-1);
    const open = last !== undefined && last.until === undefined;
    if (asking.has(run.runId) && !open && run.waits.length < MAX_WAITS) {
      run.waits.push({ from: now, until: undefined });
      changed.push(run);
    } else if (!asking.has(run.runId) && open) {
      last.until = now;
      changed.push(run);
    }
  }
  return changed;
}
