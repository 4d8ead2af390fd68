import { type ContentBlock, type ContentInput, describe, jsonCopy, type Scope } from "@seam/host";
import type { SubagentInputAnswer } from "./input.ts";
import { cancelOnAbort } from "./abort.ts";
import { cannot } from "./_invalid.ts";
import { subagentEnd, subagentStart } from "./events.ts";
import { acceptContent } from "./_content.ts";
import { contractFault, normalizeResult } from "./_result.ts";
import type { SubagentContractError } from "./errors.ts";
import { addBelow, type RunNode, unknownUsage, type UsageBelow } from "./_usage.ts";
import type { BudgetLedger } from "./_budget.ts";
import type {
  OutputSchema,
  RegisteredSubagentProvider,
  SubagentResult,
  SubagentRun,
  SubagentRunInfo,
  SubagentRunPlace,
  SubagentUsage,
} from "./types.ts";
import { failRunSpan, startRunSpan, traceRun, underParent } from "./_trace.ts";
import { freeze } from "./_builtins.ts";

/**
 * A live run as the service's long-lived collections hold it (its
 * registration's runs, the places by run id), emptied when the run is
 * unlinked. They outlive their runs: a run or its record held in them
 * itself was dragged into V8's old generation at the next scavenge with all
 * it references (a gateway's whole task among it), even once deleted
 * (bench/promoted.ts; gateway/_short_lived_map.ts says why).
 */
export interface LiveRunCell {
  run: SubagentRun | undefined;
  node: RunNode | undefined;
  /** The scope its events are emitted on (its parent's). */
  scope: Scope | undefined;
}

/**
 * The places of each service until its scope is disposed: where
 * `findRunControl` (run_control.ts) finds a run to cancel by id, at no cost
 * per run beyond what the service keeps anyway. Added once per service, not
 * per run: a `Set` added to and emptied at every run cost ~330 bytes per
 * spawn run (bench/README.md, session 14).
 */
export const livePlaces: Set<Map<string, LiveRunCell>> = new Set();

/** What a run wrapper needs to know about the run it wraps. */
export interface RunContext {
  readonly provider: RegisteredSubagentProvider;
  /** The live runs of the provider's registration: unloading it ends them. */
  readonly runs: Set<LiveRunCell>;
  readonly parentId: string;
  readonly parentScope: Scope;
  readonly prompt: readonly ContentBlock[];
  readonly outputSchema: OutputSchema | undefined;
  readonly signal: AbortSignal | undefined;
  /** Where the run sits in the tree. */
  readonly place: SubagentRunPlace;
  /** The service's live runs by id: where a run started by one of their children sits. */
  readonly places: Map<string, LiveRunCell>;
  /** The run's budget account, when a budget applies. */
  readonly budget?: BudgetLedger | undefined;
}

type Fn = (...args: unknown[]) => unknown;

const noop = (): void => {};

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (value !== null &&
    (typeof value === "object" || typeof value === "function")) &&
    typeof (value as { then?: unknown }).then === "function";
}

/**
 * Wrap the handle a provider returned into the frozen, read-once run the
 * service hands out. Throws (after starting rollback) for a malformed handle.
 */
