import assert from "node:assert/strict";
import {
  type Agent,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  type LogRecord,
  textOf,
} from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  MAX_PENDING_INPUTS,
  type SubagentInputHandler,
  type SubagentInputRequest,
  subagentInputRequired,
  subagentInputResolved,
  type SubagentInputResolvedInfo,
  type SubagentRun,
  subagentRunPathKey,
  type SubagentService,
} from "@seam/subagent";
import { createForkProvider } from "@seam/subagent-fork";
import { createSpawnProvider } from "@seam/subagent-spawn";

interface World {
  host: Host;
  subagents: SubagentService;
  parent: Agent;
  /** The commands `run_command` ran. */
  ran: string[];
  /** Every request announced anywhere below the root, and every resolution. */
  asked: SubagentInputRequest[];
  resolved: SubagentInputResolvedInfo[];
  /** What was logged anywhere in the host. */
  logs: LogRecord[];
  dispose(): Promise<void>;
}

/**
 * A host with spawn and fork, a `run_command` tool that requires approval
 * (except for `ls`), a `delegate` tool (a child delegates again), and a
 * parent agent.
 */
async function world(): Promise<World> {
  const memory = createMemoryLogger();
  const host = createHost({ logger: memory.logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  subagents.registerProvider(createForkProvider());
  const ran: string[] = [];
  host.tools.register(host.scope, {
    name: "run_command",
    description: "Run a shell command",
    parameters: {
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    },
    requiresApproval: ({ command }: { command: string }) => command !== "ls",
    kind: "execute",
    title: ({ command }: { command: string }) => `Run "${command}"`,
    execute: ({ command }: { command: string }) => {
      ran.push(command);
      return { content: `ran ${command}` };
    },
  });
  host.tools.register(host.scope, {
    name: "delegate",
    description: "Delegate to a spawn child",
    parameters: {
      type: "object",
      properties: { prompt: { type: "string" } },
      required: ["prompt"],
    },
    async execute({ prompt }: { prompt: string }, call) {
      const run = subagents.start("spawn", { prompt, parent: call.agent, signal: call.signal });
      try {
        return { content: textOf((await run.result).output) };
      } finally {
        await run.dispose();
      }
    },
  });
  const asked: SubagentInputRequest[] = [];
  const resolved: SubagentInputResolvedInfo[] = [];
  host.scope.on(subagentInputRequired, (request) => void asked.push(request));
  host.scope.on(subagentInputResolved, (info) => void resolved.push(info));
  const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });
  return {
    host,
    subagents,
    parent,
    ran,
    asked,
    resolved,
    logs: memory.records,
    dispose: () => host.scope.dispose(),
  };
}

const CALL = '@call run_command {"command": "deno test"}\n@reply {{results}}';

/** A handler that answers nothing and waits until its request is settled otherwise. */
const waitingHandler: SubagentInputHandler = (_request, { signal }) =>
  new Promise((resolve) => signal.addEventListener("abort", () => resolve(undefined)));

/** Wait until `w` saw `n` requests announced. */
async function askedAtLeast(w: World, n: number): Promise<void> {
  for (let i = 0; i < 1_000 && w.asked.length < n; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.ok(w.asked.length >= n, `${n} request(s) announced`);
}

async function finish(run: SubagentRun): Promise<{ stopReason: string; text: string }> {
  try {
    const result = await run.result;
    return { stopReason: result.stopReason, text: textOf(result.output) };
  } finally {
    await run.dispose();
  }
}

for (const provider of ["spawn", "fork"]) {
  Deno.test(`${provider}: a child's call that needs approval asks up the tree and runs once allowed`, async () => {
    const w = await world();
    const seen: SubagentInputRequest[] = [];
    handleSubagentInput(w.host.scope, (request) => {
      seen.push(request);
      return { outcome: "selected", optionId: "allow_once" };
    });
    const run = w.subagents.start(provider, { prompt: CALL, parent: w.parent });
    assert.equal(typeof run.respond, "function", "the run takes answers");
    assert.deepEqual(await finish(run), { stopReason: "completed", text: "ran deno test" });
    assert.deepEqual(w.ran, ["deno test"]);
    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0], {
      kind: "permission",
      message: `Subagent "${run.id}" asks to call tool "run_command": Run "deno test"`,
      toolCall: {
        name: "run_command",
        title: 'Run "deno test"',
        kind: "execute",
        rawInput: { command: "deno test" },
      },
      options: [
        { id: "allow_once", label: "Allow once", kind: "allow_once" },
        { id: "allow_always", label: "Allow always", kind: "allow_always" },
        { id: "reject_once", label: "Reject once", kind: "reject_once" },
        { id: "reject_always", label: "Reject always", kind: "reject_always" },
      ],
      id: `${run.id}/input-1`,
      runId: run.id,
      path: [run.id],
    });
    assert.equal(w.asked[0], seen[0], "announced in the parent's scope (heard at the root)");
    assert.deepEqual(w.resolved.map((r) => r.answer), [
      { outcome: "selected", optionId: "allow_once" },
    ]);
    await w.dispose();
  });

  Deno.test(`${provider}: a rejected call is the tool's error result, and the tool does not run`, async () => {
    const w = await world();
    handleSubagentInput(w.host.scope, () => ({ outcome: "selected", optionId: "reject_once" }));
    const run = w.subagents.start(provider, { prompt: CALL, parent: w.parent });
    assert.deepEqual(await finish(run), {
      stopReason: "completed",
      text:
        'Tool "run_command" was not run: the call was not approved: the answer was "Reject once"',
    });
    assert.deepEqual(w.ran, []);
    await w.dispose();
  });
}

