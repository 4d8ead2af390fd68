// `permission: "ask"` against the real test agent process: the agent's
// session/request_permission becomes an input request that travels up the
// scope chain (or is answered through run.respond), the answer maps back to
// the option the agent offered, and the agent runs the command (a real
// process) only when allowed. Refusals, cancel and dispose while pending,
// bad answers and the paused turnTimeoutMs. Every test ends with no process
// left.
import assert from "node:assert/strict";
import {
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Scope,
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
  type SubagentResult,
  type SubagentRunInfo,
  subagentRunPathKey,
  subagentStart,
} from "@seam/subagent";
import { createAcpProvider } from "@seam/subagent-acp";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";
import {
  type AcpHarness,
  AgentWatch,
  testAgentConfig,
  until,
  withAcpAgent,
} from "./acp_support.ts";

/** What went wrong, as the result's error says it. */
function failure(result: SubagentResult): string {
  return result.error?.message ?? "(no error)";
}

/** The root scope above the harness's parent (where a host installs its handler). */
function rootOf(h: AcpHarness): Scope {
  return h.parent.scope.parent!;
}

/** Every request and resolution in the parent's scope. */
function record(h: AcpHarness): {
  asked: SubagentInputRequest[];
  resolved: SubagentInputResolvedInfo[];
} {
  const asked: SubagentInputRequest[] = [];
  const resolved: SubagentInputResolvedInfo[] = [];
  h.parent.scope.on(subagentInputRequired, (request) => void asked.push(request));
  h.parent.scope.on(subagentInputResolved, (info) => void resolved.push(info));
  return { asked, resolved };
}

/** A handler that never answers: it passes once the request is settled otherwise. */
const waitsForever: SubagentInputHandler = (_request, { signal }) =>
  new Promise<undefined>((resolve) => signal.addEventListener("abort", () => resolve(undefined)));

/** The agent's stderr says it received `outcome` and whether it ran the command. */
async function agentSaw(h: AcpHarness, outcome: string): Promise<void> {
  await until(
    () => h.watch.agentLines().includes(`permission outcome: ${outcome}`),
    `the agent to see "${outcome}"`,
  );
}

function ran(h: AcpHarness): string[] {
  return h.watch.agentLines().filter((line) => line.startsWith("ran "));
}

Deno.test('permission: "ask" sends the request up the tree; allowed, the agent runs the command', () =>
  withAcpAgent([], { permission: "ask" }, async (h) => {
    const { asked, resolved } = record(h);
    const seen: SubagentInputRequest[] = [];
    handleSubagentInput(rootOf(h), (request) => {
      seen.push(request);
      return { outcome: "selected", optionId: "yes" };
    });
    const run = h.start("run echo approved");
    const result = await run.result;
    assert.equal(result.stopReason, "completed", failure(result));
    assert.equal(textOf(result.output), 'ran "echo approved": approved');
    await until(() => ran(h).length === 1, "the agent's log of the command");
    assert.deepEqual(ran(h), ["ran echo approved: exit 0"]);
    await agentSaw(h, "selected yes");

    assert.equal(seen.length, 1, "the root's handler saw it");
    const [request] = seen;
    assert.deepEqual(asked, [request], "announced in the parent's scope");
    assert.ok(Object.isFrozen(request));
    assert.equal(request.runId, run.id);
    assert.deepEqual(request.path, [run.id]);
    assert.equal(request.id, `${run.id}/input-1`);
    assert.equal(request.kind, "permission");
    assert.equal(
      request.message,
      'The ACP agent "acp" asks permission for "Run \\"echo approved\\"" (execute)',
    );
    assert.deepEqual(request.toolCall, {
      name: "call-run",
      title: 'Run "echo approved"',
      kind: "execute",
      rawInput: { command: "echo approved" },
      content: [{ type: "text", text: "$ echo approved" }],
    });
    assert.deepEqual(request.options, [
      { id: "yes", label: "allow once (yes)", kind: "allow_once" },
      { id: "always", label: "allow always (always)", kind: "allow_always" },
      { id: "no", label: "reject once (no)", kind: "reject_once" },
      { id: "never", label: "reject always (never)", kind: "reject_always" },
    ]);
    assert.deepEqual(resolved, [{ request, answer: { outcome: "selected", optionId: "yes" } }]);
  }));