export function wrapRun(raw: unknown, context: RunContext): SubagentRun {
  const name = context.provider.name;
  const logger = context.parentScope.logger;
  if (isThenable(raw)) {
    // An async start would leak the run it eventually makes: dispose it.
    Promise.resolve(raw).then((late) => {
      const dispose = (late as { dispose?: unknown } | null)?.dispose;
      if (typeof dispose === "function") {
        return Reflect.apply(dispose, late, []);
      }
    }).catch((error) => logger.error(`Disposing the late run of "${name}" failed`, error));
    throw contractFault(
      name,
      "start() returned a promise; it must return a run synchronously",
    );
  }
  if (raw === null || typeof raw !== "object") {
    throw contractFault(
      name,
      `start() returned ${describe(raw)}, expected a run object`,
    );
  }
  const handle = raw as Record<string, unknown>;
  let rawDispose: unknown;
  try {
    rawDispose = handle.dispose;
  } catch (error) {
    throw contractFault(name, "reading run.dispose threw", error);
  }
  if (typeof rawDispose !== "function") {
    throw malformed(name, "dispose", "a function", rawDispose, "; the child cannot be torn down");
  }
  const record = new RunRecord(handle, rawDispose as Fn, context);

  let id: string;
  let startedValue: unknown;
  let rawResult: unknown;
  let rawCancel: Fn;
  let rawSend: Fn | undefined;
  let rawResume: Fn | undefined;
  let rawRespond: Fn | undefined;
  try {
    const idValue = handle.id;
    if (typeof idValue !== "string" || idValue === "") {
      throw malformed(name, "id", "a non-empty string", idValue);
    }
    id = idValue;
    startedValue = handle.started;
    if (!isThenable(startedValue)) throw malformed(name, "started", "a promise", startedValue);
    rawResult = handle.result;
    if (!isThenable(rawResult)) throw malformed(name, "result", "a promise", rawResult);
    const cancelValue = handle.cancel;
    if (typeof cancelValue !== "function") {
      throw malformed(name, "cancel", "a function", cancelValue);
    }
    rawCancel = cancelValue as Fn;
    rawSend = optionalMethod(handle, "sendMessage", name);
    rawResume = optionalMethod(handle, "resume", name);
    rawRespond = optionalMethod(handle, "respond", name);
    // In the try: wrapping reads the handle's promises too (a `then` or a
    // `constructor` that throws), and a run it could not wrap is rolled back.
    return record.wrap(id, startedValue, rawResult, rawCancel, rawSend, rawResume, rawRespond);
  } catch (error) {
    // Whatever promises were read are the service's now: observe them, so
    // their rejections (the run never becomes a run) are not unhandled.
    // (A promise whose `constructor` throws cannot be observed: skipped.)
    for (const value of [startedValue, rawResult]) {
      try {
        if (isThenable(value)) Promise.resolve(value).catch(noop);
      } catch {
        // Its own fault; the rollback below still runs.
      }
    }
    // Roll back before the fault escapes: the child must not outlive it.
    record.dispose().catch((disposeError) =>
      logger.error(`Rolling back a malformed run of "${name}" failed`, disposeError)
    );
    throw error;
  }
}

/**
 * One wrapped run, its state in fields rather than in closures over
 * `wrapRun` (fewer functions and promises per run: bench/alloc.ts "spawn
 * run" and "gateway `SendMessage`"); also where it sits in the service's
 * tree (a {@linkcode RunNode}, with what its descendants used).
 *
 * `subagent/start` is emitted once `started` fulfilled, `subagent/end` as
 * the result settles (in the handler that settles it, so before the caller
 * hears it), never before start; neither when readiness rejects.
 */
class RunRecord implements RunNode {
  readonly place: SubagentRunPlace;
  readonly budget: BudgetLedger | undefined;
  figures: UsageBelow["figures"];
  partial?: boolean;
  readonly #handle: object;
  readonly #rawDispose: Fn;
  readonly #context: RunContext;
  #id!: string;
  #t0!: number;
  #started!: Promise<void>;
  #result!: Promise<SubagentResult>;
  #release!: () => Promise<void>;
  #claimed: Promise<void> | undefined;
  #calling?: boolean;
  /** Settles the promise handed to a synchronous re-entry of the provider's dispose. */
  #join: ((outcome: Promise<void>) => void) | undefined;
  /** Which opening of the budget this handle is (a resume opens it again). */
  #generation: number | undefined;
  /** Whether `started` fulfilled (then `subagent/start` was emitted). */
  #began?: boolean;
  /** A settlement heard before start: emitted once the run starts. */
  #pendingEnd: SubagentResult | FailedEnd | undefined;
  #info: SubagentRunInfo | undefined;
  #unbindSignal = noop;
  #unlinked?: boolean;
  #released?: boolean;
  readonly #cell: LiveRunCell = { run: undefined, node: undefined, scope: undefined };

  constructor(handle: object, rawDispose: Fn, context: RunContext) {
    this.#handle = handle;
    this.#rawDispose = rawDispose;
    this.#context = context;
    this.place = context.place;
    this.budget = context.budget;
  }

