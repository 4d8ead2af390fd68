// Budgets across an A2A hop: the caller's effective budget travels in the
// seam extension and the remote seam gateway's service enforces it; a remote
// that does not declare the capability in its card is refused at start.
import assert from "node:assert/strict";
import {
  agentCreated,
  createHost,
  createMemoryLogger,
  createRootScope,
  createScriptedModel,
  textOf,
} from "@seam/host";
import { createSubagentService, SubagentError } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";
import { SEAM_EXTENSION_URI } from "../providers/a2a/_extension.ts";
import { startSdkServer } from "./a2a_sdk_server.ts";
import { startSpawnGateway } from "./a2a_support.ts";

const delegate = (prompt: string) =>
  `@call subagent ${JSON.stringify({ description: "d", prompt })}`;

Deno.test("a budget crosses A2A: a seam gateway enforces it over there", async (t) => {
  const created: string[] = [];
  const remote = startSpawnGateway("loopback", {
    setup: (host) => {
      installSubagentTool(host.scope, { provider: "spawn" });
      host.scope.on(agentCreated, (info) => void created.push(info.agent.id));
    },
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const parent = { id: "main", scope: root.child("main") };
  try {
    const a2a = await createA2AProvider({ url: remote.url });
    assert.equal(a2a.capabilities.budget, true, "the gateway's card declares spawn's budget");
    subagents.registerProvider(a2a);

    await t.step("children: the remote child's second delegation is refused there", async () => {
      created.length = 0;
      const run = subagents.start("a2a", {
        prompt: [delegate("@reply first"), delegate("@reply second"), "@reply {{results}}"]
          .join("\n"),
        parent,
        budget: { children: 1 },
      });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "completed");
      assert.match(
        textOf(result.output),
        /could not be started: Cannot start subagent: run "spawn-\d+" may have 1 child started in total \(budget\.children\)/,
      );
      assert.equal(created.length, 2, "over there: the child and one grandchild, no second");
    });

    await t.step("toolCalls: the remote run ends budget-exhausted and says so", async () => {
      created.length = 0;
      const run = subagents.start("a2a", {
        prompt: [delegate("@reply first"), delegate("@reply second"), "@reply done"].join("\n"),
        parent,
        budget: { toolCalls: 1 },
      });
      const result = await run.result;
      await run.dispose();
      assert.equal(result.stopReason, "budget-exhausted");
      assert.equal(result.error?.code, "BUDGET_EXHAUSTED");
      assert.equal((result.error?.data as { limit: string }).limit, "toolCalls");
      assert.equal(created.length, 2, "the call beyond the budget never ran over there");
    });

    await t.step(
      "wallTimeMs: a remote child that runs too long ends budget-exhausted",
      async () => {
        const run = subagents.start("a2a", {
          prompt: "@hang",
          parent,
          budget: { wallTimeMs: 200 },
        });
        const result = await run.result;
        await run.dispose();
        assert.equal(result.stopReason, "budget-exhausted");
        assert.equal((result.error?.data as { limit: string }).limit, "wallTimeMs");
      },
    );
  } finally {
    await root.dispose();
    await remote.close();
  }
});

Deno.test("a seam gateway checks the budget in the seam extension, naming the field", async () => {
  const remote = startSpawnGateway("loopback");
  try {
    const response = await fetch(`${remote.url}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: {
          message: {
            messageId: "m1",
            role: "ROLE_USER",
            parts: [{ text: "@reply hi" }],
            metadata: { [SEAM_EXTENSION_URI]: { budget: { tokens: -1 } } },
          },
        },
      }),
    });
    const body = await response.json();
    assert.ok(body.error, JSON.stringify(body));
    assert.match(
      body.error.message,
      /request\.budget\.tokens: expected a non-negative safe integer/,
    );
  } finally {
    await remote.close();
  }
});

Deno.test("a seam gateway refuses a budget on a message that continues a finished run", async () => {
  const remote = startSpawnGateway("loopback");
  const send = async (message: Record<string, unknown>) => {
    const response = await fetch(`${remote.url}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } }),
    });
    return await response.json();
  };
  try {
    const first = await send({
      messageId: "m1",
      role: "ROLE_USER",
      parts: [{ text: "@reply hi" }],
    });
    const contextId = first.result.task.contextId;
    const second = await send({
      messageId: "m2",
      role: "ROLE_USER",
      contextId,
      parts: [{ text: "@reply again" }],
      metadata: { [SEAM_EXTENSION_URI]: { budget: { tokens: 5 } } },
    });
    assert.equal(second.error?.code, -32602);
    assert.match(second.error.message, /start-time fields \(.*budget\) cannot change them/);
  } finally {
    await remote.close();
  }
});

