import assert from "node:assert/strict";
import {
  SubagentContractError,
  subagentEnd,
  type SubagentResult,
  type SubagentRunEndInfo,
  type SubagentRunHandle,
  type SubagentRunInfo,
  subagentStart,
} from "./mod.ts";
import { deferred, flush, manualProvider, setup } from "./_test_fixtures.ts";

Deno.test("start() returns a frozen wrapper whose fields are read once", async () => {
  const { root, service, parent } = setup();
  const reads: string[] = [];
  const base = manualProvider("raw");
  const provider = {
    ...base,
    start(request: Parameters<typeof base.start>[0]) {
      const handle = base.start(request);
      const counted = {} as Record<string, unknown>;
      for (const key of ["dispose", "id", "started", "result", "cancel", "sendMessage"]) {
        const value = key === "sendMessage"
          ? () => Promise.resolve()
          : handle[key as keyof SubagentRunHandle];
        Object.defineProperty(counted, key, {
          enumerable: true,
          get() {
            reads.push(key);
            return value;
          },
        });
      }
      return counted as unknown as SubagentRunHandle;
    },
  };
  service.registerProvider(provider);
  const run = service.start("raw", { prompt: "x", parent });
  assert.equal(reads[0], "dispose", "the disposer is acquired first");
  assert.deepEqual([...reads].sort(), [
    "cancel",
    "dispose",
    "id",
    "result",
    "sendMessage",
    "started",
  ]);
  assert.ok(Object.isFrozen(run));
  assert.equal(run.id, "raw-1");
  assert.equal(run.provider, "raw");
  assert.equal(typeof run.sendMessage, "function");
  assert.equal(run.resume, undefined, "an absent method stays absent");
  assert.ok(!("resume" in run));
  run.cancel("why");
  assert.deepEqual(base.runs[0].cancels, ["why"]);
  await run.dispose();
  assert.equal(reads.length, 6, "no field is read again later");
  await root.dispose();
});

