import assert from "node:assert/strict";
import {
  SubagentBudgetError,
  SubagentError,
  type SubagentRequest,
  type SubagentRunHandle,
  type SubagentRunInfo,
  subagentStart,
} from "./mod.ts";
import {
  deferred,
  type ManualProvider,
  manualProvider,
  type ManualRun,
  NO_CAPABILITIES,
  setup,
} from "./_test_fixtures.ts";

/**
 * A manual provider whose runs settle `aborted` when cancelled, as a real one
 * does, and, given `resume`, resume through it.
 */
function abortingProvider(
  name = "p",
  resume?: (run: ManualRun, provider: ManualProvider) => SubagentRunHandle,
  aborted = "partial words",
): ManualProvider {
  const provider: ManualProvider = manualProvider(name, undefined, (run) => ({
    cancel(reason) {
      run.cancels.push(reason);
      run.result.resolve({ output: aborted, stopReason: "aborted" });
    },
    ...(resume ? { resume: () => resume(run, provider) } : {}),
  }));
  return provider;
}

function meterOf(run: ManualRun): NonNullable<SubagentRequest["budgetMeter"]> {
  assert.ok(run.request.budgetMeter, "the provider gets a meter");
  return run.request.budgetMeter;
}

Deno.test("start() tightens a child's budget to what its parent run has left", async (t) => {
  await t.step("each limit is the smaller of the ask and the parent's remaining", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const top = service.start("p", {
      prompt: "top",
      parent,
      budget: { tokens: 1000, toolCalls: 10, wallTimeMs: 60_000, children: 5, liveChildren: 2 },
    });
    assert.deepEqual(provider.runs[0].request.budget, {
      tokens: 1000,
      toolCalls: 10,
      wallTimeMs: 60_000,
      children: 5,
      liveChildren: 2,
    });
    assert.equal(meterOf(provider.runs[0]).charge({ inputTokens: 200, outputTokens: 100 }), true);
    assert.equal(meterOf(provider.runs[0]).charge({ toolCalls: 4 }), true);
    const child = { id: top.id, scope: parent.scope.child("c") };
    const asking = service.start("p", {
      prompt: "asks more",
      parent: child,
      budget: { tokens: 5000, toolCalls: 3 },
    });
    const budget = provider.runs[1].request.budget!;
    assert.equal(budget.tokens, 700, "1000 − 300 used: less than asked");
    assert.equal(budget.toolCalls, 3, "asked less than the 6 left: the ask");
    assert.ok(budget.wallTimeMs! <= 60_000, "no more time than the parent has left");
    assert.equal(budget.children, 4, "5 − this child");
    assert.equal(budget.liveChildren, 1, "2 − this child");
    await asking.dispose();
    const silent = service.start("p", { prompt: "asks nothing", parent: child });
    assert.equal(provider.runs[2].request.budget?.tokens, 700, "no ask: what the parent has left");
    assert.equal(provider.runs[2].request.budget?.children, 3, "5 − the two children");
    await silent.dispose();
    await top.dispose();
    await root.dispose();
  });

  await t.step("a child's charges count against its parent's budget as they happen", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const top = service.start("p", { prompt: "top", parent, budget: { tokens: 100 } });
    const child = { id: top.id, scope: parent.scope.child("c") };
    const a = service.start("p", { prompt: "a", parent: child });
    const b = service.start("p", { prompt: "b", parent: child });
    assert.equal(provider.runs[1].request.budget?.tokens, 100);
    assert.equal(provider.runs[2].request.budget?.tokens, 100);
    assert.equal(meterOf(provider.runs[1]).charge({ outputTokens: 60 }), true);
    assert.equal(
      meterOf(provider.runs[2]).charge({ outputTokens: 60 }),
      false,
      "b's 60 is within its own budget, not within its parent's",
    );
    const ended = await top.result;
    assert.equal(ended.stopReason, "budget-exhausted", "the parent, whose budget ran out");
    assert.equal(ended.error?.code, "BUDGET_EXHAUSTED");
    assert.deepEqual(ended.error?.data, { limit: "tokens", budget: 100, used: 120 });
    assert.deepEqual(provider.runs[2].cancels, [], "b itself is within its budget");
    await Promise.all([a.dispose(), b.dispose(), top.dispose()]);
    await root.dispose();
  });
});