Deno.test("an A2A agent that is no seam gateway cannot honour a budget: refused at start", async () => {
  const server = await startSdkServer({ streaming: true });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  try {
    const provider = await createA2AProvider({ url: server.url, timeoutMs: 5_000 });
    assert.equal(provider.capabilities.budget, false);
    subagents.registerProvider(provider);
    assert.throws(
      () =>
        subagents.start("a2a", {
          prompt: "complete hi",
          parent: { id: "main", scope: root.child("main") },
          budget: { tokens: 100 },
        }),
      (e: unknown) =>
        e instanceof SubagentError && e.code === "UNSUPPORTED_CAPABILITY" &&
        /does not support request\.budget/.test(e.message),
    );
  } finally {
    await root.dispose();
    await server.close();
  }
});

Deno.test("the budget that crosses A2A is the tightened one", async () => {
  // Here: a spawn child under a budget delegates over A2A through the tool;
  // there: a seam gateway. What travels is what the child's budget has left.
  const remote = startSpawnGateway("fetch");
  const bodies: Record<string, unknown>[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "POST") bodies.push(JSON.parse(await request.clone().text()));
    return remote.fetch!(request);
  };
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  try {
    subagents.registerProvider(createSpawnProvider());
    subagents.registerProvider(await createA2AProvider({ url: remote.url, fetch: recording }));
    installSubagentTool(host.scope, { provider: "a2a", toolName: "remote" });
    const parent = await host.agents.create({ id: "main", options: { model: "scripted" } });
    const run = subagents.start("spawn", {
      prompt: `@call remote ${
        JSON.stringify({ description: "d", prompt: "@reply far" })
      }\n@reply {{results}}`,
      parent,
      budget: { tokens: 10_000, children: 3, wallTimeMs: 60_000 },
    });
    const result = await run.result;
    await run.dispose();
    assert.equal(result.stopReason, "completed");
    assert.equal(textOf(result.output), "far");
    const sent = bodies.map((body) => {
      const params = body.params as { message?: { metadata?: Record<string, unknown> } };
      return (params.message?.metadata?.[SEAM_EXTENSION_URI] as { budget?: unknown })?.budget;
    }).find((budget) => budget !== undefined) as Record<string, number>;
    assert.ok(sent, "the seam extension carried a budget");
    assert.equal(sent.children, 2, "3 − the A2A run itself");
    assert.ok(sent.tokens > 0 && sent.tokens < 10_000, `what the child had left: ${sent.tokens}`);
    assert.ok(sent.wallTimeMs <= 60_000);
  } finally {
    await host.scope.dispose();
    await remote.close();
  }
});

Deno.test("a context continuation over A2A carries the budget: a kept run passes, a fresh one is held to it", async (t) => {
  for (const maxResumableRuns of [64, 0]) {
    await t.step(
      maxResumableRuns ? "the gateway kept the run" : "the gateway kept none",
      async () => {
        const created: string[] = [];
        const remote = startSpawnGateway("loopback", {
          maxResumableRuns,
          setup: (host) => {
            installSubagentTool(host.scope, { provider: "spawn" });
            host.scope.on(agentCreated, (info) => void created.push(info.agent.id));
          },
        });
        const root = createRootScope({ logger: createMemoryLogger().logger });
        const subagents = createSubagentService(root);
        const parent = { id: "main", scope: root.child("main") };
        try {
          subagents.registerProvider(await createA2AProvider({ url: remote.url }));
          const run = subagents.start("a2a", {
            prompt: "@reply first turn",
            parent,
            budget: { children: 1, toolCalls: 1 },
          });
          assert.equal((await run.result).stopReason, "completed");
          created.length = 0;
          const again = run.resume!(
            [delegate("@reply a"), delegate("@reply b"), delegate("@reply c"), "@reply {{results}}"]
              .join("\n"),
          );
          const result = await again.result;
          if (maxResumableRuns) {
            // The same budget on the continuation is no change: the kept run goes on under it.
            assert.equal(result.stopReason, "budget-exhausted", JSON.stringify(result.error));
            assert.equal(created.length, 1, "one child over there, as the budget allows");
          } else {
            // The fresh run over there (the caller then cancels it) started under the budget.
            assert.ok(created.length <= 2, `at most the run and one child, got ${created.length}`);
          }
          await again.dispose();
          await run.dispose();
        } finally {
          await root.dispose();
          await remote.close();
        }
      },
    );
  }
});
