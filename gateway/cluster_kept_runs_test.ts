// A follow-up by contextId on a shared storage that reaches another gateway
// than the one keeping the finished run: the message goes to the one that
// keeps it, and the conversation goes on there; another principal, or a
// keeper that stopped, gets a fresh run.
import assert from "node:assert/strict";
import {
  type ContentInput,
  createMemoryLogger,
  createRootScope,
  type LogRecord,
  type Scope,
  textOf,
} from "@seam/host";
import {
  createSubagentService,
  type SubagentProvider,
  type SubagentRunHandle,
} from "@seam/subagent";
import { Frames, rpcRequest, within } from "./cluster/_cluster_test_support.ts";
import { message, type Wire } from "./_test_support.ts";
import {
  createGateway,
  createMemoryTaskStore,
  type Gateway,
  getGatewayTask,
  type MemoryTaskStore,
  SEAM_EXTENSION_URI,
} from "./mod.ts";

/**
 * A provider whose runs remember their conversation: each answers every
 * turn so far, joined, and a resumed run starts from its run's turns. A run
 * whose first prompt starts with "reply:" answers with a direct message
 * (`replyWithMessage`); `dispose` is each run's disposal.
 */
function remembering(
  dispose: () => Promise<void> = () => Promise.resolve(),
): SubagentProvider & { readonly started: number } {
  let n = 0;
  let started = 0;
  const run = (prompt: ContentInput, earlier: readonly string[]): SubagentRunHandle => {
    const turns = [...earlier, textOf(prompt)];
    return {
      id: `mem-${++n}`,
      started: Promise.resolve(),
      result: Promise.resolve({ output: turns.join(" | "), stopReason: "completed" }),
      cancel() {},
      dispose,
      resume: (content) => run(content, turns),
    };
  };
  return {
    name: "mem",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    get started() {
      return started;
    },
    start(request) {
      started++;
      if (textOf(request.prompt).startsWith("reply:")) {
        getGatewayTask(request.parent.scope)!.replyWithMessage();
      }
      return run(request.prompt, []);
    },
  };
}

interface Node {
  readonly gateway: Gateway;
  readonly provider: ReturnType<typeof remembering>;
  readonly records: LogRecord[];
}

/**
 * Two gateways on one shared memory store, each with a remembering provider
 * (the first's runs disposed by `first.dispose`, kept up to
 * `first.maxResumableRuns`); all closed afterwards.
 */
async function withPair(
  fn: (a: Node, b: Node, store: MemoryTaskStore) => Promise<void>,
  first: { dispose?: () => Promise<void>; maxResumableRuns?: number } = {},
): Promise<void> {
  const store = createMemoryTaskStore({ shared: true, leaseTtlMs: 10_000 });
  const roots: Scope[] = [];
  const nodes: Node[] = [];
  for (let i = 0; i < 2; i++) {
    const { logger, records } = createMemoryLogger();
    const root = createRootScope({ logger });
    roots.push(root);
    const provider = remembering(i === 0 ? first.dispose : undefined);
    createSubagentService(root).registerProvider(provider);
    const gateway = createGateway({
      scope: root,
      taskStore: store,
      auth: { tokens: { alice: "alice-token", bob: "bob-token" } },
      maxResumableRuns: i === 0 ? first.maxResumableRuns : undefined,
    });
    nodes.push({ gateway, provider, records });
  }
  try {
    await fn(nodes[0], nodes[1], store);
  } finally {
    for (const node of nodes) await node.gateway.close();
    for (const root of roots) await root.dispose();
  }
}

/** `method` called on `gateway` as `who`, its JSON answer. */
async function call(gateway: Gateway, who: string, method: string, params: unknown): Promise<Wire> {
  const response = await gateway.fetch(
    rpcRequest(method, params, { authorization: `Bearer ${who}-token` }),
  );
  return await response.json();
}

/** The text of a task's output artifact. */
const outputOf = (task: Wire): string => task.artifacts[0].parts[0].text;

/** Task `id` read on `gateway` as `who` until it ended (at most a second). */
async function ended(gateway: Gateway, who: string, id: string): Promise<Wire> {
  for (let i = 0; i < 100; i++) {
    const got = (await call(gateway, who, "GetTask", { id })).result;
    if (got.status.state === "TASK_STATE_COMPLETED") return got;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`task "${id}" did not end within a second`);
}

/** Send "first" to `gateway` as `who`, blocking: the ended task. */
async function first(gateway: Gateway, who = "alice"): Promise<Wire> {
  const sent = await call(gateway, who, "SendMessage", { message: message("first") });
  assert.equal(sent.result.task.status.state, "TASK_STATE_COMPLETED");
  return sent.result.task;
}

