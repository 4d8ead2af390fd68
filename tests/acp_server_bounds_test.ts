// What reaches seam's ACP server of its session's descendants, bounded: at
// most 1024 descendants told per session (one warning), nothing told of a
// descendant after its end, and a client's cancel of an ended or unknown
// child session ignored without failing the turn. The descendants' events are
// emitted in the session agent's scope as a provider emits them; the client
// is the real ACP SDK's (unstable schema), in process over a pair of streams.
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  type Agent,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type LogRecord,
} from "@seam/host";
import {
  NestedRuns,
  subagentEnd,
  subagentProgress,
  type SubagentRunInfo,
  subagentStart,
} from "@seam/subagent";
import { acpChild, serveAcpAgent } from "@seam/subagent-acp";
import { acpClient, openSession, type Seen } from "./acp_client_support.ts";

/** The bound the README names. */
const MAX_TOLD_DESCENDANTS = 1024;

async function served(
  body: (s: {
    agent: Agent;
    sessionId: string;
    seen: Seen[];
    records: LogRecord[];
    /** A turn of the session: once answered, every update sent before it has arrived. */
    turn(): Promise<string>;
    cancel(sessionId: string): Promise<void>;
  }) => Promise<void>,
): Promise<void> {
  const { logger, records } = createMemoryLogger();
  const host = createHost({ logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  let agent: Agent | undefined;
  const server = serveAcpAgent({
    host,
    model: "scripted",
    streams: { readable: toServer.readable, writable: toClient.writable },
    logger,
    setup: (created) => void (agent = created),
  });
  const { client, seen } = acpClient(
    "bounds-test",
    acp.ndJsonStream(toServer.writable, toClient.readable),
  );
  try {
    const sessionId = await openSession(client, { subagents: {} });
    await body({
      agent: agent!,
      sessionId,
      seen,
      records,
      turn: async () =>
        (await client.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "@reply ok" }],
        })).stopReason,
      cancel: (id) => client.agent.notify(acp.methods.agent.session.cancel, { sessionId: id }),
    });
  } finally {
    await toServer.writable.close().catch(() => {});
    await server.closed;
    await client.closed;
    await host.scope.dispose();
  }
}

/** A descendant `runId` of `agent`, as the service tells it. */
function runInfo(agent: Agent, runId: string): SubagentRunInfo {
  return {
    runId,
    provider: "elsewhere",
    parentRunId: agent.id,
    depth: 1,
    parentId: agent.id,
    prompt: [],
    inheritsParentContext: false,
  };
}

const FIGURES = {
  inputTokens: 3,
  outputTokens: 1,
  cachedInputTokens: 0,
  modelCalls: 1,
  toolCalls: 0,
  wallTimeMs: 1,
};

Deno.test("serveAcpAgent() tells at most 1024 descendants of a session, warning once", async () => {
  await served(async ({ agent, sessionId, seen, records, turn }) => {
    const flood = MAX_TOLD_DESCENDANTS + 100;
    for (let i = 1; i <= flood; i++) agent.scope.emit(subagentStart, runInfo(agent, `d-${i}`));
    // Their progress too: the ones past the bound stay untold.
    for (let i = 1; i <= flood; i++) {
      agent.scope.emit(subagentProgress, { runId: `d-${i}`, kind: "text", text: "hi" });
    }
    assert.equal(await turn(), "end_turn");
    const told = new Set(
      seen.filter((s) => s.update.sessionUpdate === "subagent_update")
        .map((s) => s.update.sessionId as string),
    );
    assert.equal(told.size, MAX_TOLD_DESCENDANTS);
    assert.ok(!told.has(`${sessionId}/d-${flood}`));
    assert.equal(
      seen.filter((s) =>
        s.update.sessionUpdate === "agent_message_chunk" && s.sessionId !== sessionId
      )
        .length,
      MAX_TOLD_DESCENDANTS,
    );
    const warned = records.filter((r) => r.level === "warn" && r.message.includes("descendants"));
    assert.equal(warned.length, 1);
  });
});