Deno.test("start() rolls back a malformed handle before the fault escapes", async (t) => {
  const cases: [string, (h: Record<string, unknown>) => void, RegExp][] = [
    ["an empty id", (h) => h.id = "", /run\.id/],
    ["started that is not a promise", (h) => h.started = true, /run\.started/],
    ["result that is not a promise", (h) => h.result = {}, /run\.result/],
    ["cancel that is not a function", (h) => h.cancel = null, /run\.cancel/],
    ["a sendMessage that is not a function", (h) => h.sendMessage = "x", /run\.sendMessage/],
    ["a resume that is not a function", (h) => h.resume = 1, /run\.resume/],
    [
      "an id getter that throws",
      (h) =>
        Object.defineProperty(h, "id", {
          get() {
            throw new Error("id exploded");
          },
        }),
      /id exploded/,
    ],
    [
      "a started promise whose constructor getter throws",
      (h) => {
        const started = Promise.resolve();
        Object.defineProperty(started, "constructor", {
          get() {
            throw new Error("constructor exploded");
          },
        });
        h.started = started;
      },
      /constructor exploded/,
    ],
  ];
  // The provider's own throws pass through; every other malformed field is a contract fault.
  const thrownByProvider = new Set([
    "an id getter that throws",
    "a started promise whose constructor getter throws",
  ]);
  for (const [label, mutate, pattern] of cases) {
    await t.step(label, async () => {
      const { root, service, parent } = setup();
      const provider = manualProvider("bad", undefined, (run) => {
        const handle = { ...run.handle } as Record<string, unknown>;
        mutate(handle);
        return handle;
      });
      // Apply the mutation to the returned handle itself.
      const wrapped = {
        ...provider,
        start(request: Parameters<typeof provider.start>[0]) {
          const handle = provider.start(request) as unknown as Record<string, unknown>;
          const copy: Record<string, unknown> = {};
          for (const key of Object.keys(handle)) copy[key] = handle[key];
          mutate(copy);
          return copy as unknown as SubagentRunHandle;
        },
      };
      service.registerProvider(wrapped);
      assert.throws(
        () => service.start("bad", { prompt: "x", parent }),
        (error: Error) =>
          pattern.test(error.message) &&
          (error instanceof SubagentContractError) === !thrownByProvider.has(label),
      );
      assert.equal(provider.runs[0].disposes, 1, "rollback disposed the child");
      await root.dispose();
    });
  }
  await t.step("a result whose constructor getter throws: rolled back, never started", async () => {
    const { root, service, parent } = setup();
    const starts: string[] = [];
    root.on(subagentStart, (info) => void starts.push(info.runId));
    const inner = manualProvider("hostile-result");
    service.registerProvider({
      ...inner,
      start(request) {
        const result = new Promise<never>(() => {});
        Object.defineProperty(result, "constructor", {
          get() {
            throw new Error("result constructor exploded");
          },
        });
        return { ...inner.start(request), started: Promise.resolve(), result };
      },
    });
    assert.throws(() => service.start("hostile-result", { prompt: "x", parent }), /exploded/);
    await flush();
    assert.equal(inner.runs[0].disposes, 1, "rolled back");
    assert.deepEqual(starts, [], "a rolled-back run is never announced as started");
    await root.dispose();
  });
  await t.step("a dispose that is not a function is reported first", async () => {
    const { root, service, parent } = setup();
    service.registerProvider({
      ...manualProvider("nodispose"),
      start: () => ({ id: "", dispose: 5 }) as never,
    });
    assert.throws(() => service.start("nodispose", { prompt: "x", parent }), /run\.dispose/);
    await root.dispose();
  });
  await t.step("a start that returns a promise; the late run is disposed", async () => {
    const { root, service, parent } = setup();
    const inner = manualProvider("async");
    service.registerProvider({
      ...inner,
      start: (request) => Promise.resolve(inner.start(request)) as never,
    });
    assert.throws(() => service.start("async", { prompt: "x", parent }), /returned a promise/);
    await flush();
    assert.equal(inner.runs[0].disposes, 1);
    await root.dispose();
  });
  await t.step("a start that throws propagates and starts nothing", async () => {
    const { root, service, parent } = setup();
    service.registerProvider({
      ...manualProvider("throws"),
      start: () => {
        throw new Error("no child today");
      },
    });
    assert.throws(() => service.start("throws", { prompt: "x", parent }), /no child today/);
    await root.dispose();
  });
});

Deno.test("dispose() is memoized and re-entrancy-safe", async (t) => {
  await t.step("every call returns one promise and the provider disposes once", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const run = service.start("p", { prompt: "x", parent });
    const first = run.dispose();
    assert.equal(run.dispose(), first);
    await first;
    assert.equal(run.dispose(), first);
    assert.equal(provider.runs[0].disposes, 1);
    await root.dispose();
    assert.equal(provider.runs[0].disposes, 1, "the parent's teardown joins the same disposal");
  });
  await t.step("a synchronous re-entry joins the pending disposal", async () => {
    const { root, service, parent } = setup();
    let calls = 0;
    let reentered: Promise<void> | undefined;
    const run = (() => {
      service.registerProvider(manualProvider("re", undefined, () => ({
        dispose() {
          calls++;
          reentered = run.dispose();
          return Promise.resolve();
        },
      })));
      return service.start("re", { prompt: "x", parent });
    })();
    const disposal = run.dispose();
    assert.equal(reentered, disposal);
    await disposal;
    assert.equal(calls, 1);
    await root.dispose();
  });
  await t.step("a disposer returning the wrapper's own promise is a cyclic fault", async () => {
    const { root, service, parent } = setup();
    const holder: { run?: ReturnType<typeof service.start> } = {};
    service.registerProvider(manualProvider("cyclic", undefined, () => ({
      dispose: () => holder.run!.dispose(),
    })));
    holder.run = service.start("cyclic", { prompt: "x", parent });
    await assert.rejects(holder.run.dispose(), /cyclic/);
    await root.dispose();
  });
  await t.step("a failing provider disposer rejects dispose()", async () => {
    const { root, service, parent } = setup();
    service.registerProvider(manualProvider("fails", undefined, () => ({
      dispose: () => Promise.reject(new Error("teardown failed")),
    })));
    const run = service.start("fails", { prompt: "x", parent });
    await assert.rejects(run.dispose(), /teardown failed/);
    await root.dispose();
  });
});

