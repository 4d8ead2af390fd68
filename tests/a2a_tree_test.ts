// A seam gateway tells a seam client its task's descendants, and the A2A
// provider makes them nested runs of its own run: an ACP agent's child
// sessions (a real test agent process behind the gateway) and an in-process
// agent's delegations, with their parents, depths, titles, states and usage
// (never added twice to the run's). A remote that lies about them (unknown
// parents, ended ones updated, floods, negative usage) is bounded and logged.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, type LogRecord, type Scope } from "@seam/host";
import {
  createSubagentService,
  findRunControl,
  subagentEnd,
  type SubagentRunEndInfo,
  type SubagentRunInfo,
  subagentStart,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { acpChild, type AcpChildInfo, createAcpProvider } from "@seam/subagent-acp";
import { installSubagentTool } from "@seam/tool-subagent";
import { startSpawnGateway } from "./a2a_support.ts";
import { controlledProvider, message, rpcRequest, withSetup } from "../gateway/_test_support.ts";
import { AgentWatch, testAgentConfig } from "./acp_support.ts";
import { CONTEXT, fakeAgent, type Frame, settleWithin, TASK, task } from "./a2a_fake_agent.ts";

const SEAM_URI = "https://jsr.io/@seam/gateway/extensions/subagent/v1";

/** Everything a parent's scope hears of nested runs. */
function listen(scope: Scope) {
  const starts: SubagentRunInfo[] = [];
  const ends: SubagentRunEndInfo[] = [];
  const states: AcpChildInfo[] = [];
  scope.on(subagentStart, (info) => void starts.push(info));
  scope.on(subagentEnd, (info) => void ends.push(info));
  scope.on(acpChild, (info) => void states.push(info));
  return { starts, ends, states };
}

Deno.test("an ACP agent's child sessions behind a gateway become nested runs of the A2A run", async () => {
  const watch = new AgentWatch();
  const gateway = startSpawnGateway("loopback", {
    setup: (_host, subagents) =>
      void subagents.registerProvider(
        createAcpProvider(testAgentConfig([], { logger: watch.logger })),
      ),
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const provider = await createA2AProvider({
    url: `${gateway.url}/acp/.well-known/agent-card.json`,
    name: "remote",
  });
  subagents.registerProvider(provider);
  const parent = { id: "main", scope: root.child("main") };
  const heard = listen(root);
  try {
    const run = subagents.start("remote", { prompt: "children 2", parent });
    const result = await run.result;
    await run.dispose();
    assert.equal(result.stopReason, "completed");
    const nested = heard.starts.filter((s) => s.runId !== run.id);
    const byTitle = new Map(nested.map((s) => [s.label, s]));
    assert.deepEqual([...byTitle.keys()].sort(), [
      "helper child-1",
      "helper child-1-1",
      "helper child-2",
    ]);
    // Each a nested run of the A2A run, with its own id, parent and depth.
    const one = byTitle.get("helper child-1")!;
    const two = byTitle.get("helper child-2")!;
    const grand = byTitle.get("helper child-1-1")!;
    assert.equal(one.parentRunId, run.id);
    assert.equal(two.parentRunId, run.id);
    assert.equal(grand.parentRunId, one.runId);
    assert.deepEqual([one.depth, two.depth, grand.depth], [2, 2, 3]);
    assert.ok(nested.every((s) => s.runId.startsWith(`${run.id}.`)));
    // Each ended (idle over there: completed), with what it used there.
    const endOf = (s: SubagentRunInfo) => heard.ends.find((e) => e.runId === s.runId)!;
    assert.deepEqual(
      [one, two, grand].map((s) => [endOf(s).stopReason, endOf(s).usage.total.inputTokens]),
      [["completed", 100], ["completed", 200], ["completed", 7]],
    );
    // Their state as the ACP provider tells a child session's (`acp/child`).
    assert.ok(heard.states.some((s) => s.runId === grand.runId && s.sessionId !== ""));
    assert.ok(heard.states.filter((s) => s.runId === one.runId).at(-1)!.ended);
    // The gateway's total holds the agent's own 50 and its children's 100 + 200 + 7 once.
    assert.equal(result.usage!.total.inputTokens, 357);
    // Nothing is cancellable once the run ended.
    assert.equal(findRunControl(root, one.runId), undefined);
  } finally {
    await provider.dispose();
    await root.dispose();
    await gateway.close();
  }
  assert.deepEqual(await watch.live(), [], "processes were left behind");
});

Deno.test("an in-process agent's delegations behind a gateway become nested runs", async () => {
  const gateway = startSpawnGateway("loopback", {
    setup: (host) => installSubagentTool(host.scope, { provider: "spawn" }),
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const provider = await createA2AProvider({ url: gateway.url, name: "remote" });
  subagents.registerProvider(provider);
  const heard = listen(root);
  const inner = `@call subagent ${
    JSON.stringify({ description: "deepest", prompt: "@reply from below" })
  }\n@reply {{results}}`;
  const prompt = `@call subagent ${
    JSON.stringify({ description: "middle", prompt: inner })
  }\n@reply top: {{results}}`;
  try {
    const run = subagents.start("remote", { prompt, parent: { id: "a", scope: root.child("a") } });
    const result = await run.result;
    await run.dispose();
    assert.equal(result.stopReason, "completed");
    const nested = heard.starts.filter((s) => s.runId !== run.id);
    const middle = nested.find((s) => s.label === "middle")!;
    const deepest = nested.find((s) => s.label === "deepest")!;
    assert.ok(middle && deepest, JSON.stringify(nested));
    assert.equal(middle.parentRunId, run.id);
    assert.equal(deepest.parentRunId, middle.runId);
    const ended = heard.ends.filter((e) => e.runId !== run.id);
    assert.deepEqual(ended.map((e) => e.stopReason), ["completed", "completed"]);
  } finally {
    await provider.dispose();
    await root.dispose();
    await gateway.close();
  }
});

/** A seam gateway's card for the fake agent (one provider, `fake`). */
const seamCard = (url: string): Frame => ({
  name: "fake seam gateway",
  supportedInterfaces: [{ url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: {
    streaming: true,
    extensions: [{
      uri: SEAM_URI,
      params: {
        provider: "fake",
        providers: {
          fake: {
            capabilities: {
              outputSchema: false,
              depthLimit: false,
              toolFilter: false,
              persona: false,
            },
            inheritsParentContext: false,
          },
        },
      },
    }],
  },
});

const tree = (descendants: unknown, extra: Frame = {}): Frame => ({
  statusUpdate: {
    taskId: TASK,
    contextId: CONTEXT,
    status: { state: "TASK_STATE_WORKING" },
    metadata: { [SEAM_URI]: { descendants, ...extra } },
  },
});

Deno.test("a remote's lies about its descendants are bounded and logged once each", async () => {
  const flood = Array.from({ length: 400 }, (_, i) => ({ runId: `f${i}`, state: "running" }));
  const agent = fakeAgent({
    card: seamCard,
    stream: (send, ctx) => {
      send(task("TASK_STATE_WORKING"));
      send(tree([{ runId: "a", state: "running", title: "a", cancellable: true }]));
      send(tree([{ runId: "b", parentRunId: "nobody", state: "running" }]));
      send(tree([{ runId: "a", state: "running", usage: { inputTokens: -5, toolCalls: 1 } }]));
      send(tree([{ runId: "c", state: "ended", stopReason: "completed" }]));
      send(tree([{ runId: "c", state: "running" }]));
      send(tree([{ runId: "d", state: "asleep" }, "not even an object"]));
      send(tree("no array"));
      // Past the bound: the first 256 taken, then nothing new.
      send(tree(flood));
      send(tree(flood.map((f) => ({ ...f, runId: `g${f.runId}` }))));
      // The task itself: still WORKING, then done; the tree updates never changed it.
      send({
        statusUpdate: {
          taskId: TASK,
          contextId: CONTEXT,
          status: {
            state: "TASK_STATE_COMPLETED",
            message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "done" }] },
          },
        },
      });
      ctx.close();
    },
  });
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  const heard = listen(root);
  const provider = await createA2AProvider({ url: agent.url, timeoutMs: 2_000, logger });
  try {
    const run = provider.start({
      prompt: [{ type: "text", text: "go" }],
      parent: { id: "p", scope: root },
    });
    const settled = await settleWithin(run);
    assert.equal(settled.stopReason, "completed");
    assert.equal(settled.text, "done");
    const ids = heard.starts.map((s) => s.runId);
    assert.equal(ids.length, 256, "the nested runs are bounded");
    const a = heard.starts.find((s) => s.label === "a")!;
    // Its negative usage was ignored; every nested run still open ended with the run.
    const aEnd = heard.ends.find((e) => e.runId === a.runId)!;
    assert.equal(aEnd.usage.total.inputTokens, 0);
    assert.equal(aEnd.stopReason, "aborted", "running when the run completed");
    assert.equal(heard.ends.length, 256);
    const warned = (text: string) =>
      records.filter((r: LogRecord) => r.level === "warn" && r.message.includes(text)).length;
    assert.equal(warned("under a run it never told"), 1);
    assert.equal(warned("after it ended"), 1);
    assert.equal(warned("that is no count"), 1);
    assert.equal(warned("without a run id or a known state"), 1);
    assert.equal(warned("that are no array"), 1);
    assert.equal(warned("more than 256 descendants"), 1);
    await run.dispose();
  } finally {
    await provider.dispose();
    await root.dispose();
    await agent.close();
  }
});

/** The descendants updates of an SSE body, one at a time, as they arrive. */
async function* treeUpdates(body: ReadableStream<Uint8Array>) {
  let buffer = "";
  for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!frame.startsWith("data: ")) continue;
      const seam = JSON.parse(frame.slice(6)).result?.statusUpdate?.metadata?.[SEAM_URI];
      if (seam?.descendants) yield seam.descendants as Frame[];
    }
  }
}

Deno.test("the gateway tells an ACP child session's states as the ACP provider tells them", async () => {
  const ctl = controlledProvider();
  await withSetup([ctl], {}, async ({ gateway }) => {
    const response = await gateway.fetch(
      rpcRequest("SendStreamingMessage", {
        message: message("go", { metadata: { [SEAM_URI]: { depth: 0 } } }),
      }),
    );
    const run = ctl.runs[0];
    run.ready();
    const child = (state: string | undefined, contextTokens: number, ended = false) =>
      run.request.parent.scope.emit(acpChild, {
        runId: `${run.id}.1`,
        parentRunId: run.id,
        rootRunId: run.id,
        provider: "acp",
        depth: 2,
        sessionId: "child-1",
        title: "helper child-1",
        ...(state === undefined ? {} : { state }),
        cancellable: false,
        usage: { contextTokens, toolCalls: 1 },
        ended,
      });
    const updates = treeUpdates(response.body!);
    const next = async () => (await updates.next()).value![0];
    child("running", 10);
    assert.deepEqual(await next(), {
      runId: `${run.id}.1`,
      title: "helper child-1",
      state: "running",
      usage: { inputTokens: 10, outputTokens: 0, toolCalls: 1 },
    });
    child("needs-action", 20);
    assert.equal((await next()).state, "needs-action");
    child("idle", 30);
    const idle = await next();
    assert.deepEqual([idle.state, (idle.usage as Frame).inputTokens], ["idle", 30]);
    // The same again is no change: no update for it.
    child("idle", 30);
    run.finish({ output: "done", stopReason: "completed" });
    const rest = [];
    for await (const update of updates) rest.push(update);
    assert.deepEqual(rest, []);
  });
});

Deno.test("a descendant update that tells nothing new does not keep an idle run alive", async (t) => {
  const run = async (changing: boolean) => {
    let n = 0;
    const agent = fakeAgent({
      card: seamCard,
      stream: (send, ctx) => {
        send(task("TASK_STATE_WORKING"));
        ctx.every(10, () => {
          n++;
          send(tree([{ runId: "a", state: "running", usage: { toolCalls: changing ? n : 0 } }]));
          // Changing for 800 ms, then done.
          if (changing && n === 80) {
            send({
              statusUpdate: {
                taskId: TASK,
                contextId: CONTEXT,
                status: { state: "TASK_STATE_COMPLETED" },
              },
            });
            ctx.close();
          }
        });
      },
    });
    const root = createRootScope({ logger: createMemoryLogger().logger });
    const provider = await createA2AProvider({ url: agent.url, idleTimeoutMs: 500 });
    try {
      const handle = provider.start({
        prompt: [{ type: "text", text: "go" }],
        parent: { id: "p", scope: root },
      });
      const settled = await settleWithin(handle, 10_000);
      await handle.dispose();
      return settled;
    } finally {
      await provider.dispose();
      await root.dispose();
      await agent.close();
    }
  };
  await t.step("the same update again and again: idle, the run ends error", async () => {
    const settled = await run(false);
    assert.equal(settled.stopReason, "error");
    assert.match(settled.why, /idleTimeoutMs/);
  });
  await t.step("a descendant at work: the run goes on to the task's end", async () => {
    assert.equal((await run(true)).stopReason, "completed");
  });
});

Deno.test("the inspector of a gateway in front sees the remote's grandchildren", async () => {
  const back = startSpawnGateway("loopback", {
    setup: (host) => installSubagentTool(host.scope, { provider: "spawn" }),
  });
  const toBack = await createA2AProvider({ url: back.url, name: "remote" });
  const front = startSpawnGateway("loopback", {
    inspector: true,
    setup: (_host, subagents) => void subagents.registerProvider(toBack),
  });
  const inner = `@call subagent ${
    JSON.stringify({ description: "deepest", prompt: "@reply from below" })
  }\n@reply {{results}}`;
  try {
    const sent = await (await fetch(`${front.url}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: {
          tenant: "remote",
          message: message(
            `@call subagent ${JSON.stringify({ description: "middle", prompt: inner })}\n@reply ok`,
          ),
        },
      }),
    })).json();
    assert.equal(sent.result.task.status.state, "TASK_STATE_COMPLETED");
    const seen = await (await fetch(`${front.url}/_inspect/tasks/${sent.result.task.id}`)).json();
    const runs = seen.runs as Frame[];
    const top = runs.find((r) => r.depth === 1)!;
    const middle = runs.find((r) => r.label === "middle")!;
    const deepest = runs.find((r) => r.label === "deepest")!;
    assert.ok(top && middle && deepest, JSON.stringify(runs));
    assert.deepEqual(
      [middle.parentRunId, middle.depth, deepest.parentRunId, deepest.depth],
      [top.runId, 2, middle.runId, 3],
    );
    assert.deepEqual([middle.status, deepest.status], ["completed", "completed"]);
  } finally {
    await front.close();
    await toBack.dispose();
    await back.close();
  }
});