Deno.test("in-process: with no handler anywhere the call is refused and the tool does not run", async () => {
  const w = await world();
  const run = w.subagents.start("spawn", { prompt: CALL, parent: w.parent });
  const { stopReason, text } = await finish(run);
  assert.equal(stopReason, "completed");
  assert.match(
    text,
    /^Tool "run_command" was not run: the call was not approved: no one handles input requests here/,
  );
  assert.deepEqual(w.ran, []);
  assert.equal(w.asked.length, 1, "the request was still announced");
  await w.dispose();
});

Deno.test("in-process: a call that needs no approval never asks", async () => {
  const w = await world();
  const run = w.subagents.start("spawn", {
    prompt: '@call run_command {"command": "ls"}\n@reply {{results}}',
    parent: w.parent,
  });
  assert.deepEqual(await finish(run), { stopReason: "completed", text: "ran ls" });
  assert.deepEqual(w.asked, []);
  await w.dispose();
});

Deno.test("in-process: always answers hold for the rest of the child's life, per tool", async (t) => {
  const TWICE = '@call run_command {"command": "deno test"}\n' +
    '@call run_command {"command": "deno lint"}\n@reply {{results}}';
  for (
    const [optionId, text, ran] of [
      ["allow_always", "ran deno lint", ["deno test", "deno lint"]],
      [
        "reject_always",
        'Tool "run_command" was not run: the call was not approved: calls to "run_command" were rejected always for this subagent ("Reject always")',
        [],
      ],
    ] as const
  ) {
    await t.step(optionId, async () => {
      const w = await world();
      let asked = 0;
      handleSubagentInput(w.host.scope, () => {
        asked++;
        return { outcome: "selected", optionId };
      });
      const run = w.subagents.start("spawn", { prompt: TWICE, parent: w.parent });
      assert.deepEqual(await finish(run), { stopReason: "completed", text });
      assert.equal(asked, 1, "the second call was decided by the first answer");
      assert.deepEqual(w.ran, ran);
      // Another child asks again.
      const other = w.subagents.start("spawn", { prompt: CALL, parent: w.parent });
      await finish(other);
      assert.equal(asked, 2);
      await w.dispose();
    });
  }
});

Deno.test("in-process: cancel and dispose refuse a pending request; the tool does not run", async (t) => {
  for (const how of ["cancel", "dispose"] as const) {
    await t.step(how, async () => {
      const w = await world();
      let handlerSignal: AbortSignal | undefined;
      handleSubagentInput(w.host.scope, (request, context) => {
        handlerSignal = context.signal;
        return waitingHandler(request, context);
      });
      const run = w.subagents.start("spawn", { prompt: CALL, parent: w.parent });
      await askedAtLeast(w, 1);
      if (how === "cancel") run.cancel("the user pressed stop");
      else await run.dispose();
      const result = await run.result;
      assert.equal(result.stopReason, "aborted");
      await run.dispose();
      assert.deepEqual(w.resolved.map((r) => r.answer), [
        {
          outcome: "refused",
          reason: how === "cancel" ? "cancelled: the user pressed stop" : "cancelled: disposed",
        },
      ]);
      assert.equal(handlerSignal?.aborted, true, "the handler learns it is no longer needed");
      assert.deepEqual(w.ran, []);
      await w.dispose();
    });
  }
});

