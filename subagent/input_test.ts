import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import {
  handleSubagentInput,
  MAX_ANSWER_DATA_CHARS,
  MAX_ANSWER_DATA_DEPTH,
  MAX_PENDING_INPUTS,
  type SubagentInputAnswer,
  type SubagentInputAnswerInput,
  type SubagentInputAsk,
  subagentInputRequired,
  subagentInputResolved,
  SubagentInputs,
  subagentRunPathKey,
} from "./mod.ts";
import { manualProvider, setup } from "./_test_fixtures.ts";

const PERMISSION: SubagentInputAsk = {
  kind: "permission",
  message: "The child wants to run a command",
  toolCall: { name: "shell", kind: "execute", rawInput: { command: "rm -rf build" } },
  options: [
    { id: "allow", label: "Allow once", kind: "allow_once" },
    { id: "reject", label: "Reject", kind: "reject_once" },
  ],
};

Deno.test("SubagentInputs.ask() travels up to the nearest handler that answers", async () => {
  const root = createRootScope();
  const middle = root.child("parent-run");
  const seen: string[] = [];
  handleSubagentInput(root, (request) => {
    seen.push(`root:${request.id}`);
    return { outcome: "selected", optionId: "allow" };
  });
  handleSubagentInput(middle, (request) => {
    seen.push(`middle:${request.id}`);
    return undefined; // not mine: pass it up
  });
  middle.provide(subagentRunPathKey, ["root-run"]);
  const inputs = new SubagentInputs(middle, "child");
  const answer = await inputs.ask(PERMISSION);
  assert.deepEqual(answer, { outcome: "selected", optionId: "allow" });
  assert.deepEqual(seen, ["middle:child/input-1", "root:child/input-1"]);
  assert.equal(inputs.waiting, false);
  await root.dispose();
});

Deno.test("SubagentInputs.ask() with no handler anywhere refuses with a note, never allows", async () => {
  const root = createRootScope();
  const answer = await new SubagentInputs(root, "r").ask(PERMISSION);
  assert.equal(answer.outcome, "refused");
  assert.match((answer as { reason: string }).reason, /no one handles input requests here/);
  await root.dispose();
});

Deno.test("SubagentInputs announces the request with its path, then its answer, in the parent's scope", async () => {
  const root = createRootScope();
  root.provide(subagentRunPathKey, ["a", "b"]);
  const events: string[] = [];
  root.on(subagentInputRequired, (r) => events.push(`asked ${r.id} ${r.path.join(">")}`));
  root.on(
    subagentInputResolved,
    (r) => events.push(`resolved ${r.request.id} ${r.answer.outcome}`),
  );
  handleSubagentInput(root, () => ({ outcome: "answered", text: "blue" }));
  const answer = await new SubagentInputs(root, "c").ask({
    kind: "question",
    message: "Which colour?",
  });
  assert.deepEqual(answer, { outcome: "answered", text: "blue" });
  assert.deepEqual(events, ["asked c/input-1 a>b>c", "resolved c/input-1 answered"]);
  await root.dispose();
});

Deno.test("SubagentInputs.respond() takes the first valid answer and refuses the rest loudly", async (t) => {
  const root = createRootScope();
  // A handler that waits (a UI): the caller answers through respond.
  const signals: AbortSignal[] = [];
  handleSubagentInput(root, (_request, { signal }) => {
    signals.push(signal);
    return new Promise<SubagentInputAnswer | undefined>(() => {});
  });
  const inputs = new SubagentInputs(root, "r");
  const asking = inputs.ask(PERMISSION);
  const [request] = inputs.pending;
  await t.step("an option not offered: RangeError, still waiting", () => {
    assert.throws(
      () => inputs.respond(request.id, { outcome: "selected", optionId: "yes" }),
      /option "yes" was not offered \(offered: allow, reject\)/,
    );
    assert.equal(inputs.waiting, true);
  });
  await t.step("a malformed answer: TypeError naming what is wrong, still waiting", () => {
    assert.throws(
      () => inputs.respond(request.id, { outcome: "answered", text: "ok" }),
      /a permission request is answered \{outcome: "selected", optionId\}/,
    );
    assert.throws(
      () => inputs.respond(request.id, { outcome: "refused" } as never),
      /a refusal needs a reason/,
    );
    assert.equal(inputs.waiting, true);
  });
  await t.step("a valid answer settles it; the handler's signal aborts", async () => {
    inputs.respond(request.id, { outcome: "selected", optionId: "reject" });
    assert.deepEqual(await asking, { outcome: "selected", optionId: "reject" });
    assert.equal(signals[0].aborted, true);
  });
  await t.step("a duplicate or unknown answer: RangeError", () => {
    assert.throws(
      () => inputs.respond(request.id, { outcome: "selected", optionId: "allow" }),
      /no such request waits/,
    );
    assert.throws(() => inputs.respond("nope", { outcome: "refused", reason: "x" }), /"nope"/);
  });
  await root.dispose();
});