Deno.test('permission: "ask" carries the run path of the parent scope', () =>
  withAcpAgent([], { permission: "ask" }, async (h) => {
    // The parent is itself a run two levels down (what a provider or a gateway provides).
    h.parent.scope.provide(subagentRunPathKey, ["root-run", "mid-run"]);
    const { asked } = record(h);
    handleSubagentInput(rootOf(h), () => ({ outcome: "selected", optionId: "always" }));
    const run = h.start("run echo deep");
    const result = await run.result;
    assert.equal(textOf(result.output), 'ran "echo deep": deep', failure(result));
    assert.deepEqual(asked.map((r) => r.path), [["root-run", "mid-run", run.id]]);
  }));

Deno.test('permission: "ask" answers the agent with the option the handler chose', async (t) => {
  await withAcpAgent([], { permission: "ask" }, async (h) => {
    let answer: { optionId: string } | { reason: string } = { optionId: "no" };
    handleSubagentInput(
      rootOf(h),
      () =>
        "optionId" in answer
          ? { outcome: "selected", optionId: answer.optionId }
          : { outcome: "refused", reason: answer.reason },
    );
    for (
      const [optionId, told] of [
        ["no", 'did not run "echo x" (selected no)'],
        ["never", 'did not run "echo x" (selected never)'],
      ]
    ) {
      await t.step(`a reject option (${optionId})`, async () => {
        answer = { optionId };
        const result = await h.start("run echo x").result;
        assert.equal(result.stopReason, "completed", failure(result));
        assert.equal(textOf(result.output), told);
      });
    }
    await t.step("a handler's refusal picks the agent's reject_once option", async () => {
      answer = { reason: "not on a Friday" };
      const result = await h.start("run echo x").result;
      assert.equal(textOf(result.output), 'did not run "echo x" (selected no)');
    });
    assert.deepEqual(ran(h), [], "no command ran");
  });
});

Deno.test('permission: "ask" with no handler anywhere refuses, and the agent gets a reject', () =>
  withAcpAgent([], { permission: "ask" }, async (h) => {
    const { resolved } = record(h);
    const result = await h.start("run echo unattended").result;
    assert.equal(result.stopReason, "completed", failure(result));
    assert.equal(textOf(result.output), 'did not run "echo unattended" (selected no)');
    assert.equal(resolved.length, 1);
    const { answer } = resolved[0];
    assert.equal(answer.outcome, "refused");
    assert.match(
      answer.outcome === "refused" ? answer.reason : "",
      /no one handles input requests here/,
    );
    await agentSaw(h, "selected no");
    assert.deepEqual(ran(h), []);
  }));

Deno.test('permission: "ask" refuses with reject_always, or cancelled when no reject is offered', async (t) => {
  for (
    const [options, outcome] of [
      ["yes:allow_once,never:reject_always", "selected never"],
      ["yes:allow_once,always:allow_always", "cancelled"],
    ]
  ) {
    await t.step(
      `offered ${options}`,
      () =>
        withAcpAgent([`--permission-options=${options}`], { permission: "ask" }, async (h) => {
          const result = await h.start("run echo x").result;
          assert.equal(textOf(result.output), `did not run "echo x" (${outcome})`);
          await agentSaw(h, outcome);
        }),
    );
  }
});

