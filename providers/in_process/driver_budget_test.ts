import assert from "node:assert/strict";
import {
  agentCreated,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  textOf,
} from "@seam/host";
import { createSubagentService, handleSubagentInput, type SubagentService } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";

interface World {
  host: Host;
  subagents: SubagentService;
  echoes: number;
  dispose(): Promise<void>;
}

/** A host on the scripted model with spawn, an `echo` tool and a `delegate` tool. */
function world(): World {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  const w: World = { host, subagents, echoes: 0, dispose: () => host.scope.dispose() };
  host.tools.register(host.scope, {
    name: "echo",
    description: "Echo",
    parameters: { type: "object", properties: {} },
    execute() {
      w.echoes++;
      return { content: "echoed" };
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
    async execute(args: { prompt: string }, call) {
      let run;
      try {
        run = subagents.start("spawn", { prompt: args.prompt, parent: call.agent });
      } catch (error) {
        return { content: `refused: ${(error as Error).message}`, isError: true };
      }
      try {
        const result = await run.result;
        return { content: `${result.stopReason}: ${textOf(result.output)}` };
      } finally {
        await run.dispose();
      }
    },
  });
  return w;
}

const TWO_CALLS_THEN_REPLY = "@call echo {}\n@call echo {}\n@reply done";

Deno.test("an in-process child under a budget ends budget-exhausted", async (t) => {
  await t.step("tokens: the model call beyond the budget ends the turn", async () => {
    const w = world();
    const parent = await w.host.agents.create({ id: "main", options: { model: "scripted" } });
    // What the three steps cost without a budget; one token less cuts the third.
    const free = w.subagents.start("spawn", { prompt: TWO_CALLS_THEN_REPLY, parent });
    const used = (await free.result).usage!.total;
    await free.dispose();
    const tokens = used.inputTokens + used.outputTokens - 1;
    w.echoes = 0;
    const run = w.subagents.start("spawn", {
      prompt: TWO_CALLS_THEN_REPLY,
      parent,
      budget: { tokens },
    });
    const result = await run.result;
    assert.equal(result.stopReason, "budget-exhausted");
    assert.equal(result.error?.code, "BUDGET_EXHAUSTED");
    const data = result.error?.data as { limit: string; budget: number; used: number };
    assert.equal(data.limit, "tokens");
    assert.equal(data.budget, tokens);
    assert.ok(data.used > tokens);
    assert.equal(w.echoes, 2, "both calls ran: the third step went beyond the budget");
    assert.doesNotMatch(textOf(result.output), /done/, "the step beyond the budget is not heard");
    await run.dispose();
    await w.dispose();
  });

  await t.step("toolCalls: the call beyond the budget never runs", async () => {
    const w = world();
    const parent = await w.host.agents.create({ id: "main", options: { model: "scripted" } });
    const run = w.subagents.start("spawn", {
      prompt: TWO_CALLS_THEN_REPLY,
      parent,
      budget: { toolCalls: 1 },
    });
    const result = await run.result;
    assert.equal(result.stopReason, "budget-exhausted");
    assert.deepEqual(result.error?.data, { limit: "toolCalls", budget: 1, used: 2 });
    assert.equal(w.echoes, 1);
    await run.dispose();
    await w.dispose();
  });

  await t.step("wallTimeMs: a child that runs too long is ended", async () => {
    const w = world();
    const parent = await w.host.agents.create({ id: "main", options: { model: "scripted" } });
    const run = w.subagents.start("spawn", { prompt: "@hang", parent, budget: { wallTimeMs: 10 } });
    const result = await run.result;
    assert.equal(result.stopReason, "budget-exhausted");
    assert.match(result.error!.message, /budget\.wallTimeMs allows 10 ms of wall time/);
    await run.dispose();
    await w.dispose();
  });

  await t.step("a child within its budget completes", async () => {
    const w = world();
    const parent = await w.host.agents.create({ id: "main", options: { model: "scripted" } });
    const run = w.subagents.start("spawn", {
      prompt: TWO_CALLS_THEN_REPLY,
      parent,
      budget: { tokens: 10_000, toolCalls: 2, wallTimeMs: 60_000 },
    });
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "done");
    await run.dispose();
    await w.dispose();
  });
});

Deno.test("an in-process child's own children draw on its budget", async (t) => {
  await t.step(
    "children: its second delegation is refused before a grandchild exists",
    async () => {
      const w = world();
      const parent = await w.host.agents.create({ id: "main", options: { model: "scripted" } });
      const created: string[] = [];
      const run = w.subagents.start("spawn", {
        prompt: [
          '@call delegate {"prompt": "@reply first"}',
          '@call delegate {"prompt": "@reply second"}',
          "@reply {{results}}",
        ].join("\n"),
        parent,
        budget: { children: 1 },
      });
      w.host.scope.on(
        agentCreated,
        (info) => void created.push(info.agent.id),
      );
      const result = await run.result;
      assert.equal(result.stopReason, "completed");
      // The reply holds the tool results of the last step: the second delegation's.
      assert.match(
        textOf(result.output),
        /^refused: Cannot start subagent: run "spawn-\d+" may have 1 child started in total/,
      );
      assert.equal(created.filter((id) => id !== run.id).length, 1, "one grandchild only");
      await run.dispose();
      await w.dispose();
    },
  );

  await t.step("tokens: a grandchild's model calls count against its parent's budget", async () => {
    const w = world();
    const parent = await w.host.agents.create({ id: "main", options: { model: "scripted" } });
    const words = Array.from({ length: 50 }, (_, i) => `w${i}`).join(" ");
    const run = w.subagents.start("spawn", {
      prompt: `@call delegate {"prompt": "@reply ${words}"}\n@reply {{results}}`,
      parent,
      budget: { tokens: 40 },
    });
    const result = await run.result;
    assert.equal(result.stopReason, "budget-exhausted");
    assert.equal((result.error?.data as { limit: string }).limit, "tokens");
    await run.dispose();
    await w.dispose();
  });
});

Deno.test("an in-process child's wall-time budget stops while it waits for an answer", async () => {
  const w = world();
  w.host.tools.register(w.host.scope, {
    name: "guarded",
    description: "Needs approval",
    parameters: { type: "object", properties: {} },
    requiresApproval: true,
    execute: () => ({ content: "ran" }),
  });
  // The answer comes after twice the budget: only the waiting is that long.
  handleSubagentInput(
    w.host.scope,
    (request) =>
      new Promise((resolve) =>
        setTimeout(
          () => resolve({ outcome: "selected", optionId: request.options![0].id }),
          400,
        )
      ),
  );
  const parent = await w.host.agents.create({ id: "main", options: { model: "scripted" } });
  const run = w.subagents.start("spawn", {
    prompt: "@call guarded {}\n@reply {{results}}",
    parent,
    budget: { wallTimeMs: 200 },
  });
  const result = await run.result;
  assert.equal(result.stopReason, "completed", result.error?.message);
  assert.equal(textOf(result.output), "ran");
  assert.ok(result.usage!.self.wallTimeMs >= 400, "the run itself took longer than its budget");
  await run.dispose();
  await w.dispose();
});