Deno.test("SubagentInputs.cancelAll() refuses what is pending as cancelled", async () => {
  const root = createRootScope();
  handleSubagentInput(root, () => new Promise<undefined>(() => {}));
  const inputs = new SubagentInputs(root, "r");
  const asking = inputs.ask({ kind: "question", message: "Name?" });
  inputs.cancelAll("the run was cancelled");
  assert.deepEqual(await asking, {
    outcome: "refused",
    reason: "cancelled: the run was cancelled",
  });
  await root.dispose();
});

Deno.test("SubagentInputs.ask() refuses at once past MAX_PENDING_INPUTS waiting, warns once, keeps the waiting ones", async () => {
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  handleSubagentInput(
    root,
    (_request, { signal }) =>
      new Promise<undefined>((resolve) =>
        signal.addEventListener("abort", () => resolve(undefined))
      ),
  );
  let announced = 0;
  root.on(subagentInputRequired, () => void announced++);
  const inputs = new SubagentInputs(root, "r");
  const waiting = Array.from(
    { length: MAX_PENDING_INPUTS },
    (_, i) => inputs.ask({ kind: "question", message: `Question ${i}?` }),
  );
  const beyond = [
    await inputs.ask({ kind: "question", message: "One more?" }),
    await inputs.ask({ kind: "question", message: "And another?" }),
  ];
  for (const answer of beyond) {
    assert.deepEqual(answer, {
      outcome: "refused",
      reason: `too many input requests: run "r" has 64 waiting (MAX_PENDING_INPUTS)`,
    });
  }
  assert.equal(announced, MAX_PENDING_INPUTS, "the requests beyond were not announced");
  assert.equal(inputs.pending.length, MAX_PENDING_INPUTS);
  const warnings = records.filter((r) => r.level === "warn");
  assert.equal(warnings.length, 1, "one warning per run");
  assert.match(warnings[0].message, /Run "r" has 64 input requests waiting: refusing more/);
  inputs.respond(inputs.pending[0].id, { outcome: "answered", text: "yes" });
  assert.deepEqual(await waiting[0], { outcome: "answered", text: "yes" });
  // Room again: the next request waits.
  inputs.ask({ kind: "question", message: "Now?" });
  assert.equal(inputs.pending.length, MAX_PENDING_INPUTS);
  assert.equal(inputs.pending.at(-1)?.message, "Now?");
  inputs.cancelAll("done");
  await Promise.all(waiting);
  await root.dispose();
});

Deno.test("SubagentInputs.ask() refuses a malformed request before announcing it", async () => {
  const root = createRootScope();
  const heard: unknown[] = [];
  root.on(subagentInputRequired, (r) => heard.push(r));
  const inputs = new SubagentInputs(root, "r");
  assert.throws(() => inputs.ask({ kind: "vote" } as never), /kind must be "permission"/);
  assert.throws(
    () => inputs.ask({ ...PERMISSION, options: [] }),
    /a permission request must offer options/,
  );
  assert.throws(() => inputs.ask({ kind: "question", message: "" }), /message must be a non-empty/);
  assert.deepEqual(heard, []);
  await root.dispose();
});