Deno.test("a follow-up by contextId on another gateway continues the run the first one kept", async (t) => {
  await t.step(
    "blocking: the child sees its earlier turn, the task made where the run is",
    async () => {
      await withPair(async (a, b) => {
        const earlier = await first(a.gateway);
        const sent = await call(b.gateway, "alice", "SendMessage", {
          message: message("second", { contextId: earlier.contextId }),
        });
        const task = sent.result.task;
        assert.equal(task.status.state, "TASK_STATE_COMPLETED", JSON.stringify(sent));
        assert.equal(task.contextId, earlier.contextId);
        assert.equal(outputOf(task), "first | second");
        assert.equal(task.metadata[SEAM_EXTENSION_URI].resumedFrom, earlier.id);
        assert.equal(b.provider.started, 0, "no fresh run on the gateway the follow-up reached");
        // Kept again where it ran: a third turn through either gateway goes on.
        const third = await call(b.gateway, "alice", "SendMessage", {
          message: message("third", { contextId: earlier.contextId }),
        });
        assert.equal(outputOf(third.result.task), "first | second | third");
        const got = await call(a.gateway, "alice", "GetTask", { id: task.id });
        assert.equal(outputOf(got.result), "first | second");
      });
    },
  );

  await t.step(
    "returnImmediately: the new task, stored, readable on the gateway asked",
    async () => {
      await withPair(async (a, b) => {
        const earlier = await first(a.gateway);
        const sent = await call(b.gateway, "alice", "SendMessage", {
          message: message("second", { contextId: earlier.contextId }),
          configuration: { returnImmediately: true },
        });
        const id = sent.result.task.id;
        assert.notEqual(id, earlier.id);
        assert.equal(outputOf(await ended(b.gateway, "alice", id)), "first | second");
      });
    },
  );

  await t.step("streaming: the task, then its updates, read from the store", async () => {
    await withPair(async (a, b) => {
      const earlier = await first(a.gateway);
      const response = await b.gateway.fetch(
        rpcRequest("SendStreamingMessage", {
          message: message("second", { contextId: earlier.contextId }),
        }, { authorization: "Bearer alice-token" }),
      );
      const frames = new Frames(response);
      const head = await frames.next();
      assert.equal(head?.data.task.contextId, earlier.contextId);
      assert.equal(head?.data.task.metadata[SEAM_EXTENSION_URI].resumedFrom, earlier.id);
      let output: string | undefined;
      let last: Wire | undefined;
      for (let frame = await frames.next(); frame; frame = await frames.next()) {
        if (frame.data.artifactUpdate) output = frame.data.artifactUpdate.artifact.parts[0].text;
        last = frame.data;
      }
      assert.equal(output, "first | second");
      assert.equal(last?.statusUpdate.status.state, "TASK_STATE_COMPLETED");
      assert.equal(b.provider.started, 0);
    });
  });
});

