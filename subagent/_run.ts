import { type ContentBlock, type ContentInput, describe, jsonCopy, type Scope } from "@seam/host";
import type { SubagentInputAnswer } from "./input.ts";
import { cancelOnAbort } from "./abort.ts";
import { subagentEnd, subagentStart } from "./events.ts";
import { acceptContent } from "./_request.ts";
import { contractFault, normalizeResult, type ResultContext } from "./_result.ts";
import { acceptUsage, addBelow, type RunNode, unknownUsage } from "./_usage.ts";
import type { BudgetLedger } from "./_budget.ts";
import type {
  OutputSchema,
  RegisteredSubagentProvider,
  SubagentResult,
  SubagentResumeRequest,
  SubagentRun,
  SubagentRunEndInfo,
  SubagentRunInfo,
  SubagentRunPlace,
} from "./types.ts";
import { failRunSpan, pendingParent, startRunSpan, traceRun } from "./_trace.ts";

// One name for the many freezes below (shorter, minified, than `Object.freeze` at each).
const { freeze } = Object;

/** What a run wrapper needs to know about the run it wraps. */
export interface RunContext {
  readonly provider: RegisteredSubagentProvider;
  /** The live runs of the provider's registration: unloading it ends them. */
  readonly runs: Set<SubagentRun>;
  readonly parentId: string;
  readonly parentScope: Scope;
  readonly prompt: readonly ContentBlock[];
  readonly outputSchema: OutputSchema | undefined;
  readonly signal: AbortSignal | undefined;
  /** Where the run sits in the tree. */
  readonly place: SubagentRunPlace;
  /** The service's live runs by id: where a run started by one of their children sits. */
  readonly places: Map<string, RunNode>;
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
 * Claim the shared disposal promise before running provider code, so a
 * synchronous re-entry and every repeat join one provider call.
 */
function memoizeDispose(
  handle: object,
  rawDispose: Fn,
  provider: string,
): () => Promise<void> {
  let claimed: Promise<void> | undefined;
  return () => {
    if (claimed) return claimed;
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    claimed = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const own = claimed;
    try {
      const returned = Reflect.apply(rawDispose, handle, []);
      if (returned === own) {
        reject(contractFault(
          provider,
          "run.dispose() returned the service's own pending disposal (a cyclic disposer)",
        ));
      } else if (isThenable(returned)) {
        returned.then(() => resolve(), reject);
      } else {
        resolve();
      }
    } catch (error) {
      reject(error);
    }
    return own;
  };
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
    throw contractFault(
      name,
      `run.dispose must be a function, got ${describe(rawDispose)}; the child cannot be torn down`,
    );
  }
  const dispose = memoizeDispose(handle, rawDispose as Fn, name);

  let id: string;
  let started: Promise<void>;
  let startedValue: unknown;
  let rawResult: unknown;
  let rawCancel: Fn;
  let rawSend: Fn | undefined;
  let rawResume: Fn | undefined;
  let rawRespond: Fn | undefined;
  try {
    const idValue = handle.id;
    if (typeof idValue !== "string" || idValue === "") {
      throw contractFault(
        name,
        `run.id must be a non-empty string, got ${describe(idValue)}`,
      );
    }
    id = idValue;
    startedValue = handle.started;
    if (!isThenable(startedValue)) {
      throw contractFault(
        name,
        `run.started must be a promise, got ${describe(startedValue)}`,
      );
    }
    rawResult = handle.result;
    if (!isThenable(rawResult)) {
      throw contractFault(
        name,
        `run.result must be a promise, got ${describe(rawResult)}`,
      );
    }
    const cancelValue = handle.cancel;
    if (typeof cancelValue !== "function") {
      throw contractFault(
        name,
        `run.cancel must be a function, got ${describe(cancelValue)}`,
      );
    }
    rawCancel = cancelValue as Fn;
    rawSend = optionalMethod(handle, "sendMessage", name);
    rawResume = optionalMethod(handle, "resume", name);
    rawRespond = optionalMethod(handle, "respond", name);
    started = Promise.resolve(startedValue).then(noop);
  } catch (error) {
    // Whatever promises were read are the service's now: observe them, so
    // their rejections (the run never becomes a run) are not unhandled.
    for (const value of [startedValue, rawResult]) {
      if (isThenable(value)) Promise.resolve(value).catch(noop);
    }
    // Roll back before the fault escapes: the child must not outlive it.
    dispose().catch((disposeError) =>
      logger.error(`Rolling back a malformed run of "${name}" failed`, disposeError)
    );
    throw error;
  }

  const t0 = Date.now();
  const resultContext: ResultContext = {
    provider: name,
    outputSchema: context.outputSchema,
    logger,
  };
  const budget = context.budget;
  // Which opening of the budget this handle is (a resume opens it again).
  let generation: number | undefined;
  const node: RunNode = budget === undefined
    ? { place: context.place, below: { figures: undefined, partial: false } }
    : { place: context.place, below: { figures: undefined, partial: false }, budget };
  const result: Promise<SubagentResult> = Promise.resolve(rawResult).then(
    (value) => {
      try {
        let normalized = normalizeResult(
          value,
          resultContext,
          id,
          (raw) => acceptUsage(raw, Date.now() - t0, node.below),
        );
        if (budget !== undefined) normalized = budget.settle(normalized, generation);
        // The run's subtree counts towards its parent run's, when that is ours.
        const parentRunId = context.place.parentRunId;
        const above = parentRunId === undefined ? undefined : context.places.get(parentRunId);
        if (above !== undefined) addBelow(above.below, normalized.usage!);
        return normalized;
      } catch (error) {
        // Malformed terminal data rejects only once the child is torn down.
        return dispose().then(
          () => Promise.reject(error),
          (disposeError) => {
            logger.error(
              `Disposing run "${id}" of "${name}" failed`,
              disposeError,
            );
            return Promise.reject(error);
          },
        );
      }
    },
  );

