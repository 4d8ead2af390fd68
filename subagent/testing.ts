/**
 * The provider conformance suite: the behavioural contract of a subagent
 * provider, run through the real {@linkcode SubagentService} against any
 * backend. Spawn, fork, ACP and A2A all run this same suite; a provider
 * author calls {@linkcode testSubagentProvider} from a test with a factory
 * for their backend and the prompts that make its child complete, hang,
 * fail or hit the token limit.
 *
 * @example
 * ```ts ignore
 * import { testSubagentProvider } from "@seam/subagent/testing";
 * import { createMyProvider } from "./my_provider.ts";
 *
 * Deno.test("my provider conforms", (t) =>
 *   testSubagentProvider(t, {
 *     createProvider: () => createMyProvider(),
 *     prompts: { complete: "say hi", hang: "wait", fail: "crash", maxTokens: "ramble" },
 *   }));
 * ```
 *
 * @module
 */
import {
  type AgentRef,
  type ContentInput,
  createMemoryLogger,
  createRootScope,
  deepFreeze,
  type Scope,
  textOf,
} from "@seam/host";
import { SubagentError } from "./errors.ts";
import { subagentEnd, subagentStart } from "./events.ts";
import { validateStructuredOutput } from "./output_schema.ts";
import { createSubagentService, type SubagentService } from "./service.ts";
import type {
  OutputSchema,
  SubagentCapabilities,
  SubagentProvider,
  SubagentRequest,
  SubagentResult,
  SubagentRun,
  SubagentRunEndInfo,
  SubagentRunInfo,
  SubagentStartRequest,
  SubagentToolFilter,
} from "./types.ts";
import { stringify } from "./_builtins.ts";

/** The part of a test context the suite needs: `Deno.TestContext` fits, so does an adapter. */
export interface ConformanceTestContext {
  /** Run a named step; resolves `false` when it failed. */
  step(
    name: string,
    fn: (t: ConformanceTestContext) => void | Promise<void>,
  ): Promise<boolean>;
}

/** Prompts that make the backend's child behave as each case needs. */
export interface ConformancePrompts {
  /** The child completes with some text output. */
  readonly complete: ContentInput;
  /** The child keeps working until it is cancelled. */
  readonly hang: ContentInput;
  /** The child fails (its model or process errors). */
  readonly fail: ContentInput;
  /** The child stops at its token limit. */
  readonly maxTokens: ContentInput;
  /**
   * With `outputSchema: CONFORMANCE_OUTPUT_SCHEMA`, the child answers with a
   * structured value. Needed when the provider declares `outputSchema`.
   */
  readonly structured?: ContentInput;
  /** The child replies with its persona's text. Checked when given. */
  readonly persona?: ContentInput;
}

/** What the suite needs from a backend. */
export interface ConformanceBackend {
  /**
   * Make the provider under test. Called once per case; `scope` is disposed
   * after the case, so anything the backend starts may be owned by it.
   */
  createProvider(scope: Scope): SubagentProvider | Promise<SubagentProvider>;
  /** Make the delegating parent. Default: a plain agent ref on a child scope. */
  createParent?(scope: Scope, service: SubagentService): AgentRef | Promise<AgentRef>;
  /** The prompts for each behaviour. */
  readonly prompts: ConformancePrompts;
  /** Text the completed output must contain. Default: any non-empty text. */
  readonly expectedOutput?: string;
  /** A valid tool filter for this backend. Default `{ allow: [] }`. */
  readonly toolFilter?: SubagentToolFilter;
  /**
   * How many children (agents, sessions, processes) are still alive. When
   * given, the suite checks it is 0 after every dispose.
   */
  liveChildren?(): number | Promise<number>;
  /** Longest wait for any one settlement, in ms. Default 10,000. */
  readonly timeoutMs?: number;
}

/** The schema the `structured` case requests. */
export const CONFORMANCE_OUTPUT_SCHEMA: OutputSchema = deepFreeze({
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
});

/** The persona the `persona` case requests. */
export const CONFORMANCE_PERSONA = "You are Conformance Tester 7.";