Deno.test("subagent/start carries a run's tightened budget, and none without one", async () => {
  const { root, service, parent } = setup();
  const provider = abortingProvider();
  service.registerProvider(provider);
  const starts: SubagentRunInfo[] = [];
  root.on(subagentStart, (info) => void starts.push(info));
  const top = service.start("p", { prompt: "top", parent, budget: { tokens: 100 } });
  const free = service.start("p", { prompt: "free", parent });
  const child = service.start("p", {
    prompt: "child",
    parent: { id: top.id, scope: parent.scope.child("c") },
    budget: { tokens: 500, toolCalls: 2 },
  });
  provider.runs.forEach((run) => run.started.resolve());
  await Promise.all([top.started, free.started, child.started]);
  const of = (id: string) => starts.find((s) => s.runId === id);
  assert.deepEqual(of(top.id)?.budget, { tokens: 100 });
  assert.equal(of(free.id)?.budget, undefined);
  assert.ok(!("budget" in of(free.id)!), "no budget field without a budget");
  assert.deepEqual(of(child.id)?.budget, { tokens: 100, toolCalls: 2 }, "the tightened budget");
  assert.ok(Object.isFrozen(of(child.id)?.budget));
  await Promise.all([child.dispose(), free.dispose(), top.dispose()]);
  await root.dispose();
});

Deno.test("a run whose budget runs out ends budget-exhausted with a note", async (t) => {
  await t.step("tokens: the charge beyond the limit cancels the run", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const run = service.start("p", { prompt: "x", parent, budget: { tokens: 100 } });
    provider.runs[0].started.resolve();
    const meter = meterOf(provider.runs[0]);
    assert.equal(meter.charge({ inputTokens: 80, outputTokens: 20 }), true, "at the limit");
    assert.equal(meter.charge({ outputTokens: 10 }), false, "beyond it");
    assert.equal(provider.runs[0].cancels.length, 1);
    assert.match(provider.runs[0].cancels[0]!, /budget exhausted/);
    const result = await run.result;
    assert.equal(result.stopReason, "budget-exhausted");
    assert.deepEqual(result.output, [{ type: "text", text: "partial words" }], "output kept");
    assert.equal(result.error?.code, "BUDGET_EXHAUSTED");
    assert.match(result.error!.message, /budget\.tokens allows 100 tokens, 110 used/);
    assert.deepEqual(result.error?.data, { limit: "tokens", budget: 100, used: 110 });
    await run.dispose();
    await root.dispose();
  });

  await t.step("toolCalls: the call beyond the limit is refused", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const run = service.start("p", { prompt: "x", parent, budget: { toolCalls: 2 } });
    const meter = meterOf(provider.runs[0]);
    assert.equal(meter.charge({ toolCalls: 1 }), true);
    assert.equal(meter.charge({ toolCalls: 1 }), true);
    assert.equal(meter.charge({ toolCalls: 1 }), false);
    const result = await run.result;
    assert.equal(result.stopReason, "budget-exhausted");
    assert.deepEqual(result.error?.data, { limit: "toolCalls", budget: 2, used: 3 });
    assert.match(result.error!.message, /budget\.toolCalls allows 2 tool calls, 3 used/);
    await run.dispose();
    await root.dispose();
  });

  await t.step("wallTimeMs: the service's clock cancels the run", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const run = service.start("p", { prompt: "x", parent, budget: { wallTimeMs: 5 } });
    const result = await run.result;
    assert.equal(result.stopReason, "budget-exhausted");
    assert.equal((result.error?.data as { limit: string }).limit, "wallTimeMs");
    assert.match(result.error!.message, /budget\.wallTimeMs allows 5 ms of wall time/);
    await run.dispose();
    await root.dispose();
  });

  await t.step("usage reported only in the result counts when the run settles", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const top = service.start("p", { prompt: "top", parent, budget: { tokens: 50 } });
    const child = { id: top.id, scope: parent.scope.child("c") };
    const remote = service.start("p", { prompt: "r", parent: child });
    provider.runs[1].result.resolve({
      output: "done",
      stopReason: "completed",
      usage: { self: { inputTokens: 40, outputTokens: 30 } },
    });
    const own = await remote.result;
    assert.equal(own.stopReason, "budget-exhausted", "it used more than its budget allows");
    assert.deepEqual(own.error?.data, { limit: "tokens", budget: 50, used: 70 });
    assert.equal((await top.result).stopReason, "budget-exhausted", "and so did its parent");
    await Promise.all([remote.dispose(), top.dispose()]);
    await root.dispose();
  });

  await t.step("a run within its budget keeps its own stop reason", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const run = service.start("p", { prompt: "x", parent, budget: { tokens: 100 } });
    meterOf(provider.runs[0]).charge({ inputTokens: 100 });
    provider.runs[0].result.resolve({
      output: "ok",
      stopReason: "completed",
      usage: { self: { inputTokens: 100 } },
    });
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.equal(result.error, undefined);
    await run.dispose();
    await root.dispose();
  });
});