  /** The frozen run handed out, linked to its parent's scope and its provider's registration. */
  wrap(
    id: string,
    started: unknown,
    result: unknown,
    rawCancel: Fn,
    rawSend?: Fn,
    rawResume?: Fn,
    rawRespond?: Fn,
  ): SubagentRun {
    const context = this.#context;
    const handle = this.#handle;
    this.#id = id;
    this.#t0 = Date.now();
    // Its own `started` and `result` follow the handle's.
    const own = this.#started = Promise.resolve(started).then(noop);
    // Both read before the start is heard: a run whose `result` throws as it
    // is read is rolled back, and must never be announced as started.
    this.#result = Promise.resolve(result).then(
      (value) => this.#settle(value),
      (error) => this.#fail(error),
    );
    // The rejection handler (shared) keeps an unobserved `started` rejection from
    // escaping; a settlement kept for the start is then never emitted.
    own.then(() => this.#onStarted(), noop);
    const run: {
      -readonly [K in keyof SubagentRun]: SubagentRun[K];
    } = {
      id,
      provider: context.provider.name,
      started: this.#started,
      result: this.#result,
      cancel: (reason?: string): void => {
        Reflect.apply(rawCancel, handle, reason === undefined ? [] : [reason]);
      },
      dispose: () => this.#disposeRun(),
    };

    // Ownership: disposing the parent's scope reaches this run (the scope
    // calls run.dispose), and so does unloading its provider (through `context.runs`).
    this.#release = context.parentScope.onDispose(run.dispose);
    const signal = context.signal;
    if (signal) {
      this.#unbindSignal = cancelOnAbort(signal, (reason) => {
        try {
          run.cancel(reason);
        } catch (error) {
          context.parentScope.logger.error(
            `Cancelling run "${id}" of "${run.provider}" on abort failed`,
            error,
          );
        }
      }, { defer: true });
    }
    if (this.budget) this.#generation = this.budget.open(id, run.cancel, context.parentScope);
    // Built outside this class: a closure made in a method shares its context.
    if (rawSend) run.sendMessage = sendMessageOf(handle, rawSend);
    if (rawResume) run.resume = resumeOf(handle, rawResume, context);
    if (rawRespond) run.respond = respondOf(handle, rawRespond);
    freeze(run);
    const cell = this.#cell;
    cell.run = run;
    cell.node = this;
    cell.scope = context.parentScope;
    context.runs.add(cell);
    context.places.set(id, cell);
    return run;
  }

  /**
   * The provider's `dispose`, called once and memoized. The call is claimed
   * before provider code runs, so a synchronous re-entry joins it (its
   * promise is made only then) and every repeat answers the same promise.
   */
  dispose(): Promise<void> {
    if (this.#claimed) return this.#claimed;
    if (this.#calling) {
      return this.#claimed = new Promise<void>((resolve) => this.#join = resolve);
    }
    this.#calling = true;
    let outcome: Promise<void>;
    try {
      const returned = Reflect.apply(this.#rawDispose, this.#handle, []);
      outcome = returned !== undefined && returned === this.#claimed
        ? Promise.reject(contractFault(
          this.#context.provider.name,
          "run.dispose() returned the service's own pending disposal (a cyclic disposer)",
        ))
        : isThenable(returned)
        // A promise of `undefined` settled as the provider's (a native one is
        // followed directly: no promise, executor and resolvers of our own).
        ? Promise.resolve(returned).then(noop)
        : Promise.resolve();
    } catch (error) {
      outcome = Promise.reject(error);
    }
    if (!this.#join) return this.#claimed = outcome;
    this.#join(outcome);
    return this.#claimed!;
  }

  /**
   * `run.dispose`, also what the parent's scope calls: unlink the run, drop
   * the scope's link (which calls this again: the repeat joins the same
   * memoized disposal), dispose the handle.
   */
  #disposeRun(): Promise<void> {
    const context = this.#context;
    if (!this.#unlinked) {
      this.#unlinked = true;
      this.budget?.close(this.#generation);
      const cell = this.#cell;
      context.runs.delete(cell);
      if (context.places.get(this.#id) === cell) context.places.delete(this.#id);
      cell.run = cell.node = cell.scope = undefined;
      this.#unbind();
    }
    const disposal = this.dispose();
    if (!this.#released) {
      this.#released = true;
      this.#release();
    }
    return disposal;
  }

  #unbind(): void {
    this.#unbindSignal();
    this.#unbindSignal = noop;
  }

  #onStarted(): void {
    this.#began = true;
    const scope = this.#context.parentScope;
    if (scope.hasListeners(subagentStart)) scope.emit(subagentStart, this.#runInfo());
    if (this.#pendingEnd) this.#emitEnd(this.#pendingEnd);
  }

  #settle(value: unknown): SubagentResult | Promise<SubagentResult> {
    let normalized: SubagentResult;
    const context = this.#context;
    try {
      normalized = normalizeResult(value, context, this.#id, this.#t0, this);
      if (this.budget) normalized = this.budget.settle(normalized, this.#generation);
      // The run's subtree counts towards its parent run's, when that is ours.
      const parentRunId = this.place.parentRunId;
      const above = parentRunId === undefined ? undefined : context.places.get(parentRunId)?.node;
      if (above) addBelow(above, normalized.usage!);
    } catch (error) {
      // Malformed terminal data rejects only once the child is torn down.
      this.#result.catch(noop);
      return this.dispose().then(
        () => this.#fail(error),
        (disposeError) => {
          context.parentScope.logger.error(
            `Disposing run "${this.#id}" of "${context.provider.name}" failed`,
            disposeError,
          );
          return this.#fail(error);
        },
      );
    }
    this.#unbind();
    this.#ended(normalized);
    return normalized;
  }

  /** The result rejects with `error`: the run ended `error`. */
  #fail(error: unknown): never {
    // Observed here (still pending): a rejection nobody awaits is not unhandled.
    this.#result.catch(noop);
    this.#unbind();
    const usage = unknownUsage(Date.now() - this.#t0);
    // Its usage is unknown: the parent run's total lacks it, so it is partial.
    const parentRunId = this.place.parentRunId;
    const above = parentRunId === undefined
      ? undefined
      : this.#context.places.get(parentRunId)?.node;
    if (above) addBelow(above, usage);
    this.#ended({ error, usage });
    this.budget?.close(this.#generation);
    throw error;
  }

  #ended(end: SubagentResult | FailedEnd): void {
    if (this.#began) this.#emitEnd(end);
    else this.#pendingEnd = end;
  }

  #emitEnd(end: SubagentResult | FailedEnd): void {
    const scope = this.#context.parentScope;
    if (!scope.hasListeners(subagentEnd)) return;
    scope.emit(
      subagentEnd,
      freeze({
        ...this.#runInfo(),
        ...("stopReason" in end
          ? {
            result: end,
            stopReason: end.stopReason,
            lastAssistantMessage: end.output,
            ...(end.error !== undefined ? { error: end.error } : {}),
            usage: end.usage!,
          }
          : {
            stopReason: "error" as const,
            error: freeze({
              code: "PROVIDER_FAULT",
              message: end.error instanceof Error ? end.error.message : String(end.error),
            }),
            usage: end.usage,
          }),
        durationMs: Date.now() - this.#t0,
      }),
    );
  }

  #runInfo(): SubagentRunInfo {
    const context = this.#context;
    return this.#info ??= freeze({
      runId: this.#id,
      ...context.place,
      parentId: context.parentId,
      prompt: context.prompt,
      inheritsParentContext: context.provider.inheritsParentContext,
      ...(context.budget ? { budget: context.budget.limits } : {}),
    });
  }
}

/** How a run whose result rejected ended: the rejection, and its usage at that moment. */
interface FailedEnd {
  readonly error: unknown;
  readonly usage: SubagentUsage;
}

/** The handle's optional method `key`, read once; a contract fault if it is not a function. */
function optionalMethod(
  handle: Record<string, unknown>,
  key: string,
  name: string,
): Fn | undefined {
  const value = handle[key];
  if (value !== undefined && typeof value !== "function") {
    throw malformed(name, key, "a function or absent", value);
  }
  return value as Fn | undefined;
}

/** The fault of a handle whose `key` is not `expected`. */
function malformed(
  name: string,
  key: string,
  expected: string,
  value: unknown,
  tail = "",
): SubagentContractError {
  return contractFault(name, `run.${key} must be ${expected}, got ${describe(value)}${tail}`);
}

/** `run.sendMessage`: the content checked and copied, then the provider's. */
function sendMessageOf(handle: object, send: Fn): (content: ContentInput) => Promise<void> {
  return (content) => {
    try {
      const blocks = acceptContent(content, "content");
      return Promise.resolve(Reflect.apply(send, handle, [blocks])).then(noop);
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/** `run.respond`: the answer copied (plain JSON, read once), then the provider's check and answer. */
function respondOf(
  handle: object,
  respond: Fn,
): (requestId: string, answer: SubagentInputAnswer) => void {
  return (requestId, answer) => {
    if (typeof requestId !== "string" || requestId === "") {
      cannot("answer an input request", "requestId must be a non-empty string");
    }
    Reflect.apply(respond, handle, [requestId, jsonCopy(answer, "answer")]);
  };
}

/** `run.resume`: the content checked and copied, the new run wrapped like this one. */
function resumeOf(
  handle: object,
  resume: Fn,
  context: RunContext,
): (content: ContentInput) => SubagentRun {
  return (content) => {
    const blocks = acceptContent(content, "content");
    // A resumed run spends from the same budget: it is live again, or refused.
    const reopened = context.budget?.reopen() ?? false;
    // A resumed run is a run of its own: its own invoke_agent span, placed as the first
    // (under `startRunsUnder`'s context, else the parent scope's TraceParent, else the
    // active one), and handed to the provider as start hands the first run's.
    const traced = startRunSpan(context.place, context.parentScope, undefined);
    let run: SubagentRun;
    try {
      const raw = traced
        ? underParent(
          undefined,
          () => Reflect.apply(resume, handle, [blocks, freeze({ traceContext: traced.context })]),
        )
        : Reflect.apply(resume, handle, [blocks]);
      run = wrapRun(raw, { ...context, prompt: blocks });
    } catch (error) {
      // Only what reopen() did is undone: a run still live keeps its account.
      if (reopened) context.budget!.close();
      if (traced) failRunSpan(traced.span, error);
      throw error;
    }
    if (traced) traceRun(traced, run);
    return run;
  };
}