Deno.test("result is one detached, deeply frozen normalization", async () => {
  const { root, service, parent } = setup();
  const provider = manualProvider("p");
  service.registerProvider(provider);
  const ends: SubagentRunEndInfo[] = [];
  parent.scope.on(subagentEnd, (info) => void ends.push(info));
  const run = service.start("p", { prompt: "x", parent });
  const raw = { output: "plain text", stopReason: "completed" as const };
  provider.runs[0].started.resolve();
  provider.runs[0].result.resolve(raw);
  const result = await run.result;
  const { usage, ...rest } = result;
  assert.deepEqual(rest, {
    output: [{ type: "text", text: "plain text" }],
    stopReason: "completed",
  });
  assert.equal(usage!.partial, true, "a provider that reports no usage makes it partial");
  assert.ok(
    Object.isFrozen(usage) && Object.isFrozen(usage!.self) && Object.isFrozen(usage!.total),
  );
  assert.ok(
    Object.isFrozen(result) && Object.isFrozen(result.output) && Object.isFrozen(result.output[0]),
  );
  (raw as { output: string }).output = "mutated by the provider";
  assert.equal((result.output[0] as { text: string }).text, "plain text");
  assert.equal(await run.result, result);
  await flush();
  assert.equal(ends[0].result, result, "telemetry shares the caller's object");
  assert.equal(ends[0].lastAssistantMessage, result.output);
  await run.dispose();
  await root.dispose();
});

Deno.test("result carries a child-level failure as stopReason, never a rejection", async () => {
  const { root, service, parent } = setup();
  const provider = manualProvider("p");
  service.registerProvider(provider);
  for (const stopReason of ["error", "aborted", "max-tokens", "refusal"] as const) {
    const run = service.start("p", { prompt: "x", parent });
    const raw = provider.runs.at(-1)!;
    raw.started.resolve();
    raw.result.resolve({ output: [], stopReason });
    assert.equal((await run.result).stopReason, stopReason);
    await run.dispose();
  }
  await root.dispose();
});