Deno.test("a follow-up by contextId on another gateway, by another principal: a fresh run, the keeper's run untouched", async () => {
  await withPair(async (a, b, store) => {
    const earlier = await first(a.gateway, "alice");
    const bob = await call(b.gateway, "bob", "SendMessage", {
      message: message("second", { contextId: earlier.contextId }),
    });
    assert.equal(outputOf(bob.result.task), "second", "bob does not see alice's conversation");
    assert.equal(bob.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
    assert.equal(b.provider.started, 1);
    // Sent to the gateway that keeps alice's run, bob's message goes on with his own
    // (kept on b), never with hers.
    const bobThere = await call(a.gateway, "bob", "SendMessage", {
      message: message("again", { contextId: earlier.contextId }),
    });
    assert.equal(outputOf(bobThere.result.task), "second | again");
    const alice = await call(b.gateway, "alice", "SendMessage", {
      message: message("third", { contextId: earlier.contextId }),
    });
    assert.equal(outputOf(alice.result.task), "first | third");
    // The keeper takes a run by the same key from a command as from a client: bob's
    // continuation sent straight to it finds no run of his kept there, never alice's.
    const keeper = alice.result.task.metadata[SEAM_EXTENSION_URI].keptOn;
    const forged = await store.send(keeper, {
      kind: "continue",
      params: { message: message("forged", { contextId: earlier.contextId }) },
      principal: "bob",
    }, 5_000);
    assert.equal(forged.notKept, true, JSON.stringify(forged));
    assert.equal(forged.taskId, undefined);
    const fourth = await call(b.gateway, "alice", "SendMessage", {
      message: message("fourth", { contextId: earlier.contextId }),
    });
    assert.equal(outputOf(fourth.result.task), "first | third | fourth");
  });
});

Deno.test("a follow-up by contextId whose keeper stopped: a fresh run here, no resumedFrom, a warning", async () => {
  await withPair(async (a, b) => {
    const earlier = await first(a.gateway);
    await a.gateway.close();
    const sent = await call(b.gateway, "alice", "SendMessage", {
      message: message("second", { contextId: earlier.contextId }),
    });
    const task = sent.result.task;
    assert.equal(task.status.state, "TASK_STATE_COMPLETED", JSON.stringify(sent));
    assert.equal(outputOf(task), "second");
    assert.equal(task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
    assert.equal(b.provider.started, 1);
    assert.ok(
      b.records.some((r) => r.level === "warn" && /did not take a follow-up/.test(r.message)),
      JSON.stringify(b.records),
    );
  });
});

/** Whether `node` logged the warning of a keeper that no longer keeps the run. */
const warnedNotKept = (node: Node): boolean =>
  node.records.some((r) => r.level === "warn" && /no longer keeps it/.test(r.message));

Deno.test("a follow-up by contextId whose keeper is shutting down: a fresh run here, not a 503", async () => {
  // The keeper's shutdown waits on its runs' disposal: it still answers commands, its
  // kept runs already cleared.
  let release!: () => void;
  const disposing = new Promise<void>((resolve) => release = resolve);
  await withPair(async (a, b) => {
    const earlier = await first(a.gateway);
    const closing = a.gateway.close();
    try {
      const sent = await call(b.gateway, "alice", "SendMessage", {
        message: message("second", { contextId: earlier.contextId }),
      });
      const task = sent.result?.task;
      assert.equal(task?.status.state, "TASK_STATE_COMPLETED", JSON.stringify(sent));
      assert.equal(outputOf(task), "second");
      assert.equal(task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
      assert.equal(b.provider.started, 1);
      assert.ok(warnedNotKept(b), JSON.stringify(b.records));
    } finally {
      release();
      await closing;
    }
  }, { dispose: () => disposing });
});

Deno.test("a follow-up by contextId whose keeper pushed its run out: a fresh run where it arrived", async () => {
  await withPair(async (a, b) => {
    const earlier = await first(a.gateway);
    await first(a.gateway); // Another context: maxResumableRuns 1 pushes the first run out.
    const sent = await call(b.gateway, "alice", "SendMessage", {
      message: message("second", { contextId: earlier.contextId }),
    });
    const task = sent.result?.task;
    assert.equal(outputOf(task), "second", JSON.stringify(sent));
    assert.equal(task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
    assert.equal(b.provider.started, 1, "the fresh run is where the follow-up arrived");
    assert.equal(a.provider.started, 2);
    assert.ok(warnedNotKept(b), JSON.stringify(b.records));
  }, { maxResumableRuns: 1 });
});

Deno.test("a follow-up by contextId whose keeper's run answers with a message: a fresh run here, answered", async (t) => {
  for (const streaming of [false, true]) {
    await t.step(streaming ? "streaming" : "blocking", async () => {
      await withPair(async (a, b) => {
        const earlier = await first(a.gateway);
        await first(a.gateway); // Pushes the first run out (maxResumableRuns 1).
        // A fresh run on the keeper, in the same context, that answers with a message (never
        // stored): kept there, while the context's newest stored task still names the keeper.
        const direct = await call(a.gateway, "alice", "SendMessage", {
          message: message("reply: hi", { contextId: earlier.contextId }),
        });
        assert.equal(direct.result.message.parts[0].text, "reply: hi");
        const params = { message: message("second", { contextId: earlier.contextId }) };
        let task: Wire;
        if (streaming) {
          const frames = new Frames(
            await b.gateway.fetch(
              rpcRequest("SendStreamingMessage", params, { authorization: "Bearer alice-token" }),
            ),
          );
          try {
            const got = await within(2_000, "the stream did not end", frames.rest());
            const last = got.at(-1)?.data.statusUpdate;
            task = { ...got[0]?.data.task, status: last?.status };
          } finally {
            await frames.cancel();
          }
        } else {
          task = (await call(b.gateway, "alice", "SendMessage", params)).result?.task;
        }
        assert.equal(task?.status.state, "TASK_STATE_COMPLETED", JSON.stringify(task));
        assert.equal(task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
        assert.equal(b.provider.started, 1);
        assert.ok(warnedNotKept(b), JSON.stringify(b.records));
        // The keeper still keeps its own conversation, for a follow-up sent to it.
        const again = await call(a.gateway, "alice", "SendMessage", {
          message: message("again", { contextId: earlier.contextId }),
        });
        assert.equal(again.result.message.parts[0].text, "reply: hi | again");
      }, { maxResumableRuns: 1 });
    });
  }
});