Deno.test("a handler that throws or answers wrongly is logged and the request goes up", async () => {
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  const child = root.child("c");
  handleSubagentInput(root, () => ({ outcome: "answered", text: "from root" }));
  handleSubagentInput(child, () => {
    throw new Error("handler bug");
  });
  const grandchild = child.child("g");
  handleSubagentInput(grandchild, () => ({ outcome: "selected", optionId: "x" }));
  const answer = await new SubagentInputs(grandchild, "r").ask({ kind: "question", message: "?" });
  assert.deepEqual(answer, { outcome: "answered", text: "from root" });
  assert.equal(records.filter((r) => r.level === "error").length, 2);
  await root.dispose();
});

Deno.test("run.respond is the provider's respond, the answer copied and checked", async () => {
  const { root, service, parent } = setup();
  handleSubagentInput(root, () => new Promise<undefined>(() => {}));
  let inputs!: SubagentInputs;
  service.registerProvider(manualProvider("asks", undefined, (run) => {
    inputs = new SubagentInputs(run.request.parent.scope, "asks-1");
    return { respond: (id: string, answer: SubagentInputAnswer) => inputs.respond(id, answer) };
  }));
  const run = service.start("asks", { prompt: "x", parent });
  assert.equal(typeof run.respond, "function");
  const asking = inputs.ask({ kind: "question", message: "Why?" });
  const answer = { outcome: "answered" as const, text: "because" };
  run.respond!(inputs.pending[0].id, answer);
  assert.deepEqual(await asking, answer);
  assert.throws(() => run.respond!("", answer), /requestId must be a non-empty string/);
  await run.dispose();
  await root.dispose();
});

Deno.test("SubagentInputs.ask() with a relay: the path reaches the run that asks below", async (t) => {
  const root = createRootScope();
  try {
    const parent = root.child("parent-run");
    parent.provide(subagentRunPathKey, ["root-run"]);
    const seen: string[][] = [];
    handleSubagentInput(root, (request) => {
      seen.push([request.id, request.runId, ...request.path]);
      return { outcome: "answered", text: "main" };
    });
    const inputs = new SubagentInputs(parent, "a2a-1");
    await t.step("the id is this run's, the runId and path the asking run's", async () => {
      const answer = await inputs.ask(
        { kind: "question", message: "Which branch?" },
        { below: ["remote-7", "acp-2"] },
      );
      assert.deepEqual(answer, { outcome: "answered", text: "main" });
      assert.deepEqual(seen, [[
        "a2a-1/input-1",
        "acp-2",
        "root-run",
        "a2a-1",
        "remote-7",
        "acp-2",
      ]]);
    });
    for (
      const [what, below] of [
        ["empty", []],
        ["too long", Array.from({ length: 65 }, (_, i) => `r${i}`)],
        ["an empty id", ["x", ""]],
        ["an id too long", ["x".repeat(257)]],
        ["not an array", "remote-7"],
      ] as const
    ) {
      await t.step(`a relay whose below is ${what} is refused before anything is announced`, () => {
        assert.throws(
          () =>
            inputs.ask({ kind: "question", message: "?" }, { below: below as unknown as string[] }),
          /Cannot ask for input: relay\.below must be 1 to 64 run ids/,
        );
        assert.equal(inputs.waiting, false);
        assert.equal(seen.length, 1);
      });
    }
  } finally {
    await root.dispose();
  }
});

Deno.test("SubagentInputs.respond() takes data: a JSON object, copied and frozen, its words the text when none is given", async (t) => {
  const root = createRootScope();
  handleSubagentInput(root, () => new Promise<undefined>(() => {}));
  const inputs = new SubagentInputs(root, "r");
  await t.step("data alone: the text is the data in words", async () => {
    const asking = inputs.ask({ kind: "question", message: "Approve the expense?" });
    const data = { status: "approved", by: { name: "Ada" } };
    inputs.respond(inputs.pending[0].id, { outcome: "answered", data });
    data.status = "changed afterwards";
    const answer = await asking;
    assert.deepEqual(answer, {
      outcome: "answered",
      text: '{"status":"approved","by":{"name":"Ada"}}',
      data: { status: "approved", by: { name: "Ada" } },
    });
    assert.ok(Object.isFrozen((answer as { data: { by: object } }).data.by));
  });
  await t.step("text and data: both kept as given", async () => {
    const asking = inputs.ask({ kind: "authentication", message: "Log in" });
    inputs.respond(inputs.pending[0].id, {
      outcome: "answered",
      text: "here is the token",
      data: { token: "t-1" },
    });
    assert.deepEqual(await asking, {
      outcome: "answered",
      text: "here is the token",
      data: { token: "t-1" },
    });
  });
  await root.dispose();
});