Deno.test("result.error is typed data, checked, copied and frozen", async (t) => {
  const settle = async (raw: unknown, withSchema = false) => {
    const { root, service, parent, records } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const ends: SubagentRunEndInfo[] = [];
    parent.scope.on(subagentEnd, (info) => void ends.push(info));
    const run = service.start("p", {
      prompt: "x",
      parent,
      ...(withSchema ? { outputSchema: { type: "object" } } : {}),
    });
    provider.runs[0].started.resolve();
    provider.runs[0].result.resolve(raw as never);
    const outcome: { result?: SubagentResult; error?: Error } = await run.result.then(
      (result) => ({ result }),
      (error: Error) => ({ error }),
    );
    await flush();
    await run.dispose();
    await root.dispose();
    return { ...outcome, ends, records };
  };
  await t.step("an error is kept beside the child's own output", async () => {
    const data = { status: 503, retry: [1, 2] };
    const raw = {
      output: "partial words",
      stopReason: "error",
      error: { code: "CHILD_FAILED", message: "the model answered 503", data, extra: "dropped" },
    };
    const { result, ends } = await settle(raw);
    assert.deepEqual({ ...result, usage: undefined }, {
      usage: undefined,
      output: [{ type: "text", text: "partial words" }],
      stopReason: "error",
      error: { code: "CHILD_FAILED", message: "the model answered 503", data },
    });
    assert.notEqual(result!.error!.data, data, "detached");
    assert.ok(Object.isFrozen(result!.error) && Object.isFrozen(result!.error!.data));
    assert.ok(Object.isFrozen((result!.error!.data as { retry: number[] }).retry));
    assert.equal(ends[0].error, result!.error, "subagent/end carries the same error");
    assert.equal(ends[0].stopReason, "error");
  });
  await t.step("a provider's own code and a non-error stop reason are accepted", async () => {
    const error = { code: "RATE_LIMITED_2", message: "slow down" };
    const { result } = await settle({ output: [], stopReason: "aborted", error });
    assert.deepEqual(result!.error, error);
  });
  await t.step("an error stop reason without an error gets UNSPECIFIED", async () => {
    const { result, ends } = await settle({ output: "", stopReason: "error" });
    assert.equal(result!.error!.code, "UNSPECIFIED");
    assert.match(result!.error!.message, /provider "p" reported an error without saying/);
    assert.equal(ends[0].error, result!.error);
  });
  await t.step("no error on a completed result", async () => {
    const { result } = await settle({ output: "fine", stopReason: "completed" });
    assert.ok(!("error" in result!));
  });
  const faults: [string, unknown, RegExp][] = [
    [
      "an error with completed",
      { code: "CHILD_FAILED", message: "?" },
      /with stopReason "completed"/,
    ],
    ["an error that is a string", "boom", /result\.error must be an object/],
    ["a lower-case code", { code: "oops", message: "x" }, /result\.error\.code/],
    ["an empty message", { code: "CHILD_FAILED", message: "" }, /result\.error\.message/],
    ["data that is not JSON", { code: "X", message: "x", data: { f() {} } }, /error\.data\.f/],
  ];
  for (const [label, error, pattern] of faults) {
    await t.step(`${label} is a contract fault`, async () => {
      const stopReason = label === "an error with completed" ? "completed" : "error";
      const outcome = await settle({ output: "", stopReason, error });
      assert.match(String(outcome.error), pattern);
      assert.equal(outcome.ends[0].error?.code, "PROVIDER_FAULT");
    });
  }
  await t.step("an unknown field on an output block is dropped, the output kept", async () => {
    const raw = {
      output: [
        { type: "text", text: "one", annotations: { lang: "en" } },
        { type: "text", text: "two" },
        { type: "resource", uri: "file:///a", text: "three", _meta: 1 },
      ],
      stopReason: "completed",
    };
    const { result, records } = await settle(raw);
    assert.deepEqual(result!.output, [
      { type: "text", text: "one" },
      { type: "text", text: "two" },
      { type: "resource", uri: "file:///a", text: "three" },
    ]);
    assert.ok(result!.output.every((block) => Object.isFrozen(block)));
    assert.ok(Object.isFrozen(result!.output));
    const warnings = records.filter((r) => r.level === "warn").map((r) => r.message);
    assert.equal(warnings.length, 2, warnings.join("\n"));
    assert.match(warnings[0], /dropped the unknown field "annotations" of result\.output\[0\]/);
    assert.match(warnings[1], /"_meta" of result\.output\[2\]/);
  });
  await t.step("an unknown block type still rejects, naming it", async () => {
    const raw = { output: [{ type: "audio", data: "" }], stopReason: "completed" };
    assert.match(String((await settle(raw)).error), /result\.output\[0\]\.type/);
  });
});

