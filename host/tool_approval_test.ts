import assert from "node:assert/strict";
import { z } from "zod";
import {
  type Agent,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  type Scope,
  textOf,
  type Tool,
  type ToolApprovalRequest,
  type ToolOutcome,
} from "./mod.ts";

function setup(): Host {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  return host;
}

/** A tool that counts its runs. */
function counted(extra: Partial<Tool> = {}): { tool: Tool; runs: unknown[] } {
  const runs: unknown[] = [];
  return {
    runs,
    tool: {
      name: "run_command",
      description: "Run a shell command",
      parameters: {
        type: "object",
        properties: { command: { type: "string" } },
        required: ["command"],
      },
      execute: (args) => {
        runs.push(args);
        return { content: "ran" };
      },
      ...extra,
    },
  };
}

async function agentIn(host: Host, scope: Scope = host.scope): Promise<Agent> {
  return await host.agents.create({ parentScope: scope, options: { model: "scripted" } });
}

function text(outcome: ToolOutcome): string {
  return textOf(outcome.content);
}

const live = new AbortController().signal;

Deno.test("ToolRegistry.register() checks requiresApproval, kind and title", async () => {
  const host = setup();
  const bad: [Partial<Tool>, RegExp][] = [
    [{ requiresApproval: "yes" as never }, /requiresApproval must be a boolean or a function/],
    [{ kind: 5 as never }, /kind must be a non-empty string/],
    [{ kind: "" }, /kind must be a non-empty string/],
    [{ kind: "x".repeat(65) }, /kind must be a non-empty string/],
    [{ title: "Run it" as never }, /title must be a function/],
  ];
  for (const [extra, message] of bad) {
    assert.throws(() => host.tools.register(host.scope, counted(extra).tool), message);
  }
  assert.deepEqual(host.tools.visible(host.scope), []);
  await host.scope.dispose();
});

Deno.test("ToolRegistry.approve() decides the calls whose tool requires approval", async (t) => {
  const host = setup();
  const { tool, runs } = counted({
    requiresApproval: true,
    kind: "execute",
    title: (args) => `Run "${(args as { command: string }).command}"`,
  });
  host.tools.register(host.scope, tool);
  const child = host.scope.child("child");
  const agent = await agentIn(host, child);
  const call = (command: string, id = "c1") =>
    host.tools.execute(agent, { id, name: "run_command", args: { command } }, live);

  await t.step("no approver anywhere: not run, never silently allowed", async () => {
    const outcome = await call("ls");
    assert.equal(outcome.code, "NOT_APPROVED");
    assert.equal(outcome.isError, true);
    assert.match(
      text(outcome),
      /^Tool "run_command" was not run: the call was not approved: no one approves tool calls here/,
    );
    assert.deepEqual(runs, []);
  });

  await t.step("allowed: the approver sees the call, then the tool runs", async () => {
    const seen: ToolApprovalRequest[] = [];
    const off = host.tools.approve(host.scope, (request) => {
      seen.push(request);
      return { approved: true };
    });
    const outcome = await call("deno test", "c2");
    assert.equal(outcome.isError, false);
    assert.deepEqual(runs, [{ command: "deno test" }]);
    assert.equal(seen.length, 1);
    const { agent: who, signal, ...rest } = seen[0];
    assert.equal(who, agent);
    assert.equal(signal, live);
    assert.deepEqual(rest, {
      callId: "c2",
      name: "run_command",
      args: { command: "deno test" },
      rawInput: { command: "deno test" },
      title: 'Run "deno test"',
      kind: "execute",
    });
    assert.ok(Object.isFrozen(seen[0]));
    await off();
    assert.equal(
      (await call("ls", "c3")).code,
      "NOT_APPROVED",
      "the approver went with its disposer",
    );
    runs.length = 0;
  });

  await t.step("refused: the model reads the reason, the tool does not run", async () => {
    const off = host.tools.approve(child, () => ({ approved: false, reason: "not on Fridays" }));
    const outcome = await call("rm -rf build");
    assert.equal(outcome.code, "NOT_APPROVED");
    assert.equal(
      text(outcome),
      'Tool "run_command" was not run: the call was not approved: not on Fridays',
    );
    assert.deepEqual(runs, []);
    await off();
  });

  await t.step("anything but {approved: true} refuses", async () => {
    const verdicts: [() => unknown, RegExp][] = [
      [() => ({ approved: "yes" }), /the approver answered an object, neither \{approved: true\}/],
      [() => undefined, /the approver answered undefined/],
      [() => ({ approved: false }), /neither \{approved: true\} nor \{approved: false, reason\}/],
      [() => {
        throw new Error("approver bug");
      }, /the approval failed: approver bug/],
      [() => Promise.reject(new Error("gone")), /the approval failed: gone/],
    ];
    for (const [verdict, message] of verdicts) {
      const off = host.tools.approve(child, verdict as never);
      const outcome = await call("ls");
      assert.equal(outcome.code, "NOT_APPROVED");
      assert.match(text(outcome), message);
      await off();
    }
    assert.deepEqual(runs, []);
  });

  await t.step("the nearest approver decides; one per scope", async () => {
    const offRoot = host.tools.approve(host.scope, () => ({ approved: true }));
    const offChild = host.tools.approve(
      child,
      () => ({ approved: false, reason: "child says no" }),
    );
    assert.match(text(await call("ls")), /child says no/);
    const outside = await agentIn(host);
    const ok = await host.tools.execute(
      outside,
      { id: "o", name: "run_command", args: { command: "ls" } },
      live,
    );
    assert.equal(ok.isError, false, "an agent outside the child scope gets the root's approver");
    assert.throws(() => host.tools.approve(child, () => ({ approved: true })), /already has one/);
    assert.throws(() => host.tools.approve(child, "yes" as never), /expected a function/);
    await offChild();
    assert.equal((await call("ls")).isError, false);
    await offRoot();
    runs.length = 0;
  });

  await t.step("a guard's denial comes first: the approver is not asked", async () => {
    let asked = 0;
    const offApprover = host.tools.approve(child, () => {
      asked++;
      return { approved: true };
    });
    const offGuard = host.tools.guard(child, () => ({ deny: "guarded" }));
    assert.equal((await call("ls")).code, "DENIED");
    assert.equal(asked, 0);
    await offGuard();
    await offApprover();
  });

  await t.step("cancelled while waiting: ABORTED, the tool does not run", async () => {
    const controller = new AbortController();
    let release!: () => void;
    const offApprover = host.tools.approve(child, (request) =>
      new Promise((resolve) => {
        release = () => resolve({ approved: true });
        assert.equal(request.signal, controller.signal);
        // Ask, then the turn is cancelled before anyone answers.
        queueMicrotask(() => controller.abort("stop"));
      }));
    const outcome = await host.tools.execute(
      agent,
      { id: "w", name: "run_command", args: { command: "ls" } },
      controller.signal,
    );
    assert.equal(outcome.code, "ABORTED");
    release(); // a verdict after the abort changes nothing
    await Promise.resolve();
    assert.deepEqual(runs, []);
    await offApprover();
  });

  await host.scope.dispose();
});