Deno.test("serveAcpAgent() tells nothing of a descendant after its end, and ignores its cancel", async () => {
  await served(async ({ agent, sessionId, seen, records, turn, cancel }) => {
    const info = runInfo(agent, "d-1");
    agent.scope.emit(subagentStart, info);
    agent.scope.emit(subagentEnd, {
      ...info,
      usage: { self: FIGURES, total: FIGURES, partial: false },
      stopReason: "completed",
      durationMs: 1,
    });
    // Late words of an ended run, as a misbehaving provider might relay them.
    agent.scope.emit(subagentProgress, { runId: "d-1", kind: "text", text: "too late" });
    agent.scope.emit(acpChild, {
      runId: "d-1",
      parentRunId: agent.id,
      rootRunId: agent.id,
      provider: "elsewhere",
      depth: 1,
      sessionId: "theirs",
      state: "running",
      cancellable: true,
      usage: { contextTokens: 5, toolCalls: 0 },
      ended: false,
    });
    // A client cancelling the ended child, and a child session nobody announced.
    await cancel(`${sessionId}/d-1`);
    await cancel(`${sessionId}/nobody`);
    assert.equal(await turn(), "end_turn");
    const child = seen.filter((s) =>
      s.sessionId === `${sessionId}/d-1` ||
      (s.update.sessionUpdate === "subagent_update" && s.update.sessionId === `${sessionId}/d-1`)
    ).map((s) => s.update);
    assert.deepEqual(
      child.map((u) => [u.sessionUpdate, (u.state as { state?: string } | undefined)?.state]),
      [["subagent_update", "running"], ["subagent_update", "idle"]],
    );
    assert.deepEqual(
      (child[1]._meta as { seam: unknown }).seam,
      { stopReason: "completed", usage: FIGURES },
    );
    assert.ok(
      records.some((r) => r.level === "debug" && r.message.includes("has ended or cannot be")),
    );
    assert.deepEqual(records.filter((r) => r.level === "warn" || r.level === "error"), []);
  });
});

Deno.test("serveAcpAgent() offers a nested run's cancel when it becomes cancellable, and withdraws it", async () => {
  await served(async ({ agent, sessionId, seen, turn, cancel }) => {
    // A provider reporting a nested run, as the ACP and A2A providers do.
    const nested = new NestedRuns({ runId: agent.id, provider: "elsewhere", scope: agent.scope });
    const cancelled: string[] = [];
    const child = nested.add("theirs", undefined, { title: "late", state: "running" })!;
    nested.update(child, { cancel: (reason) => cancelled.push(reason) });
    // Its cancel, offered now: the client's per-child cancel reaches it.
    await turn();
    const id = `${sessionId}/${child.runId}`;
    await cancel(id);
    await turn();
    assert.equal(cancelled.length, 1);
    nested.update(child, { cancel: null });
    nested.end(child, "completed");
    await turn();
    const updates = seen.filter((s) =>
      s.update.sessionUpdate === "subagent_update" && s.update.sessionId === id
    ).map((s) => s.update);
    assert.deepEqual(
      updates.filter((u) => "capabilities" in u).map((u) => u.capabilities),
      [null, { cancel: {} }, null],
    );
  });
});

Deno.test("serveAcpAgent() withdraws a cancellable child's cancel when it ends", async () => {
  await served(async ({ agent, sessionId, seen, turn }) => {
    const nested = new NestedRuns({ runId: agent.id, provider: "elsewhere", scope: agent.scope });
    const child = nested.add("theirs", undefined, { state: "running", cancel: () => {} })!;
    nested.endAll("completed");
    await turn();
    const updates = seen.filter((s) =>
      s.update.sessionUpdate === "subagent_update" &&
      s.update.sessionId === `${sessionId}/${child.runId}`
    ).map((s) => s.update);
    assert.deepEqual(
      updates.filter((u) => "capabilities" in u).map((u) => u.capabilities),
      [{ cancel: {} }, null],
    );
    assert.equal((updates.at(-1)!.state as { state: string }).state, "idle");
  });
});