Deno.test("malformed terminal data rejects only after the child is torn down", async (t) => {
  const schema = { type: "object", required: ["n"], properties: { n: { type: "integer" } } };
  const cases: [string, unknown, boolean, RegExp][] = [
    ["a non-object result", "done", false, /result must be an object/],
    ["an unknown stopReason", { output: "", stopReason: "finished" }, false, /stopReason/],
    ["a numeric output", { output: 5, stopReason: "completed" }, false, /result\.output/],
    [
      "an output with a class instance",
      { output: [new Map()], stopReason: "completed" },
      false,
      /Map/,
    ],
    [
      "structured nobody asked for",
      { output: "", structured: {}, stopReason: "completed" },
      false,
      /none was requested/,
    ],
    [
      "a structured value with a function",
      { output: "", structured: { f() {} }, stopReason: "completed" },
      true,
      /structured\.f/,
    ],
    [
      "a completion missing its structured value",
      { output: "", stopReason: "completed" },
      true,
      /without result\.structured/,
    ],
    [
      "a structured value off the schema",
      { output: "", structured: { n: 1.5 }, stopReason: "completed" },
      true,
      /structured\.n/,
    ],
    [
      "structured on an error",
      { output: "", structured: { n: 1 }, stopReason: "error" },
      true,
      /stopReason "error"/,
    ],
  ];
  for (const [label, raw, withSchema, pattern] of cases) {
    await t.step(label, async () => {
      const { root, service, parent } = setup();
      const order: string[] = [];
      const disposed = deferred<void>();
      const provider = manualProvider("p", undefined, () => ({
        dispose() {
          order.push("dispose started");
          return disposed.promise.then(() => void order.push("dispose finished"));
        },
      }));
      service.registerProvider(provider);
      const ends: SubagentRunEndInfo[] = [];
      parent.scope.on(subagentEnd, (info) => void ends.push(info));
      const run = service.start("p", {
        prompt: "x",
        parent,
        ...(withSchema ? { outputSchema: schema } : {}),
      });
      provider.runs[0].started.resolve();
      provider.runs[0].result.resolve(raw as never);
      const rejection = run.result.catch((error: Error) => {
        order.push("result rejected");
        return error;
      });
      await flush();
      assert.deepEqual(order, ["dispose started"]);
      disposed.resolve();
      const error = await rejection;
      assert.match(String(error), pattern);
      assert.deepEqual(order, ["dispose started", "dispose finished", "result rejected"]);
      await flush();
      assert.equal(ends.length, 1);
      assert.equal(ends[0].lastAssistantMessage, undefined, "no lastAssistantMessage on a fault");
      assert.equal(ends[0].result, undefined);
      assert.equal(ends[0].stopReason, "error", "a fault still carries a stop reason");
      assert.equal(ends[0].error?.code, "PROVIDER_FAULT");
      assert.match(ends[0].error!.message, pattern);
      assert.ok(Object.isFrozen(ends[0].error));
      await run.dispose();
      await root.dispose();
    });
  }
  await t.step("a valid structured value passes, frozen and detached", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const run = service.start("p", { prompt: "x", parent, outputSchema: schema });
    const structured = { n: 3 };
    provider.runs[0].started.resolve();
    provider.runs[0].result.resolve({ output: "ok", structured, stopReason: "completed" });
    const result = await run.result;
    assert.deepEqual(result.structured, { n: 3 });
    assert.notEqual(result.structured, structured);
    assert.ok(Object.isFrozen(result.structured));
    await run.dispose();
    await root.dispose();
  });
});

Deno.test("a rejected provider result passes through as an infrastructure fault", async () => {
  const { root, service, parent } = setup();
  const provider = manualProvider("p");
  service.registerProvider(provider);
  const ends: SubagentRunEndInfo[] = [];
  parent.scope.on(subagentEnd, (info) => void ends.push(info));
  const run = service.start("p", { prompt: "x", parent });
  provider.runs[0].started.resolve();
  provider.runs[0].result.reject(new Error("transport vanished"));
  await assert.rejects(run.result, /transport vanished/);
  await flush();
  assert.deepEqual(ends[0].error, { code: "PROVIDER_FAULT", message: "transport vanished" });
  assert.equal(ends[0].stopReason, "error");
  assert.equal(ends[0].lastAssistantMessage, undefined);
  await run.dispose();
  await root.dispose();
});