Deno.test("in-process: run.respond answers; stale, duplicate and malformed answers are refused loudly", async () => {
  const w = await world();
  handleSubagentInput(w.host.scope, waitingHandler);
  const run = w.subagents.start("fork", { prompt: CALL, parent: w.parent });
  await askedAtLeast(w, 1);
  const id = w.asked[0].id;
  const respond = run.respond!;
  assert.throws(
    () => respond("spawn-0/input-9", { outcome: "selected", optionId: "allow_once" }),
    /Cannot answer input request "spawn-0\/input-9": no such request waits/,
  );
  assert.throws(
    () => respond(id, { outcome: "selected", optionId: "allow_everything" }),
    /option "allow_everything" was not offered \(offered: allow_once, allow_always, reject_once, reject_always\)/,
  );
  assert.throws(
    () => respond(id, { outcome: "answered", text: "sure" }),
    /a permission request is answered \{outcome: "selected", optionId\}/,
  );
  assert.throws(() => respond(id, { outcome: "refused" } as never), /a refusal needs a reason/);
  assert.throws(() => respond(id, null as never), TypeError);
  assert.throws(() => respond("", null as never), /requestId must be a non-empty string/);
  assert.equal(w.resolved.length, 0, "still waiting after every bad answer");
  assert.deepEqual(w.ran, []);

  respond(id, { outcome: "selected", optionId: "allow_once" });
  assert.throws(
    () => respond(id, { outcome: "selected", optionId: "allow_once" }),
    /no such request waits/,
    "a duplicate answer",
  );
  assert.deepEqual(await finish(run), { stopReason: "completed", text: "ran deno test" });
  assert.deepEqual(w.ran, ["deno test"]);
  assert.throws(
    () => respond(id, { outcome: "selected", optionId: "allow_once" }),
    /has finished/,
    "a stale answer after the run",
  );
  await w.dispose();
});

Deno.test("in-process: a grandchild's request carries the whole path and is announced at each level", async () => {
  const w = await world();
  // The parent is itself a run of a tree elsewhere (a gateway's caller, say).
  w.parent.scope.provide(subagentRunPathKey, ["remote-root"]);
  const seen: SubagentInputRequest[] = [];
  handleSubagentInput(w.host.scope, (request) => {
    seen.push(request);
    return { outcome: "selected", optionId: "allow_once" };
  });
  const run = w.subagents.start("spawn", {
    prompt: `@call delegate ${JSON.stringify({ prompt: CALL })}\n@reply child: {{results}}`,
    parent: w.parent,
  });
  const heardInChild: string[] = [];
  await run.started;
  w.host.agents.get(run.id)!.scope.on(
    subagentInputRequired,
    (request) => void heardInChild.push(request.id),
  );
  assert.deepEqual(await finish(run), { stopReason: "completed", text: "child: ran deno test" });
  assert.equal(seen.length, 1);
  const [request] = seen;
  assert.equal(request.path.length, 3);
  assert.deepEqual(request.path.slice(0, 2), ["remote-root", run.id]);
  assert.equal(request.runId, request.path[2]);
  assert.notEqual(request.runId, run.id);
  assert.deepEqual(heardInChild, [request.id], "announced in the grandchild's parent's scope");
  await w.dispose();
});

Deno.test("in-process: a handler on the child's own scope answers before the root's", async () => {
  const w = await world();
  const order: string[] = [];
  handleSubagentInput(w.host.scope, () => {
    order.push("root");
    return { outcome: "selected", optionId: "reject_once" };
  });
  handleSubagentInput(w.parent.scope, () => {
    order.push("parent");
    return { outcome: "selected", optionId: "allow_once" };
  });
  const run = w.subagents.start("spawn", { prompt: CALL, parent: w.parent });
  assert.deepEqual(await finish(run), { stopReason: "completed", text: "ran deno test" });
  assert.deepEqual(order, ["parent"]);
  await w.dispose();
});

Deno.test("in-process: past 64 approvals waiting at once the child's calls are refused at once, the waiting ones stay answerable", async () => {
  const w = await world();
  handleSubagentInput(w.host.scope, waitingHandler);
  const calls = Array.from({ length: 70 }, (_, i) => ({
    name: "run_command",
    args: { command: `c${i}` },
  }));
  const run = w.subagents.start("spawn", {
    prompt: `@calls ${JSON.stringify(calls)}\n@reply {{results}}`,
    parent: w.parent,
  });
  await askedAtLeast(w, MAX_PENDING_INPUTS);
  // Give the refused calls time to settle: none more is announced.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(w.asked.length, MAX_PENDING_INPUTS, "the requests beyond were not announced");
  for (const request of w.asked) {
    run.respond!(request.id, { outcome: "selected", optionId: "allow_once" });
  }
  const { stopReason, text } = await finish(run);
  assert.equal(stopReason, "completed");
  assert.equal(w.ran.length, MAX_PENDING_INPUTS, "every waiting request stayed answerable");
  const refused = text.match(
    /too many input requests: run "[^"]+" has 64 waiting \(MAX_PENDING_INPUTS\)/g,
  ) ?? [];
  assert.equal(refused.length, 70 - MAX_PENDING_INPUTS);
  const warnings = w.logs.filter((r) => r.level === "warn" && r.message.includes("refusing more"));
  assert.equal(warnings.length, 1, "warned once per run");
  await w.dispose();
});