Deno.test("start() beyond a children cap throws before any child exists", async (t) => {
  await t.step("children: the start beyond the total", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const top = service.start("p", { prompt: "top", parent, budget: { children: 2 } });
    const child = { id: top.id, scope: parent.scope.child("c") };
    const a = service.start("p", { prompt: "a", parent: child });
    provider.runs[1].result.resolve({ output: "a", stopReason: "completed" });
    await a.result;
    await a.dispose();
    const b = service.start("p", { prompt: "b", parent: child });
    assert.throws(
      () => service.start("p", { prompt: "c", parent: child }),
      (e: unknown) =>
        e instanceof SubagentBudgetError && e.code === "BUDGET_EXHAUSTED" &&
        e.limit === "children" && e.budget === 2 && e.used === 2 &&
        /may have 2 children started in total \(budget\.children\) and has 2$/.test(e.message),
    );
    assert.equal(provider.runs.length, 3, "no child was started");
    await b.dispose();
    assert.throws(
      () => service.start("p", { prompt: "d", parent: child }),
      (e: unknown) => e instanceof SubagentBudgetError && e.limit === "children",
      "settled children still count: the cap is on children started in total",
    );
    await top.dispose();
    await root.dispose();
  });

  await t.step("children: grandchildren count against the grandparent's cap", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const top = service.start("p", { prompt: "top", parent, budget: { children: 2 } });
    const child = { id: top.id, scope: parent.scope.child("c") };
    const a = service.start("p", { prompt: "a", parent: child, budget: { children: 9 } });
    assert.equal(provider.runs[1].request.budget?.children, 1, "what is left above: 2 − a");
    const g = service.start("p", { prompt: "g", parent: { id: a.id, scope: child.scope } });
    assert.throws(
      () => service.start("p", { prompt: "b", parent: child }),
      (e: unknown) => e instanceof SubagentBudgetError && e.limit === "children",
    );
    await Promise.all([g.dispose(), a.dispose(), top.dispose()]);
    await root.dispose();
  });

  await t.step("liveChildren: the start beyond what may be live at once", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const top = service.start("p", { prompt: "top", parent, budget: { liveChildren: 1 } });
    const child = { id: top.id, scope: parent.scope.child("c") };
    const a = service.start("p", { prompt: "a", parent: child });
    assert.throws(
      () => service.start("p", { prompt: "b", parent: child }),
      (e: unknown) =>
        e instanceof SubagentBudgetError && e.limit === "liveChildren" && e.budget === 1 &&
        /may have 1 child live at once \(budget\.liveChildren\) and has 1$/.test(e.message),
    );
    assert.equal(provider.runs.length, 2);
    provider.runs[1].result.resolve({ output: "a", stopReason: "completed" });
    await a.result;
    const b = service.start("p", { prompt: "b", parent: child });
    assert.equal(provider.runs.length, 3, "a settled: its slot is free again");
    await Promise.all([a.dispose(), b.dispose(), top.dispose()]);
    await root.dispose();
  });

  await t.step("a start the provider refuses does not count", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    service.registerProvider(provider);
    const failing = {
      ...manualProvider("failing"),
      start(): never {
        throw new TypeError("no");
      },
    };
    service.registerProvider(failing);
    const top = service.start("p", { prompt: "top", parent, budget: { children: 1 } });
    const child = { id: top.id, scope: parent.scope.child("c") };
    assert.throws(() => service.start("failing", { prompt: "f", parent: child }), /no/);
    const a = service.start("p", { prompt: "a", parent: child });
    await Promise.all([a.dispose(), top.dispose()]);
    await root.dispose();
  });
});