Deno.test("subagent/start and subagent/end follow readiness", async (t) => {
  await t.step("start waits for started; an early end is buffered until start", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const log: string[] = [];
    parent.scope.on(subagentStart, () => void log.push("start"));
    parent.scope.on(subagentEnd, () => void log.push("end"));
    const run = service.start("p", { prompt: "x", parent });
    provider.runs[0].result.resolve({ output: "early", stopReason: "completed" });
    await run.result;
    await flush();
    assert.deepEqual(log, [], "no event before readiness");
    provider.runs[0].started.resolve();
    await flush();
    assert.deepEqual(log, ["start", "end"]);
    await run.dispose();
    await root.dispose();
  });
  await t.step("a readiness rejection emits neither and escapes nowhere", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const log: string[] = [];
    parent.scope.on(subagentStart, () => void log.push("start"));
    parent.scope.on(subagentEnd, () => void log.push("end"));
    const run = service.start("p", { prompt: "x", parent });
    provider.runs[0].started.reject(new Error("cancelled before the child existed"));
    provider.runs[0].result.resolve({ output: "", stopReason: "aborted" });
    assert.equal((await run.result).stopReason, "aborted");
    await assert.rejects(run.started, /cancelled before/);
    await flush();
    assert.deepEqual(log, []);
    await run.dispose();
    await root.dispose();
  });
  await t.step("an unobserved readiness rejection is not an unhandled rejection", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const run = service.start("p", { prompt: "x", parent });
    provider.runs[0].started.reject(new Error("never looked at"));
    provider.runs[0].result.reject(new Error("never looked at either"));
    await flush();
    await run.dispose();
    await root.dispose();
  });
  await t.step(
    "events land in the parent's scope: ancestors see them, siblings do not",
    async () => {
      const { root, service, parent } = setup();
      const provider = manualProvider("p");
      service.registerProvider(provider);
      const sibling = root.child("sibling");
      const seen: string[] = [];
      root.on(subagentStart, () => void seen.push("root"));
      parent.scope.on(subagentStart, () => void seen.push("parent"));
      sibling.on(subagentStart, () => void seen.push("sibling"));
      const run = service.start("p", { prompt: "x", parent });
      await flush();
      assert.deepEqual(seen, [], "nothing before readiness");
      provider.runs[0].started.resolve();
      await flush();
      assert.deepEqual(seen, ["parent", "root"], "nearest scope first; the sibling sees nothing");
      await run.dispose();
      await root.dispose();
    },
  );
  await t.step("payloads are deeply frozen and name the run", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const infos: SubagentRunInfo[] = [];
    const seenBy: string[] = [];
    root.on(subagentStart, (info) => void seenBy.push(`root:${info.runId}`));
    parent.scope.on(subagentStart, (info) => void infos.push(info));
    const run = service.start("p", { prompt: [{ type: "text", text: "task" }], parent });
    provider.runs[0].started.resolve();
    await flush();
    assert.deepEqual(seenBy, ["root:p-1"]);
    assert.deepEqual(
      { ...infos[0], prompt: [...infos[0].prompt] },
      {
        runId: "p-1",
        provider: "p",
        depth: 1,
        parentId: "parent",
        prompt: [{ type: "text", text: "task" }],
        inheritsParentContext: false,
      },
    );
    assert.ok(Object.isFrozen(infos[0]) && Object.isFrozen(infos[0].prompt[0]));
    await run.dispose();
    await root.dispose();
  });
  await t.step("a throwing or rejecting listener is contained; later listeners run", async () => {
    const { root, service, parent, records } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const seen: string[] = [];
    parent.scope.on(subagentEnd, () => {
      throw new Error("sync listener broke");
    });
    parent.scope.on(subagentEnd, () => Promise.reject(new Error("async listener broke")));
    let resolveSlow!: () => void;
    parent.scope.on(subagentEnd, () => new Promise<void>((resolve) => resolveSlow = resolve));
    parent.scope.on(subagentEnd, (info) => void seen.push(info.stopReason!));
    const run = service.start("p", { prompt: "x", parent });
    provider.runs[0].started.resolve();
    provider.runs[0].result.resolve({ output: "ok", stopReason: "completed" });
    const result = await run.result;
    await flush();
    assert.deepEqual(seen, ["completed"], "the slow async listener was not awaited");
    assert.equal(result.stopReason, "completed", "the caller is unaffected");
    const messages = records.map((r) => r.message);
    assert.ok(messages.some((m) => /subagent\/end.*threw/.test(m)), messages.join("\n"));
    assert.ok(messages.some((m) => /subagent\/end.*rejected/.test(m)), messages.join("\n"));
    resolveSlow();
    await run.dispose();
    await root.dispose();
  });
});

