// The run inspector behind a load balancer: two gateways on one shared store
// (the shared memory store stands in for PostgreSQL; gateway_postgres/ has
// the same on a real server). Each instance's list holds every task of the
// principal (live where it runs it, marked "elsewhere" where another
// does), never another principal's; each task carries the first words of its
// first prompt; the detail of a task another instance runs comes from the store.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { controlledProvider, message, type Wire } from "./_test_support.ts";
import { createGateway, createMemoryTaskStore, type Gateway } from "./mod.ts";
import { MAX_TITLE } from "./inspector/_inspector_list.ts";

const AUTH = { tokens: { alice: "alice-token", bob: "bob-token" } };
const as = (who: "alice" | "bob") => ({ authorization: `Bearer ${who}-token` });

interface Node {
  readonly gateway: Gateway;
  readonly provider: ReturnType<typeof controlledProvider>;
}

async function withTwo(fn: (a: Node, b: Node) => Promise<void>): Promise<void> {
  const store = createMemoryTaskStore({ shared: true, leaseTtlMs: 10_000 });
  const roots: Scope[] = [];
  const nodes: Node[] = [];
  for (let i = 0; i < 2; i++) {
    const root = createRootScope({ logger: createMemoryLogger().logger });
    roots.push(root);
    const provider = controlledProvider({ cancelEnds: true });
    createSubagentService(root).registerProvider(provider);
    nodes.push({
      gateway: createGateway({ scope: root, taskStore: store, auth: AUTH, inspector: true }),
      provider,
    });
  }
  try {
    await fn(nodes[0], nodes[1]);
  } finally {
    for (const node of nodes) await node.gateway.close();
    for (const root of roots) await root.dispose();
  }
}

async function send(node: Node, who: "alice" | "bob", text: string): Promise<string> {
  const response = await node.gateway.fetch(
    new Request("http://gw.test/", {
      method: "POST",
      headers: { "content-type": "application/json", ...as(who) },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: message(text), configuration: { returnImmediately: true } },
      }),
    }),
  );
  const body = await response.json();
  assert.ok(body.result?.task?.id, JSON.stringify(body));
  return body.result.task.id;
}

async function list(node: Node, who: "alice" | "bob"): Promise<Wire> {
  const response = await node.gateway.fetch(
    new Request("http://gw.test/_inspect/tasks", { headers: as(who) }),
  );
  assert.equal(response.status, 200);
  return await response.json();
}

Deno.test("inspector list on a shared store: every task of the principal, where it runs, never another's", async () => {
  await withTwo(async (a, b) => {
    const onA = await send(a, "alice", "Summarise the quarterly report for the board");
    a.provider.runs[0].ready();
    const bobs = await send(b, "bob", "bob's own task");
    b.provider.runs[0].ready();
    const onB = await send(b, "alice", "Second task, started on the other instance");
    b.provider.runs[1].ready();

    const fromB = await list(b, "alice");
    const byId: Wire = Object.fromEntries(fromB.tasks.map((t: Wire) => [t.id, t]));
    assert.deepEqual(
      Object.keys(byId).sort(),
      [onA, onB].sort(),
      "alice's tasks only, both instances'",
    );
    assert.equal(fromB.total, 2);
    assert.equal(byId[onB].where, "here");
    assert.equal(byId[onA].where, "elsewhere", "B says another instance runs it");
    assert.equal(byId[onA].title, "Summarise the quarterly report for the board");
    assert.equal(byId[onA].state, "TASK_STATE_WORKING");
    assert.equal(byId[onA].provider, "ctl");

    const fromA = await list(a, "alice");
    const onASide: Wire = Object.fromEntries(fromA.tasks.map((t: Wire) => [t.id, t]));
    assert.equal(onASide[onA].where, "here");
    assert.equal(onASide[onB].where, "elsewhere");

    const bobList = await list(a, "bob");
    assert.deepEqual(bobList.tasks.map((t: Wire) => t.id), [bobs], "bob sees his own, from A too");

    // The detail of a task the other instance runs: its task from the store, no runs here.
    const detail = await a.gateway.fetch(
      new Request(`http://gw.test/_inspect/tasks/${onB}`, { headers: as("alice") }),
    );
    assert.equal(detail.status, 200);
    const body = await detail.json();
    assert.equal(body.task.id, onB);
    assert.deepEqual(body.runs, []);
    const denied = await a.gateway.fetch(
      new Request(`http://gw.test/_inspect/tasks/${onB}`, { headers: as("bob") }),
    );
    assert.equal(denied.status, 404, "bob cannot read alice's task on either instance");
    await denied.body?.cancel();

    // Once it ends, the other instance lists it as ended.
    a.provider.runs[0].finish({ output: [{ type: "text", text: "ok" }], stopReason: "completed" });
    for (let i = 0; i < 100; i++) {
      const t = (await list(b, "alice")).tasks.find((x: Wire) => x.id === onA);
      if (t.where === "ended") {
        assert.equal(t.state, "TASK_STATE_COMPLETED");
        return;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.fail("B never listed A's task as ended");
  });
});

Deno.test("inspector list: a task's title is the first words of its first prompt, bounded", async () => {
  await withTwo(async (a) => {
    const long = "word ".repeat(200) + "\n\n  tail";
    const id = await send(a, "alice", long);
    a.provider.runs[0].ready();
    const [task] = (await list(a, "alice")).tasks;
    assert.equal(task.id, id);
    assert.ok(task.title.length <= MAX_TITLE, task.title);
    assert.ok(task.title.startsWith("word word"));
    assert.ok(task.title.endsWith("…"));
    // The event stream's snapshot carries the same title.
    const events = await a.gateway.fetch(
      new Request("http://gw.test/_inspect/events", { headers: as("alice") }),
    );
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
    await reader.cancel();
    const snapshot = JSON.parse(text.slice("data: ".length, text.indexOf("\n\n")));
    assert.equal(snapshot.tasks[0].title, task.title);
  });
});

Deno.test("inspector list refuses other methods and needs the token", async () => {
  await withTwo(async (a) => {
    const noToken = await a.gateway.fetch(new Request("http://gw.test/_inspect/tasks"));
    assert.equal(noToken.status, 401);
    await noToken.body?.cancel();
    const posted = await a.gateway.fetch(
      new Request("http://gw.test/_inspect/tasks", { method: "POST", headers: as("alice") }),
    );
    assert.equal(posted.status, 405);
    await posted.body?.cancel();
  });
});
