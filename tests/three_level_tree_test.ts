// Three levels, each over its real protocol: the ACP SDK's client (the
// unstable schema, with `subagent_update`) → our ACP server (a real process,
// tests/testdata/acp_tree_server.ts, whose agent delegates) → a seam A2A
// gateway on loopback → the ACP test agent (a real process), which has a
// child session of its own. The client sees the whole tree, every level's
// child sessions with their parents and states; its per-child cancel of the
// agent's child session, three hops down, ends that child only, and
// everything else completes. No process is left.
import assert from "node:assert/strict";
// The unstable schema: the stable one rejects `subagent_update`.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, processTable, testAgentConfig } from "./acp_support.ts";
import { startSpawnGateway } from "./a2a_support.ts";
import { within } from "./within.ts";
import { connectTreeServer, type Seen, textUnder } from "./acp_client_support.ts";

/** Our ACP server as a process, reaching the gateway's card, and an SDK client advertising subagents. */
async function connect(card: string) {
  const { child, client, seen, sessionId, close } = await connectTreeServer({
    args: [`--a2a=${card}`],
    stderr: "inherit",
    name: "three-level-test",
    capabilities: { subagents: {} },
  });
  return { client, seen, sessionId, pid: child.pid, close };
}

/** The `subagent_update`s of child session `id`. */
const updatesOf = (seen: readonly Seen[], id: string) =>
  seen.filter((s) => s.update.sessionUpdate === "subagent_update" && s.update.sessionId === id);

/** The child session announced with `title`, and the session it was announced on. */
function titled(seen: readonly Seen[], title: string) {
  const announced = seen.find((s) =>
    s.update.sessionUpdate === "subagent_update" && s.update.title === title
  );
  return announced && {
    id: announced.update.sessionId as string,
    parent: announced.sessionId,
    capabilities: announced.update.capabilities,
  };
}

/** The session agent's tool calls: `helper` (in-process) → `far` (over A2A), and `sibling`. */
const PROMPT = [
  `@calls ${
    JSON.stringify([
      {
        name: "subagent",
        args: {
          description: "helper",
          prompt: `@call remote_agent ${
            JSON.stringify({ description: "far", prompt: "children-hang" })
          }\n@reply helper: {{results}}`,
        },
      },
      { name: "subagent", args: { description: "sibling", prompt: "@reply sibling ok" } },
    ])
  }`,
  "@reply all: {{results}}",
].join("\n");

Deno.test("ACP client → ACP server → A2A gateway → ACP agent: the whole tree, and a per-child cancel three hops down", async () => {
  const watch = new AgentWatch();
  const gateway = startSpawnGateway("loopback", {
    setup: (_host, subagents) =>
      void subagents.registerProvider(
        createAcpProvider(testAgentConfig([], { logger: watch.logger })),
      ),
  });
  const { client, seen, sessionId, pid, close } = await connect(
    `${gateway.url}/acp/.well-known/agent-card.json`,
  );
  try {
    const prompt = client.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: PROMPT }],
    });
    // The ACP agent's own child session, told by the gateway, as a child session here.
    const deadline = Date.now() + 20_000;
    while (!titled(seen, "helper child-1") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const grandchild = titled(seen, "helper child-1");
    assert.ok(grandchild, "the ACP agent's child session never reached the client");
    assert.deepEqual(grandchild.capabilities, { cancel: {} });
    await client.agent.notify(acp.methods.agent.session.cancel, { sessionId: grandchild.id });
    // Not a timing assertion: without the cancel the agent's child hangs, and so would the test.
    const answer = await within(prompt, "the turn after the per-child cancel", 30_000);
    assert.equal(answer.stopReason, "end_turn");

    // The tree, level by level: session → helper → far (the A2A run) → the agent's child.
    const helper = titled(seen, "helper")!;
    const far = titled(seen, "far")!;
    const sibling = titled(seen, "sibling")!;
    assert.equal(helper.parent, sessionId);
    assert.equal(sibling.parent, sessionId);
    assert.equal(far.parent, helper.id);
    assert.equal(grandchild.parent, far.id);
    assert.equal(new Set([helper.id, far.id, sibling.id, grandchild.id]).size, 4);
    // Every level was told running first and ended idle, with how it ended.
    const states = (id: string) =>
      updatesOf(seen, id).map((s) => (s.update.state as { state?: string } | undefined)?.state)
        .filter((state) => state !== undefined);
    for (const node of [helper, far, sibling, grandchild]) {
      assert.equal(states(node.id)[0], "running", `${node.id}: ${states(node.id)}`);
      assert.equal(states(node.id).at(-1), "idle", `${node.id}: ${states(node.id)}`);
    }
    const stopReason = (id: string) =>
      (updatesOf(seen, id).at(-1)!.update._meta as { seam: { stopReason: string } }).seam
        .stopReason;
    // The cancel reached the agent's child, not the agent's turn: it went on and answered.
    assert.equal(stopReason(far.id), "completed");
    assert.equal(stopReason(helper.id), "completed");
    assert.equal(stopReason(sibling.id), "completed");
    assert.match(textUnder(seen, far.id), /after the child's cancel/);
    assert.equal(textUnder(seen, sibling.id), "sibling ok");
    assert.match(textUnder(seen, sessionId), /all: .*helper: after the child's cancel/s);
    assert.match(textUnder(seen, sessionId), /sibling ok/);
    assert.ok(watch.agentLines().length > 0 || watch.pids.size > 0, "the ACP agent never ran");
  } finally {
    await close();
    await gateway.close();
  }
  assert.deepEqual(await watch.live(), [], "ACP agents were left behind");
  const server = (await processTable()).filter((p) => p.pid === pid && !p.stat.startsWith("Z"));
  assert.deepEqual(server, [], "the ACP server process was left behind");
});
