// The three-hop chain with a real ACP agent at the bottom: root host → A2A
// provider → gateway B (loopback HTTP) → the ACP provider → the ACP test
// agent (a child process) asking `session/request_permission`. B's task
// goes INPUT_REQUIRED, the root's handler sees the request with its whole
// path, its answer picks the agent's option, and the agent says which.
//
// Until the ACP provider's own `permission: "ask"` policy lands, B's ACP
// provider is given a permission function that asks through SubagentInputs
// in the run's parent scope: what `"ask"` does, in test code.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, type Scope, textOf } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputAnswer,
  type SubagentInputRequest,
  SubagentInputs,
  type SubagentProvider,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { type AcpPermissionHandler, createAcpProvider } from "@seam/subagent-acp";
import { startSpawnGateway } from "./a2a_support.ts";
import { testAgentConfig } from "./acp_support.ts";

/** B's ACP provider, whose permission requests go up the run's parent scopes. */
function askingAcpProvider(): SubagentProvider & { dispose(): Promise<void> } {
  const scopes = new Map<string, Scope>();
  const permission: AcpPermissionHandler = async (request) => {
    const scope = scopes.get(request.runId);
    if (!scope) return "reject";
    const inputs = new SubagentInputs(scope, request.runId);
    const withdrawn = () => inputs.cancelAll("the agent no longer waits");
    request.signal.addEventListener("abort", withdrawn, { once: true });
    try {
      const answer = await inputs.ask({
        kind: "permission",
        message: `The ACP agent asks to ${request.toolCall.title ?? request.toolCall.toolCallId}`,
        toolCall: {
          name: request.toolCall.toolCallId,
          ...(request.toolCall.title ? { title: request.toolCall.title } : {}),
          ...(request.toolCall.toolKind ? { kind: request.toolCall.toolKind } : {}),
          rawInput: request.raw,
        },
        options: request.options.map((o) => ({
          id: o.optionId,
          label: o.name,
          kind: o.kind as "allow_once",
        })),
      });
      return answer.outcome === "selected" ? { optionId: answer.optionId } : "cancel";
    } finally {
      request.signal.removeEventListener("abort", withdrawn);
    }
  };
  const acp = createAcpProvider(testAgentConfig([], { name: "acp", permission }));
  return {
    name: acp.name,
    capabilities: acp.capabilities,
    inheritsParentContext: acp.inheritsParentContext,
    start(request) {
      const run = acp.start(request);
      scopes.set(run.id, request.parent.scope);
      return run;
    },
    dispose: () => acp.dispose(),
  };
}

Deno.test("an ACP agent's permission request crosses gateway B and A2A to the root, and its answer back", async (t) => {
  const acp = askingAcpProvider();
  const b = startSpawnGateway("loopback", {
    setup: (_host, subagents) => subagents.registerProvider(acp),
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  try {
    const subagents = createSubagentService(root);
    const a2a = await createA2AProvider({ url: b.url, provider: "acp", timeoutMs: 20_000 });
    subagents.registerProvider(a2a);
    const parent = { id: "root-agent", scope: root.child("root-agent") };
    let decide: (request: SubagentInputRequest) => SubagentInputAnswer = () => {
      throw new Error("no decision set");
    };
    const seen: SubagentInputRequest[] = [];
    handleSubagentInput(root, (request) => {
      seen.push(request);
      return decide(request);
    });
    for (
      const [choice, said] of [
        ["yes", "permission: selected yes"],
        ["no", "permission: selected no"],
      ] as const
    ) {
      await t.step(`the root picks "${choice}": the agent hears exactly that option`, async () => {
        seen.length = 0;
        decide = () => ({ outcome: "selected", optionId: choice });
        const run = subagents.start("a2a", { prompt: "permission", parent });
        try {
          const result = await run.result;
          assert.equal(result.stopReason, "completed", JSON.stringify(result.error));
          assert.equal(textOf(result.output), said);
          assert.equal(seen.length, 1);
          const [request] = seen;
          assert.equal(request.kind, "permission");
          assert.equal(request.toolCall?.title, "Delete everything");
          assert.equal(request.toolCall?.kind, "delete");
          assert.deepEqual(request.options?.map((o) => o.id), ["yes", "always", "no"]);
          // root-agent's A2A run → B's ACP run (the run that asks, in the agent process).
          assert.equal(request.path.length, 2);
          assert.equal(request.path[0], run.id);
          assert.equal(request.path[1], request.runId);
          assert.match(request.runId, /^acp-/);
        } finally {
          await run.dispose();
        }
      });
    }
    await a2a.dispose();
  } finally {
    await root.dispose();
    await b.close();
  }
});