Deno.test("Tool.requiresApproval as a predicate picks the calls that need it", async (t) => {
  const host = setup();
  const { tool, runs } = counted({
    parameters: z.object({ command: z.string().trim() }) as never,
    requiresApproval: (args) => {
      const { command } = args as { command: string };
      if (command === "explode") throw new Error("predicate bug");
      if (command === "maybe") return "perhaps" as never;
      return !command.startsWith("ls");
    },
  });
  host.tools.register(host.scope, tool);
  const agent = await agentIn(host);
  const seen: string[] = [];
  host.tools.approve(host.scope, (request) => {
    seen.push(request.title);
    return { approved: false, reason: "no" };
  });
  const call = (command: string) =>
    host.tools.execute(agent, { id: "p", name: "run_command", args: { command } }, live);

  await t.step("a call it does not pick runs without asking (zod's parsed arguments)", async () => {
    assert.equal((await call("  ls -la ")).isError, false);
    assert.deepEqual(runs, [{ command: "ls -la" }]);
    assert.deepEqual(seen, []);
  });

  await t.step("a call it picks is asked about (default title: name and raw input)", async () => {
    assert.equal((await call("rm x")).code, "NOT_APPROVED");
    assert.deepEqual(seen, ['run_command {"command":"rm x"}']);
    assert.equal(runs.length, 1);
  });

  await t.step("a predicate that throws or answers no boolean: not run", async () => {
    assert.match(
      text(await call("explode")),
      /cannot tell whether it needs approval \(predicate bug\)/,
    );
    assert.match(text(await call("maybe")), /requiresApproval returned "perhaps"/);
    assert.equal(runs.length, 1);
  });

  await host.scope.dispose();
});

Deno.test("An agent's model reads a refused approval as the tool's error result", async () => {
  const host = setup();
  const { tool, runs } = counted({ requiresApproval: true });
  host.tools.register(host.scope, tool);
  host.tools.approve(host.scope, () => ({ approved: false, reason: "ask me tomorrow" }));
  const agent = await agentIn(host);
  agent.send('@call run_command {"command": "deploy"}\n@reply Result: {{results}}');
  const end = await agent.whenIdle();
  assert.equal(end.reason, "completed");
  assert.equal(
    textOf(end.output),
    'Result: Tool "run_command" was not run: the call was not approved: ask me tomorrow',
  );
  assert.deepEqual(runs, []);
  await host.scope.dispose();
});