Deno.test("SubagentInputs.respond() refuses data of the wrong shape, naming answer.data, and the request keeps waiting", async () => {
  const root = createRootScope();
  handleSubagentInput(root, () => new Promise<undefined>(() => {}));
  const inputs = new SubagentInputs(root, "r");
  const asking = inputs.ask({ kind: "question", message: "Which?" });
  const id = inputs.pending[0].id;
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < MAX_ANSWER_DATA_DEPTH; i++) deep = { d: deep };
  const wrong: [string, unknown, RegExp][] = [
    [
      "an array",
      [1, 2],
      /answer\.data must be a JSON object of at most 32 levels and 65536 characters/,
    ],
    ["a string", "approved", /answer\.data must be a JSON object/],
    ["null", null, /answer\.data must be a JSON object/],
    ["too deep", deep, /answer\.data must be a JSON object of at most 32 levels/],
    ["too big", { s: "x".repeat(MAX_ANSWER_DATA_CHARS) }, /65536 characters/],
    [
      "not JSON",
      { when: new Date(0) },
      /answer\.data\.when: a Date instance is not a plain JSON object/,
    ],
    ["no text, no data", undefined, /the answer needs text or data/],
  ];
  for (const [what, data, problem] of wrong) {
    assert.throws(
      () => inputs.respond(id, { outcome: "answered", data } as never),
      (e: unknown) => e instanceof TypeError && problem.test(e.message),
      what,
    );
    assert.equal(inputs.waiting, true, `${what}: still waiting`);
  }
  assert.throws(
    () => inputs.respond(id, { outcome: "selected", optionId: "x" }),
    /a question request is answered \{outcome: "answered", text and\/or data\}/,
  );
  // Just within the bounds: taken.
  let edge: Record<string, unknown> = {};
  for (let i = 1; i < MAX_ANSWER_DATA_DEPTH; i++) edge = { d: edge };
  inputs.respond(id, { outcome: "answered", data: edge as never });
  assert.deepEqual((await asking as { data: unknown }).data, edge);
  await root.dispose();
});

Deno.test("a handler and run.respond answer with data; a permission request takes none", async () => {
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  handleSubagentInput(root, (request): SubagentInputAnswerInput => ({
    outcome: "answered",
    data: request.kind === "question" ? { branch: "main" } : { allow: true },
  }));
  const inputs = new SubagentInputs(root, "r");
  assert.deepEqual(await inputs.ask({ kind: "question", message: "Which branch?" }), {
    outcome: "answered",
    text: '{"branch":"main"}',
    data: { branch: "main" },
  });
  // The handler's data answer to a permission request is wrong: it goes up, and no one is left.
  const refused = await inputs.ask(PERMISSION);
  assert.equal(refused.outcome, "refused");
  assert.match(records[0].message, /answered it wrongly; it goes up/);
  await root.dispose();

  const { root: host, service, parent } = setup();
  handleSubagentInput(host, () => new Promise<undefined>(() => {}));
  let asks!: SubagentInputs;
  service.registerProvider(manualProvider("asks", undefined, () => {
    asks = new SubagentInputs(parent.scope, "asks-1");
    return { respond: (id: string, answer: SubagentInputAnswerInput) => asks.respond(id, answer) };
  }));
  const run = service.start("asks", { prompt: "x", parent });
  const asking = asks.ask({ kind: "question", message: "Result of approve_expense?" });
  run.respond!(asks.pending[0].id, { outcome: "answered", data: { status: "approved" } });
  assert.deepEqual((await asking as { data: unknown }).data, { status: "approved" });
  await run.dispose();
  await host.dispose();
});