class ConformanceFailure extends Error {
  override name = "ConformanceFailure";
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceFailure(message);
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ConformanceFailure(`${what} did not settle within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function isDeeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen);
}

/** Whether `promise` is already fulfilled (it wins a race against a resolved promise). */
function isFulfilled(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol("pending");
  // A settled promise's reaction is queued before the sentinel's.
  return Promise.race([promise, Promise.resolve(pending)]).then(
    (value) => value !== pending,
    () => false,
  );
}

interface Harness {
  readonly service: SubagentService;
  /** The scope that owns the registration of the provider under test. */
  readonly registration: Scope;
  readonly parent: AgentRef;
  readonly startCalls: () => number;
  readonly capabilities: SubagentCapabilities;
  readonly events: (SubagentRunInfo | SubagentRunEndInfo)[];
  readonly kinds: ("start" | "end")[];
  readonly startSawStarted: boolean[];
  readonly runs: SubagentRun[];
  start(prompt: ContentInput, extra?: Partial<SubagentStartRequest>): SubagentRun;
}

const PROVIDER_NAME = "under-test";

/**
 * Run the provider contract against `backend`, one step per rule:
 * completion with output, `started` before `subagent/start`, every
 * cancellation moment ending `aborted`, failure ending `error` (with a
 * `result.error`) without a rejection, `max-tokens`, idempotent disposal
 * that leaves nothing running, parent-scope teardown, unloading the
 * provider (its live runs end `aborted`, nothing left running), and each
 * start-time capability (working when declared, rejected before start when
 * not; a declared budget also ends a hanging run `budget-exhausted` once
 * its wall time runs out).
 *
 * @param t A test context (`Deno.TestContext` or anything with `step`).
 * @param backend How to make and drive the provider under test.
 * @returns Resolves when every step ran; a failed step fails the test.
 */
export async function testSubagentProvider(
  t: ConformanceTestContext,
  backend: ConformanceBackend,
): Promise<void> {
  const timeoutMs = backend.timeoutMs ?? 10_000;

  async function withHarness(body: (h: Harness) => Promise<void>): Promise<void> {
    const { logger } = createMemoryLogger();
    const root = createRootScope({ logger, label: "conformance" });
    const runs: SubagentRun[] = [];
    try {
      const service = createSubagentService(root);
      const real = await backend.createProvider(root.child("backend"));
      const capabilities = { ...real.capabilities };
      let calls = 0;
      const registration = root.child("registration");
      service.registerProvider({
        name: PROVIDER_NAME,
        capabilities,
        inheritsParentContext: real.inheritsParentContext,
        start(request: SubagentRequest) {
          calls++;
          return real.start(request);
        },
      }, { scope: registration });
      const parent = backend.createParent
        ? await backend.createParent(root, service)
        : { id: "conformance-parent", scope: root.child("parent") };
      const events: (SubagentRunInfo | SubagentRunEndInfo)[] = [];
      const kinds: ("start" | "end")[] = [];
      const startSawStarted: boolean[] = [];
      const harness: Harness = {
        service,
        registration,
        parent,
        capabilities,
        events,
        kinds,
        startSawStarted,
        runs,
        startCalls: () => calls,
        start(prompt, extra = {}) {
          const run = service.start(PROVIDER_NAME, { prompt, parent, ...extra });
          runs.push(run);
          return run;
        },
      };
      parent.scope.on(subagentStart, (info) => {
        kinds.push("start");
        events.push(info);
        const run = runs.find((r) => r.id === info.runId);
        if (run) isFulfilled(run.started).then((ok) => startSawStarted.push(ok));
      });
      parent.scope.on(subagentEnd, (info) => {
        kinds.push("end");
        events.push(info);
      });
      await body(harness);
      for (const run of runs) await within(run.dispose(), timeoutMs, `run ${run.id} dispose()`);
      if (backend.liveChildren) {
        const live = await backend.liveChildren();
        check(live === 0, `${live} children still alive after every run was disposed`);
      }
    } finally {
      await within(root.dispose(), timeoutMs, "disposing the conformance scope");
    }
  }

  const settle = (run: SubagentRun, what: string): Promise<SubagentResult> =>
    within(run.result, timeoutMs, `${what}: run.result`);

  const expectAborted = async (run: SubagentRun, what: string) => {
    const result = await settle(run, what);
    check(
      result.stopReason === "aborted",
      `${what}: expected stopReason "aborted", got "${result.stopReason}"`,
    );
  };

  /** Start/end pairing: nothing, or start then end with the same id. */
  const checkPairing = (h: Harness, run: SubagentRun) => {
    const mine = h.events.map((e, i) => ({ e, kind: h.kinds[i] })).filter((x) =>
      x.e.runId === run.id
    );
    const kinds = mine.map((x) => x.kind).join(",");
    check(
      kinds === "" || kinds === "start,end",
      `expected no events or start then end for run ${run.id}, got [${kinds}]`,
    );
  };

  await t.step("completes with output", () =>
    withHarness(async (h) => {
      const run = h.start(backend.prompts.complete);
      check(Object.isFrozen(run), "the run handed out must be frozen");
      await within(run.started, timeoutMs, "run.started");
      const result = await settle(run, "complete");
      check(result.stopReason === "completed", `expected "completed", got "${result.stopReason}"`);
      const text = textOf(result.output);
      check(text.length > 0, "a completed run must have output text");
      if (backend.expectedOutput !== undefined) {
        check(
          text.includes(backend.expectedOutput),
          `output ${stringify(text)} lacks ${stringify(backend.expectedOutput)}`,
        );
      }
      check(isDeeplyFrozen(result), "the result must be deeply frozen");
      check((await run.result) === result, "run.result must settle to one shared value");
    }));

  await t.step(
    "started fulfils before subagent/start, and end follows start",
    () =>
      withHarness(async (h) => {
        const run = h.start(backend.prompts.complete);
        const result = await settle(run, "complete");
        await within(run.dispose(), timeoutMs, "dispose()");
        // Events are delivered synchronously from settlement callbacks; one
        // more macrotask lets a buffered end flush.
        await new Promise((resolve) => setTimeout(resolve, 0));
        check(
          h.kinds.join(",") === "start,end",
          `expected [start,end], got [${h.kinds.join(",")}]`,
        );
        check(h.startSawStarted[0] === true, "subagent/start fired before run.started fulfilled");
        const [start, end] = h.events as [SubagentRunInfo, SubagentRunEndInfo];
        check(start.runId === run.id && end.runId === run.id, "event ids must be the run's id");
        check(start.provider === PROVIDER_NAME, "subagent/start must name the provider");
        check(start.parentId === h.parent.id, "subagent/start must name the parent");
        check(isDeeplyFrozen(start) && isDeeplyFrozen(end), "event payloads must be deeply frozen");
        check(end.result === result, "subagent/end must carry the caller's result object");
        check(
          end.lastAssistantMessage === result.output,
          "subagent/end must carry the output as lastAssistantMessage",
        );
      }),
  );

  await t.step("cancel before readiness ends aborted", () =>
    withHarness(async (h) => {
      const run = h.start(backend.prompts.hang);
      run.cancel("conformance: cancel before readiness");
      await expectAborted(run, "cancel before readiness");
      await within(run.dispose(), timeoutMs, "dispose()");
      await new Promise((resolve) => setTimeout(resolve, 0));
      checkPairing(h, run);
    }));

  await t.step("cancel mid-run ends aborted", () =>
    withHarness(async (h) => {
      const run = h.start(backend.prompts.hang);
      await within(run.started, timeoutMs, "run.started");
      run.cancel("conformance: cancel mid-run");
      await expectAborted(run, "cancel mid-run");
    }));

  await t.step("an already-aborted signal ends aborted", () =>
    withHarness(async (h) => {
      const controller = new AbortController();
      controller.abort();
      const run = h.start(backend.prompts.hang, { signal: controller.signal });
      await expectAborted(run, "already-aborted signal");
    }));

  await t.step("an abort mid-run ends aborted", () =>
    withHarness(async (h) => {
      const controller = new AbortController();
      const run = h.start(backend.prompts.hang, { signal: controller.signal });
      await within(run.started, timeoutMs, "run.started");
      controller.abort();
      await expectAborted(run, "abort mid-run");
    }));

  await t.step(
    "a failing child ends error without rejecting result",
    () =>
      withHarness(async (h) => {
        const run = h.start(backend.prompts.fail);
        const result = await settle(run, "fail");
        check(result.stopReason === "error", `expected "error", got "${result.stopReason}"`);
        check(
          typeof result.error?.code === "string" && result.error.message.length > 0,
          "a failed run must carry result.error {code, message}",
        );
        check(
          result.error.code !== "UNSPECIFIED",
          "a failed run must say what went wrong: result.error from the provider (the service filled in UNSPECIFIED)",
        );
      }),
  );

  await t.step("the token limit maps to max-tokens", () =>
    withHarness(async (h) => {
      const run = h.start(backend.prompts.maxTokens);
      const result = await settle(run, "max tokens");
      check(
        result.stopReason === "max-tokens",
        `expected "max-tokens", got "${result.stopReason}"`,
      );
    }));

  await t.step("dispose is idempotent and leaves nothing running", () =>
    withHarness(async (h) => {
      const run = h.start(backend.prompts.hang);
      await within(run.started, timeoutMs, "run.started");
      const first = run.dispose();
      const second = run.dispose();
      check(first === second, "dispose() must return one memoized promise");
      await within(first, timeoutMs, "dispose()");
      await within(run.dispose(), timeoutMs, "a later dispose()");
      const result = await settle(run, "disposed run");
      check(
        result.stopReason === "aborted",
        `a run disposed mid-flight must end "aborted", got "${result.stopReason}"`,
      );
      if (backend.liveChildren) {
        const live = await backend.liveChildren();
        check(live === 0, `${live} children still alive after dispose()`);
      }
    }));

  await t.step("disposing the parent's scope disposes its runs", () =>
    withHarness(async (h) => {
      const run = h.start(backend.prompts.hang);
      await within(run.started, timeoutMs, "run.started");
      await within(h.parent.scope.dispose(), timeoutMs, "disposing the parent scope");
      const result = await settle(run, "run of a disposed parent");
      check(result.stopReason === "aborted", `expected "aborted", got "${result.stopReason}"`);
      if (backend.liveChildren) {
        const live = await backend.liveChildren();
        check(live === 0, `${live} children still alive after the parent was disposed`);
      }
    }));

  await t.step("unloading the provider ends its live runs aborted", () =>
    withHarness(async (h) => {
      const run = h.start(backend.prompts.hang);
      await within(run.started, timeoutMs, "run.started");
      await within(h.registration.dispose(), timeoutMs, "disposing the registration's scope");
      const result = await settle(run, "run of an unloaded provider");
      check(result.stopReason === "aborted", `expected "aborted", got "${result.stopReason}"`);
      check(h.service.getProvider(PROVIDER_NAME) === undefined, "the provider is unregistered");
      if (backend.liveChildren) {
        const live = await backend.liveChildren();
        check(live === 0, `${live} children still alive after the provider was unloaded`);
      }
    }));

  const capabilityCases: {
    flag: keyof SubagentCapabilities;
    field: string;
    request: () => Partial<SubagentStartRequest>;
    prompt: () => ContentInput | undefined;
    verify?: (result: SubagentResult) => void;
  }[] = [
    {
      flag: "outputSchema",
      field: "outputSchema",
      request: () => ({ outputSchema: CONFORMANCE_OUTPUT_SCHEMA }),
      prompt: () => backend.prompts.structured,
      verify: (result) => {
        const issues = validateStructuredOutput(CONFORMANCE_OUTPUT_SCHEMA, result.structured);
        check(issues.length === 0, `structured value does not match: ${stringify(issues)}`);
      },
    },
    {
      flag: "depthLimit",
      field: "maxDepth",
      request: () => ({ maxDepth: 3 }),
      prompt: () => backend.prompts.complete,
    },
    {
      flag: "toolFilter",
      field: "toolFilter",
      request: () => ({ toolFilter: backend.toolFilter ?? { allow: [] } }),
      prompt: () => backend.prompts.complete,
    },
    {
      flag: "persona",
      field: "persona",
      request: () => ({ persona: CONFORMANCE_PERSONA }),
      prompt: () => backend.prompts.persona ?? backend.prompts.complete,
      verify: (result) => {
        if (backend.prompts.persona === undefined) return;
        check(
          textOf(result.output).includes(CONFORMANCE_PERSONA),
          "the child's output does not show the requested persona",
        );
      },
    },
    {
      flag: "budget",
      field: "budget",
      request: () => ({ budget: { tokens: 1_000_000, toolCalls: 1_000, wallTimeMs: timeoutMs } }),
      prompt: () => backend.prompts.complete,
    },
  ];

  await t.step(
    "capability budget: a run beyond its wall-time budget ends budget-exhausted",
    () =>
      withHarness(async (h) => {
        if (!h.capabilities.budget) return; // the refusal is the capability case below
        const run = h.start(backend.prompts.hang, { budget: { wallTimeMs: 50 } });
        const result = await settle(run, "budget");
        check(
          result.stopReason === "budget-exhausted" && result.error?.code === "BUDGET_EXHAUSTED",
          `expected "budget-exhausted" (BUDGET_EXHAUSTED), got "${result.stopReason}"`,
        );
      }),
  );

  for (const c of capabilityCases) {
    await t.step(
      `capability ${c.flag}: works when declared, rejected before start when not`,
      () =>
        withHarness(async (h) => {
          if (!h.capabilities[c.flag]) {
            let caught: unknown;
            try {
              h.start(backend.prompts.complete, c.request());
            } catch (error) {
              caught = error;
            }
            check(
              caught instanceof SubagentError && caught.code === "UNSUPPORTED_CAPABILITY",
              `request.${c.field} on a provider without ${c.flag} must throw UNSUPPORTED_CAPABILITY`,
            );
            check(h.startCalls() === 0, "provider.start must not run for a rejected request");
            return;
          }
          const prompt = c.prompt();
          check(prompt !== undefined, `the backend declares ${c.flag} but gives no prompt for it`);
          const run = h.start(prompt, c.request());
          const result = await settle(run, c.flag);
          check(
            result.stopReason === "completed",
            `a run with ${c.field} must complete, got "${result.stopReason}"`,
          );
          c.verify?.(result);
        }),
    );
  }
}