Deno.test("start() refuses a budget the provider cannot honour", async (t) => {
  await t.step("request.budget on a provider without capabilities.budget", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("none", NO_CAPABILITIES);
    service.registerProvider(provider);
    assert.throws(
      () => service.start("none", { prompt: "x", parent, budget: { tokens: 5 } }),
      (e: unknown) =>
        e instanceof SubagentError && e.code === "UNSUPPORTED_CAPABILITY" &&
        /does not support request\.budget \(capabilities\.budget is false\)/.test(e.message),
    );
    assert.equal(provider.runs.length, 0);
    await root.dispose();
  });

  await t.step("a budget inherited from the parent run", async () => {
    const { root, service, parent } = setup();
    const provider = abortingProvider();
    const none = manualProvider("none", NO_CAPABILITIES);
    service.registerProvider(provider);
    service.registerProvider(none);
    const top = service.start("p", { prompt: "top", parent, budget: { tokens: 5 } });
    assert.throws(
      () => service.start("none", { prompt: "x", parent: { id: top.id, scope: parent.scope } }),
      (e: unknown) =>
        e instanceof SubagentError && e.code === "UNSUPPORTED_CAPABILITY" &&
        /the budget its parent run "p-1" passes down/.test(e.message),
    );
    assert.equal(none.runs.length, 0);
    await top.dispose();
    await root.dispose();
  });
});