Deno.test('permission: "ask" says which refused request ended a turn the agent cancelled', () =>
  withAcpAgent(["--cancel-on-reject"], { permission: "ask" }, async (h) => {
    const result = await h.start("run echo x").result;
    assert.equal(result.stopReason, "aborted");
    assert.equal(result.error?.code, "PERMISSION_REFUSED");
    assert.match(
      failure(result),
      /"Run \\"echo x\\"" \(tool call call-run, answered "no": no one handles/,
    );
    const [refused] = (result.error?.data as { refused: Record<string, unknown>[] }).refused;
    assert.equal(refused.answer, "no");
    assert.match(String(refused.reason), /^no one handles input requests here/);
  }));

Deno.test('permission: "ask" leaves out an option whose id the agent offered twice', () =>
  withAcpAgent(["--permission-options=yes:allow_once,yes:reject_once,no:reject_once"], {
    permission: "ask",
  }, async (h) => {
    const { asked } = record(h);
    handleSubagentInput(rootOf(h), () => ({ outcome: "selected", optionId: "yes" }));
    const result = await h.start("run echo x").result;
    assert.equal(textOf(result.output), 'ran "echo x": x');
    assert.deepEqual(asked[0].options?.map((o) => o.id), ["yes", "no"]);
    assert.ok(h.watch.messages("warn").some((m) => m.includes("Left out a permission option")));
  }));

Deno.test('permission: "ask" completes a request naming the call by id from the call the agent announced', () =>
  withAcpAgent(["--sparse-permission"], { permission: "ask" }, async (h) => {
    const { asked } = record(h);
    handleSubagentInput(rootOf(h), () => ({ outcome: "selected", optionId: "yes" }));
    const result = await h.start("run echo sparse").result;
    assert.equal(textOf(result.output), 'ran "echo sparse": sparse', failure(result));
    assert.deepEqual(asked[0].toolCall, {
      name: "call-run",
      title: 'Run "echo sparse"',
      kind: "execute",
      rawInput: { command: "echo sparse" },
      content: [{ type: "text", text: "$ echo sparse" }],
    });
  }));

Deno.test('permission: "ask" refuses the request the agent withdraws, and the run goes on', () =>
  withAcpAgent(["--withdraw-permission=300"], { permission: "ask" }, async (h) => {
    const { resolved } = record(h);
    let signal: AbortSignal | undefined;
    handleSubagentInput(rootOf(h), (request, context) => {
      signal = context.signal;
      return waitsForever(request, context);
    });
    const result = await h.start("run echo withdrawn").result;
    assert.equal(result.stopReason, "completed", failure(result));
    assert.match(textOf(result.output), /^did not run "echo withdrawn"/);
    assert.equal(signal?.aborted, true);
    assert.deepEqual(resolved.map((r) => r.answer), [
      { outcome: "refused", reason: "the ACP agent withdrew its permission request" },
    ]);
    assert.deepEqual(ran(h), []);
  }));

for (const how of ["cancel", "dispose"] as const) {
  Deno.test(`permission: "ask" answers the agent cancelled at ${how} while a request is pending`, () =>
    withAcpAgent([], { permission: "ask" }, async (h) => {
      const { asked, resolved } = record(h);
      let signal: AbortSignal | undefined;
      handleSubagentInput(rootOf(h), (request, context) => {
        signal = context.signal;
        return waitsForever(request, context);
      });
      const run = h.start("run echo never");
      await until(() => asked.length === 1, "the request");
      if (how === "cancel") run.cancel("changed my mind");
      else await run.dispose();
      const result = await run.result;
      assert.equal(result.stopReason, "aborted");
      assert.equal(result.error, undefined, "our own cancel says nothing more");
      assert.equal(signal?.aborted, true, "the handler learns it is no longer wanted");
      assert.equal(resolved.length, 1);
      const { answer } = resolved[0];
      assert.match(answer.outcome === "refused" ? answer.reason : "", /^cancelled: /);
      if (how === "cancel") {
        await agentSaw(h, "cancelled");
        assert.throws(
          () => run.respond!(asked[0].id, { outcome: "selected", optionId: "yes" }),
          /no such request waits/,
          "an answer after the cancel is stale",
        );
      }
      assert.deepEqual(ran(h), []);
    }));
}

Deno.test('permission: "ask" takes an answer through run.respond; bad ones throw and the request keeps waiting', async (t) => {
  await withAcpAgent([], { permission: "ask" }, async (h) => {
    const { asked, resolved } = record(h);
    handleSubagentInput(rootOf(h), waitsForever);
    const run = h.start("run echo by respond");
    assert.equal(typeof run.respond, "function");
    await until(() => asked.length === 1, "the request");
    const [request] = asked;
    const stillWaiting = async () => {
      // Give a wrongly sent answer time to reach the agent.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(!h.watch.agentLines().some((l) => l.startsWith("permission outcome")));
      assert.deepEqual(resolved, [], "the request was not resolved");
    };
    await t.step("an unknown request", async () => {
      assert.throws(
        () => run.respond!(`${run.id}/input-9`, { outcome: "selected", optionId: "yes" }),
        /Cannot answer input request ".*\/input-9": no such request waits/,
      );
      await stillWaiting();
    });
    await t.step("an option the agent did not offer", async () => {
      assert.throws(
        () => run.respond!(request.id, { outcome: "selected", optionId: "sudo" }),
        /option "sudo" was not offered \(offered: yes, always, no, never\)/,
      );
      await stillWaiting();
    });
    await t.step("a malformed answer", async () => {
      assert.throws(
        () => run.respond!(request.id, { outcome: "answered", text: "yes" }),
        /a permission request is answered \{outcome: "selected", optionId\}/,
      );
      await stillWaiting();
    });
    await t.step("a valid answer: the agent runs the command", async () => {
      run.respond!(request.id, { outcome: "selected", optionId: "yes" });
      const result = await run.result;
      assert.equal(textOf(result.output), 'ran "echo by respond": by respond', failure(result));
    });
    await t.step("a duplicate answer", () => {
      assert.throws(
        () => run.respond!(request.id, { outcome: "selected", optionId: "no" }),
        /no such request waits \(it was answered/,
      );
    });
  });
});

Deno.test("run.respond is absent on an ACP run that never asks", () =>
  withAcpAgent([], { permission: "reject" }, async (h) => {
    const run = h.start("complete hi");
    assert.equal(run.respond, undefined);
    await run.result;
  }));

Deno.test('permission: "ask" does not count the wait for an answer against turnTimeoutMs', () =>
  withAcpAgent([], { permission: "ask", turnTimeoutMs: 500 }, async (h) => {
    handleSubagentInput(
      rootOf(h),
      () =>
        new Promise((resolve) =>
          setTimeout(() => resolve({ outcome: "selected", optionId: "yes" }), 1_500)
        ),
    );
    const result = await h.start("run echo patient").result;
    assert.equal(result.stopReason, "completed", failure(result));
    assert.equal(textOf(result.output), 'ran "echo patient": patient');
  }));

Deno.test('permission: "ask" from an ACP child of an in-process child reaches the root handler; the parents collect as before', async (t) => {
  for (const optionId of ["yes", "no"] as const) {
    await t.step(optionId, async () => {
      const watch = new AgentWatch();
      const host = createHost({ logger: createMemoryLogger().logger });
      host.models.register(host.scope, "scripted", createScriptedModel());
      const subagents = createSubagentService(host.scope);
      subagents.registerProvider(createSpawnProvider());
      const acp = createAcpProvider(
        testAgentConfig([], { permission: "ask", logger: watch.logger }),
      );
      subagents.registerProvider(acp);
      installSubagentTool(host.scope, { provider: "spawn" });
      installSubagentTool(host.scope, { provider: "acp", toolName: "subagent_acp" });
      const seen: SubagentInputRequest[] = [];
      handleSubagentInput(host.scope, (request) => {
        seen.push(request);
        return { outcome: "selected", optionId };
      });
      const starts: SubagentRunInfo[] = [];
      host.scope.on(subagentStart, (info) => void starts.push(info));
      try {
        const child = `@call subagent_acp ${
          JSON.stringify({ description: "Run it", prompt: "run echo from the grandchild" })
        }\n@reply child: {{results}}`;
        const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
        main.send(
          `@call subagent ${
            JSON.stringify({ description: "Delegate", prompt: child })
          }\n@reply main: {{results}}`,
        );
        const end = await main.whenIdle();
        assert.equal(end.reason, "completed");
        assert.deepEqual(starts.map((s) => s.provider), ["spawn", "acp"]);
        const [spawned, acpRun] = starts;
        assert.equal(acpRun.parentRunId, spawned.runId);
        assert.equal(seen.length, 1);
        assert.equal(seen[0].runId, acpRun.runId);
        assert.deepEqual(seen[0].path, [spawned.runId, acpRun.runId], "the whole path");
        assert.deepEqual(seen[0].toolCall?.rawInput, { command: "echo from the grandchild" });
        assert.match(
          textOf(end.output),
          optionId === "yes"
            ? /^main: child: ran "echo from the grandchild": from the grandchild/
            : /^main: child: did not run "echo from the grandchild" \(selected no\)/,
        );
      } finally {
        await acp.dispose();
        await host.scope.dispose();
      }
      assert.deepEqual(await watch.live(), [], "processes were left behind");
    });
  }
});

Deno.test('permission: "ask" refuses the requests of a flooding agent beyond 64 waiting; the waiting ones stay answerable', () =>
  withAcpAgent([], { permission: "ask" }, async (h) => {
    const { asked } = record(h);
    handleSubagentInput(rootOf(h), waitsForever);
    const run = h.start("permission-flood 100");
    await until(() => asked.length === MAX_PENDING_INPUTS, "64 requests announced");
    // The 36 beyond are answered at once (the agent's reject option), never announced.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const request of [...asked]) {
      run.respond!(request.id, { outcome: "selected", optionId: "yes" });
    }
    const result = await run.result;
    assert.equal(asked.length, MAX_PENDING_INPUTS, "no request beyond 64 was announced");
    const refused = (result.error?.data as { refused: { reason?: string }[] }).refused;
    assert.ok(refused.length > 0, "the requests beyond were refused");
    for (const r of refused) {
      assert.match(
        r.reason ?? "",
        /too many input requests: run "[^"]+" has 64 waiting \(MAX_PENDING_INPUTS\)/,
      );
    }
    assert.match(failure(result), /and 16 more$/, "36 refused: 20 kept, 16 more");
  }));