Deno.test("start() bridges the request signal to cancel", async (t) => {
  await t.step("an abort mid-run cancels once", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const controller = new AbortController();
    const run = service.start("p", { prompt: "x", parent, signal: controller.signal });
    controller.abort();
    controller.abort();
    assert.equal(provider.runs[0].cancels.length, 1);
    await run.dispose();
    await root.dispose();
  });
  await t.step("an already-aborted signal cancels right after start", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const controller = new AbortController();
    controller.abort();
    const run = service.start("p", { prompt: "x", parent, signal: controller.signal });
    await flush();
    assert.equal(provider.runs[0].cancels.length, 1);
    await run.dispose();
    await root.dispose();
  });
  await t.step("after settlement the signal is released", async () => {
    const { root, service, parent } = setup();
    const provider = manualProvider("p");
    service.registerProvider(provider);
    const controller = new AbortController();
    const run = service.start("p", { prompt: "x", parent, signal: controller.signal });
    provider.runs[0].started.resolve();
    provider.runs[0].result.resolve({ output: "", stopReason: "completed" });
    await run.result;
    controller.abort();
    assert.equal(provider.runs[0].cancels.length, 0);
    await run.dispose();
    await root.dispose();
  });
});

Deno.test("disposing the parent's scope disposes its runs", async () => {
  const { root, service, parent } = setup();
  const provider = manualProvider("p");
  service.registerProvider(provider);
  service.start("p", { prompt: "x", parent });
  service.start("p", { prompt: "y", parent });
  const other = service.start("p", { prompt: "z", parent: { id: "other", scope: root.child() } });
  await parent.scope.dispose();
  assert.deepEqual(provider.runs.map((r) => r.disposes), [1, 1, 0]);
  await other.dispose();
  await root.dispose();
});

Deno.test("sendMessage() and resume() are checked and wrapped", async () => {
  const { root, service, parent } = setup();
  const sent: unknown[] = [];
  const provider = manualProvider("steer", undefined, (run) => ({
    sendMessage(content) {
      sent.push(content);
      return Promise.resolve();
    },
    resume(content) {
      return provider.start({ ...run.request, prompt: content as never });
    },
  }));
  service.registerProvider(provider);
  const starts: string[] = [];
  parent.scope.on(subagentStart, (info) => void starts.push(info.runId));
  const run = service.start("steer", { prompt: "x", parent });
  await run.sendMessage!("more context");
  assert.deepEqual(sent, [[{ type: "text", text: "more context" }]]);
  assert.ok(Object.isFrozen(sent[0]));
  await assert.rejects(run.sendMessage!(5 as never), /content/);
  provider.runs[0].started.resolve();
  provider.runs[0].result.resolve({ output: "one", stopReason: "completed" });
  await run.result;
  const next = run.resume!("again");
  assert.ok(Object.isFrozen(next));
  assert.equal(next.id, "steer-2");
  assert.throws(() => run.resume!([]), /content/);
  provider.runs[1].started.resolve();
  provider.runs[1].result.resolve({ output: "two", stopReason: "completed" });
  assert.equal((await next.result).output[0].type, "text");
  await flush();
  assert.deepEqual(starts, ["steer-1", "steer-2"]);
  await next.dispose();
  await run.dispose();
  await root.dispose();
});