Deno.test("start() checks request.budget, naming the field", async () => {
  const { root, service, parent } = setup();
  const provider = abortingProvider();
  service.registerProvider(provider);
  const cases: [unknown, RegExp][] = [
    ["lots", /TypeError: Cannot start subagent: request\.budget must be an object, got /],
    [[1], /request\.budget must be an object/],
    [{}, /request\.budget must name at least one of tokens, wallTimeMs/],
    [{ token: 5 }, /unknown field request\.budget\.token \(known: tokens, wallTimeMs/],
    [
      { tokens: "5" },
      /TypeError: Invalid request\.budget\.tokens: expected a non-negative safe integer, got string/,
    ],
    [
      { tokens: -1 },
      /RangeError: Invalid request\.budget\.tokens: expected a non-negative safe integer, -1 is negative/,
    ],
    [
      { toolCalls: 1.5 },
      /request\.budget\.toolCalls: expected a non-negative safe integer, 1\.5 is not an integer/,
    ],
    [
      { children: NaN },
      /request\.budget\.children: expected a non-negative safe integer, NaN is not finite/,
    ],
    [
      { liveChildren: Infinity },
      /request\.budget\.liveChildren: expected a non-negative safe integer, Infinity/,
    ],
    [{ wallTimeMs: -5 }, /request\.budget\.wallTimeMs must be a number of milliseconds from 0/],
    [{ wallTimeMs: NaN }, /request\.budget\.wallTimeMs must be/],
    [{ wallTimeMs: 2 ** 31 }, /request\.budget\.wallTimeMs must be .* to 2147483647/],
  ];
  for (const [budget, pattern] of cases) {
    assert.throws(
      () => service.start("p", { prompt: "x", parent, budget: budget as never }),
      (e: unknown) => pattern.test(String(e)),
      `budget ${JSON.stringify(budget)}`,
    );
  }
  assert.equal(provider.runs.length, 0);
  await root.dispose();
});

Deno.test("resume() spends from the same budget", async () => {
  const { root, service, parent } = setup();
  const resumed = deferred<void>();
  const provider = abortingProvider("p", (run, provider) => {
    resumed.resolve();
    return provider.start(run.request);
  }, "");
  service.registerProvider(provider);
  const run = service.start("p", { prompt: "x", parent, budget: { tokens: 10 } });
  meterOf(provider.runs[0]).charge({ inputTokens: 11 });
  assert.equal((await run.result).stopReason, "budget-exhausted");
  assert.throws(
    () => run.resume!("more"),
    (e: unknown) =>
      e instanceof SubagentBudgetError && e.limit === "tokens" &&
      /Cannot resume run "p-1": the budget of run "p-1" ran out/.test(e.message),
  );
  assert.equal(provider.runs.length, 1, "nothing was resumed");
  await run.dispose();
  await root.dispose();
});

Deno.test("a refused resume() leaves the live run's budget as it was", async () => {
  const { root, service, parent } = setup();
  const provider = abortingProvider("p", () => {
    throw new Error("it has not finished");
  }, "");
  service.registerProvider(provider);
  const top = service.start("p", {
    prompt: "top",
    parent,
    budget: { tokens: 10, liveChildren: 1 },
  });
  const child = service.start("p", {
    prompt: "child",
    parent: { id: top.id, scope: parent.scope },
  });
  assert.throws(() => child.resume!("too early"), /it has not finished/);
  // Still enforced: the charge beyond the limit ends the run.
  assert.equal(meterOf(provider.runs[1]).charge({ inputTokens: 11 }), false);
  assert.equal((await child.result).stopReason, "budget-exhausted");
  // And its live slot was freed once, not twice nor never: one child may be live again.
  const next = service.start("p", { prompt: "next", parent: { id: top.id, scope: parent.scope } });
  assert.throws(
    () =>
      service.start("p", { prompt: "one too many", parent: { id: top.id, scope: parent.scope } }),
    (e: unknown) => e instanceof SubagentBudgetError && e.limit === "liveChildren",
  );
  await Promise.all([next.dispose(), child.dispose(), top.dispose()]);
  await root.dispose();
});

Deno.test("disposing a handle after resume() leaves the resumed run's budget in force", async () => {
  const { root, service, parent } = setup();
  const provider = abortingProvider("p", (run, provider) => provider.start(run.request), "");
  service.registerProvider(provider);
  const first = service.start("p", { prompt: "x", parent, budget: { tokens: 10 } });
  provider.runs[0].result.resolve({ output: "done", stopReason: "completed" });
  assert.equal((await first.result).stopReason, "completed");
  const again = first.resume!("more");
  await first.dispose();
  assert.equal(meterOf(provider.runs[1]).charge({ inputTokens: 11 }), false);
  assert.equal((await again.result).stopReason, "budget-exhausted");
  await again.dispose();
  await root.dispose();
});

Deno.test("a budget meter refuses a negative figure instead of netting it out", () => {
  const { root, service, parent } = setup();
  const provider = abortingProvider();
  service.registerProvider(provider);
  const run = service.start("p", { prompt: "x", parent, budget: { tokens: 10 } });
  const meter = meterOf(provider.runs[0]);
  assert.equal(meter.charge({ inputTokens: -1000, outputTokens: 1005 }), true, "ignored");
  assert.equal(meter.charge({ inputTokens: 10 }), true, "nothing was counted before");
  assert.equal(meter.charge({ outputTokens: 1 }), false);
  return run.dispose().then(() => root.dispose());
});