  const cancel = (reason?: string): void => {
    Reflect.apply(rawCancel, handle, reason === undefined ? [] : [reason]);
  };

  // Ownership: disposing the parent's scope reaches this run, and so does
  // unloading its provider (through `context.runs`).
  const finalDispose = (): Promise<void> => {
    budget?.close(generation);
    context.runs.delete(run);
    if (context.places.get(id) === node) context.places.delete(id);
    unbindSignal();
    unbindSignal = noop;
    return dispose();
  };
  const release = context.parentScope.onDispose(finalDispose);
  let unbindSignal = noop;
  const signal = context.signal;
  if (signal) {
    unbindSignal = cancelOnAbort(signal, (reason) => {
      try {
        cancel(reason);
      } catch (error) {
        logger.error(`Cancelling run "${id}" of "${name}" on abort failed`, error);
      }
    }, { defer: true });
  }
  if (signal) {
    const settled = () => {
      unbindSignal();
      unbindSignal = noop;
    };
    result.then(settled, settled);
  }
  const wrappedDispose = (): Promise<void> => {
    const disposal = finalDispose();
    // Drops the parent scope's link; it joins the same memoized disposal.
    release();
    return disposal;
  };

  observeLifecycle(id, context, started, result, t0);
  if (budget !== undefined) {
    generation = budget.open(id, cancel, context.parentScope);
    result.catch(() => budget.close(generation));
  }

  const run: {
    -readonly [K in keyof SubagentRun]: SubagentRun[K];
  } = {
    id,
    provider: name,
    started,
    result,
    cancel,
    dispose: wrappedDispose,
  };
  // Built outside this function: closures made here would share its context
  // (and everything it holds) for as long as the run object lives.
  if (rawSend) run.sendMessage = sendMessageOf(handle, rawSend);
  if (rawResume) run.resume = resumeOf(handle, rawResume, context);
  if (rawRespond) run.respond = respondOf(handle, rawRespond);
  freeze(run);
  context.runs.add(run);
  context.places.set(id, node);
  return run;
}

/** The handle's optional method `key`, read once; a contract fault if it is not a function. */
function optionalMethod(
  handle: Record<string, unknown>,
  key: string,
  name: string,
): Fn | undefined {
  const value = handle[key];
  if (value !== undefined && typeof value !== "function") {
    throw contractFault(name, `run.${key} must be a function or absent, got ${describe(value)}`);
  }
  return value as Fn | undefined;
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
      throw new TypeError("Cannot answer an input request: requestId must be a non-empty string");
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
        ? resumeOutside(handle, resume, blocks, freeze({ traceContext: traced.context }))
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

/**
 * The provider's `resume` outside any `startRunsUnder`, as `start` is called
 * (`service.ts:startOutside`): a run the provider starts synchronously in
 * turn does not take the resumed run's parent; the provider names the
 * resumed run with `startRunsUnder(request.traceContext, …)`.
 */
function resumeOutside(
  handle: object,
  resume: Fn,
  blocks: readonly ContentBlock[],
  request: SubagentResumeRequest,
): unknown {
  const outer = pendingParent.context;
  pendingParent.context = undefined;
  try {
    return Reflect.apply(resume, handle, [blocks, request]);
  } finally {
    pendingParent.context = outer;
  }
}

/**
 * Emit `subagent/start` once `started` fulfils and `subagent/end` once the
 * result settles, never before start; neither when readiness rejects.
 */
function observeLifecycle(
  id: string,
  context: RunContext,
  started: Promise<void>,
  result: Promise<SubagentResult>,
  t0: number,
): void {
  const scope = context.parentScope;
  let info: SubagentRunInfo | undefined;
  const runInfo = (): SubagentRunInfo =>
    info ??= freeze({
      runId: id,
      ...context.place,
      parentId: context.parentId,
      prompt: context.prompt,
      inheritsParentContext: context.provider.inheritsParentContext,
      ...(context.budget ? { budget: context.budget.limits } : {}),
    });
  let phase: "pending" | "started" | "rejected" = "pending";
  let pendingEnd: (() => void) | undefined;
  // This rejection handler also keeps an unobserved `started` rejection
  // from escaping as unhandled.
  started.then(
    () => {
      phase = "started";
      if (scope.hasListeners(subagentStart)) {
        scope.emit(subagentStart, runInfo());
      }
      pendingEnd?.();
      pendingEnd = undefined;
    },
    () => {
      phase = "rejected";
      pendingEnd = undefined;
    },
  );
  const end = (extra: Partial<SubagentRunEndInfo>) => () => {
    if (!scope.hasListeners(subagentEnd)) return;
    scope.emit(
      subagentEnd,
      freeze({
        ...runInfo(),
        ...extra,
        durationMs: Date.now() - t0,
      }),
    );
  };
  const schedule = (emitEnd: () => void) => {
    if (phase === "started") emitEnd();
    else if (phase === "pending") pendingEnd = emitEnd;
  };
  result.then(
    (value) =>
      schedule(end({
        result: value,
        stopReason: value.stopReason,
        lastAssistantMessage: value.output,
        ...(value.error !== undefined ? { error: value.error } : {}),
        usage: value.usage!,
      })),
    (error) =>
      schedule(end({
        stopReason: "error",
        error: freeze({
          code: "PROVIDER_FAULT",
          message: error instanceof Error ? error.message : String(error),
        }),
        usage: unknownUsage(Date.now() - t0),
      })),
  );
}
