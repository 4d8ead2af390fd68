// The gateway against hostile and careless clients: every bound refuses with
// a clear error, and nothing already accepted is lost.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService, subagentProgress } from "@seam/subagent";
import {
  createGateway,
  createMemoryTaskStore,
  SEAM_EXTENSION_URI,
  type StoredTask,
  type TaskStore,
} from "./mod.ts";
import {
  BASE,
  controlledProvider,
  describeFrame,
  frames,
  message,
  rpc,
  rpcRequest,
  tick,
  untilEnded,
  type Wire,
  withSetup,
} from "./_test_support.ts";
import { within } from "../tests/within.ts";

/** A value nested `levels` deep in objects. */
function nested(levels: number): unknown {
  let value: unknown = "leaf";
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

function restSend(body: unknown, path = "/message:send"): Request {
  return new Request(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** A request whose body arrives as `chunks` and then, by `end`, closes, errors or hangs. */
function streamedRequest(
  chunks: string[],
  end: "close" | "error" | "hang",
  path = "/",
): { request: Request; cancelled: Promise<void>; cutOff: () => void } {
  let cancelled!: () => void;
  const whenCancelled = new Promise<void>((resolve) => cancelled = resolve);
  let cutOff = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // Ends a body nobody cancelled (a no-op once it was), so a failing test settles.
      cutOff = () => controller.error(new Error("the test cut the body off"));
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      if (end === "close") controller.close();
      if (end === "error") controller.error(new Error("connection reset by peer"));
    },
    cancel() {
      cancelled();
    },
  });
  const request = new Request(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    duplex: "half", // Node's fetch requires it for a stream body
  } as RequestInit);
  return { request, cancelled: end === "hang" ? whenCancelled : Promise.resolve(), cutOff };
}

Deno.test("a body nesting deeper than limits.maxJsonDepth is refused before it is parsed", async (t) => {
  const provider = controlledProvider({ auto: true });
  await withSetup([provider], {}, async (s) => {
    // The envelope is level 1, params 2, message 3, metadata 4, its value 5…
    const deepMetadata = (levels: number) => ({
      message: message("hi", { metadata: { k: nested(levels) } }),
    });
    await t.step("JSON-RPC: -32602 naming the limit; at the limit it is accepted", async () => {
      const refused = await rpc(s.gateway, "SendMessage", deepMetadata(61));
      assert.equal(refused.error.code, -32602);
      assert.match(refused.error.message, /deeper than 64 levels/);
      const accepted = await rpc(s.gateway, "SendMessage", deepMetadata(60));
      assert.equal(accepted.result.task.status.state, "TASK_STATE_COMPLETED");
    });
    await t.step("HTTP+JSON: 400 naming the limit", async () => {
      const response = await s.gateway.fetch(
        restSend({ message: message("hi", { metadata: nested(100) }) }),
      );
      assert.equal(response.status, 400);
      assert.match((await response.json()).error.message, /deeper than 64 levels/);
    });
    await t.step("a deep outputSchema gets the limit, not a stack overflow", async () => {
      const refused = await rpc(s.gateway, "SendMessage", {
        message: message("hi", {
          metadata: { [SEAM_EXTENSION_URI]: { outputSchema: nested(1_000) } },
        }),
      });
      assert.equal(refused.error.code, -32602);
      assert.match(refused.error.message, /deeper than 64 levels/);
    });
    await t.step(
      "an 8 KB body of 4,000 levels leaves nothing behind: ListTasks answers",
      async () => {
        const before = provider.runs.length;
        const text = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":${
          "[".repeat(4_000)
        }${"]".repeat(4_000)}}}`;
        const response = await s.gateway.fetch(
          new Request(`${BASE}/`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: text,
          }),
        );
        assert.equal((await response.json()).error.code, -32602);
        assert.equal(provider.runs.length, before, "no run started");
        const listed = await rpc(s.gateway, "ListTasks", {});
        assert.equal(listed.result.tasks.length, 1);
      },
    );
  });
});

Deno.test("every limit is checked when the gateway is created", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ maxJsonDepth: 1 }, /limits\.maxJsonDepth must be an integer of at least 2, got 1/],
    [{ maxLiveTasks: 0 }, /limits\.maxLiveTasks must be an integer of at least 1, got 0/],
    [{ taskTimeoutMs: -1 }, /limits\.taskTimeoutMs must be a non-negative integer, got -1/],
    [{ maxStreamBufferBytes: "big" }, /limits\.maxStreamBufferBytes .* got "big"/],
  ];
  for (const [limits, pattern] of cases) {
    assert.throws(() => createGateway({ scope: root, limits }), pattern);
  }
  assert.throws(() => createGateway({ scope: root, basePath: "a2a" }), /basePath must be a path/);
  assert.throws(
    () => createGateway({ scope: root, trustedHosts: [""] }),
    /trustedHosts must be a list of host names/,
  );
  await root.dispose();
});

Deno.test("a store write that fails leaves the task consistent, bounded and readable", async (t) => {
  await t.step(
    "a failed terminal write is stored reduced: evicted in time, read cleanly",
    async () => {
      const memory = createMemoryTaskStore({ maxTerminalTasks: 1 });
      let failNext = true;
      const store: TaskStore = {
        get: (id) => memory.get(id),
        list: (query) => memory.list(query),
        put(record) {
          if (failNext && record.task.status.state === "TASK_STATE_COMPLETED") {
            failNext = false;
            throw new Error("disk full");
          }
          memory.put(record);
        },
      };
      const provider = controlledProvider({ auto: true });
      await withSetup([provider], { taskStore: store }, async (s) => {
        const first = await rpc(s.gateway, "SendMessage", { message: message("one") });
        const id = first.result.task.id;
        assert.equal(first.result.task.status.state, "TASK_STATE_COMPLETED");
        const got = await rpc(s.gateway, "GetTask", { id });
        assert.equal(got.result.status.state, "TASK_STATE_COMPLETED");
        const note = got.result.status.message.parts[0].text;
        assert.match(note, /full record could not be stored; the gateway's log says why/);
        assert.doesNotMatch(note, /disk full/, "the store's words are for the log");
        assert.ok(s.errors().some((m) => /Storing task .* failed/.test(m)));
        for (let i = 0; i < 3; i++) await rpc(s.gateway, "SendMessage", { message: message("n") });
        assert.equal(memory.size, 1, "the reduced record was evicted like any other");
        assert.equal((await rpc(s.gateway, "ListTasks", {})).result.tasks.length, 1);
        for (const run of provider.runs) assert.equal(run.dispose.mock.calls.length, 1);
      });
    },
  );
  await t.step(
    "a record the store cannot read back answers a clean error, not a crash",
    async () => {
      const store: TaskStore = {
        get: (id): StoredTask => ({
          task: {
            id,
            contextId: "c",
            status: { state: "TASK_STATE_COMPLETED" },
            metadata: { big: 1n as never },
          },
          owner: undefined,
          provider: "ctl",
          updatedAt: 0,
        }),
        put() {},
        list: () => ({ tasks: [], total: 0 }),
      };
      await withSetup([controlledProvider()], { taskStore: store }, async (s) => {
        const response = await s.gateway.fetch(rpcRequest("GetTask", { id: "x" }));
        assert.equal(response.status, 500);
        const body = await response.json();
        assert.equal(body.error.code, -32603);
        assert.match(body.error.message, /the response could not be serialized/);
      });
    },
  );
});

Deno.test("live tasks are capped overall and per principal", async (t) => {
  const provider = controlledProvider();
  const auth = { tokens: { alice: "a-token", bob: "b-token" } };
  await withSetup(
    [provider],
    { auth, limits: { maxLiveTasks: 3, maxLiveTasksPerPrincipal: 2 } },
    async (s) => {
      const send = (token: string) =>
        rpc(s.gateway, "SendMessage", {
          message: message("hang"),
          configuration: { returnImmediately: true },
        }, { authorization: `Bearer ${token}` });
      await t.step("per principal: alice's third is refused, bob's first is not", async () => {
        assert.ok((await send("a-token")).result);
        assert.ok((await send("a-token")).result);
        const refused = await send("a-token");
        assert.equal(refused.error.code, -32600);
        assert.match(refused.error.message, /principal "alice" runs 2 tasks \(the limit is 2/);
        assert.equal(refused.error.data[0].reason, "TOO_MANY_TASKS_PER_PRINCIPAL");
        assert.ok((await send("b-token")).result);
      });
      await t.step("overall: the fourth live task is refused with 429", async () => {
        const response = await s.gateway.fetch(
          rpcRequest("SendMessage", {
            message: message("hang"),
            configuration: { returnImmediately: true },
          }, { authorization: "Bearer b-token" }),
        );
        assert.equal(response.status, 429);
        assert.match((await response.json()).error.message, /the limit is 3\)/);
      });
      await t.step("a slot frees once its task ends", async () => {
        provider.runs[0].ready();
        provider.runs[0].finish({ output: "done", stopReason: "completed" });
        await tick();
        await tick();
        assert.ok((await send("a-token")).result);
      });
    },
  );
});

Deno.test("a stream the client does not read is closed with an error, the task goes on", async () => {
  const provider = controlledProvider();
  await withSetup([provider], { limits: { maxStreamBufferBytes: 4_096 } }, async (s) => {
    const response = await s.gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("go") }),
    );
    const run = provider.runs[0];
    run.ready();
    await tick();
    const chunk = "x".repeat(1_000);
    for (let i = 0; i < 100; i++) {
      run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text: chunk });
    }
    assert.equal(s.gateway.liveTasks, 1, "the task goes on");
    const got = await frames(response); // ends: the subscriber was closed
    const last = got[got.length - 1];
    assert.equal(last.error.data[0].reason, "SLOW_CONSUMER");
    assert.match(last.error.message, /more than 4096 bytes wait unread/);
    assert.ok(got.length < 10, `only what fit was buffered (${got.length} frames)`);
    run.finish({ output: "", stopReason: "completed" });
    const ended = await untilEnded(s.gateway, got[0].result.task.id);
    assert.equal(ended.result.artifacts[0].parts[0].text.length, 100_000, "nothing was lost");
  });
});

Deno.test("a task takes at most limits.maxSubscribersPerTask streams", async () => {
  const provider = controlledProvider();
  await withSetup([provider], { limits: { maxSubscribersPerTask: 1 } }, async (s) => {
    const response = await s.gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("go") }),
    );
    const reading = frames(response);
    const id = provider.runs[0].request.parent.scope && (await firstTaskId(s.gateway));
    const second = await s.gateway.fetch(rpcRequest("SubscribeToTask", { id }));
    assert.equal(second.status, 429);
    assert.match((await second.json()).error.message, /the limit is 1\)/);
    provider.runs[0].ready();
    provider.runs[0].finish({ output: "", stopReason: "completed" });
    await reading;
  });
});

async function firstTaskId(gateway: Parameters<typeof rpc>[0]): Promise<string> {
  const listed = await rpc(gateway, "ListTasks", {});
  return listed.result.tasks[0].id;
}

Deno.test("one principal never reaches another's run or text", async (t) => {
  await t.step("a kept run is keyed by principal, provider and context", async () => {
    const provider = controlledProvider({ auto: true, resume: true });
    const auth = { tokens: { alice: "a-token", bob: "b-token" } };
    await withSetup([provider], { auth }, async (s) => {
      const as = (token: string) => ({ authorization: `Bearer ${token}` });
      const shared = { contextId: "shared" };
      await rpc(s.gateway, "SendMessage", { message: message("a1", shared) }, as("a-token"));
      await rpc(s.gateway, "SendMessage", { message: message("b1", shared) }, as("b-token"));
      assert.equal(provider.runs.length, 2, "bob's message started a run of his own");
      assert.equal(provider.runs[0].dispose.mock.calls.length, 0, "alice's kept run is intact");
      await rpc(s.gateway, "SendMessage", { message: message("a2", shared) }, as("a-token"));
      assert.equal(provider.runs[0].resumedWith.length, 1, "alice continues her own run");
      assert.equal(provider.runs[1].resumedWith.length, 0);
    });
  });
  await t.step("text is routed by task, even when a provider repeats run ids", async () => {
    const provider = controlledProvider({ fixedId: "same" });
    await withSetup([provider], {}, async (s) => {
      const streams = [];
      for (const text of ["one", "two"]) {
        streams.push(
          frames(
            await s.gateway.fetch(rpcRequest("SendStreamingMessage", { message: message(text) })),
          ),
        );
      }
      for (const run of provider.runs) run.ready();
      await tick();
      const [first, second] = provider.runs;
      first.request.parent.scope.emit(subagentProgress, {
        runId: "same",
        kind: "text",
        text: "for one",
      });
      for (const run of provider.runs) run.finish({ output: "", stopReason: "completed" });
      const [a, b] = await Promise.all(streams);
      assert.ok(a.map(describeFrame).includes("artifact:set:for one"));
      assert.ok(!b.map(describeFrame).some((f) => f.includes("for one")));
      assert.notEqual(first.request.parent.scope, second.request.parent.scope);
    });
  });
});

Deno.test("limits.taskTimeoutMs ends a task FAILED with a note", async (t) => {
  await t.step("the run is cancelled with the reason and disposed", async () => {
    const provider = controlledProvider();
    await withSetup([provider], { limits: { taskTimeoutMs: 30 } }, async (s) => {
      const sent = await rpc(s.gateway, "SendMessage", {
        message: message("slow"),
        configuration: { returnImmediately: true },
      });
      provider.runs[0].ready();
      const ended = await untilEndedSlowly(s.gateway, sent.result.task.id);
      assert.equal(ended.status.state, "TASK_STATE_FAILED");
      assert.match(ended.status.message.parts[0].text, /deadline \(30 ms\) passed/);
      assert.equal(ended.metadata[SEAM_EXTENSION_URI].stopReason, "error");
      assert.match(String(provider.runs[0].cancel.mock.calls[0].arguments[0]), /deadline/);
      await tick();
      assert.equal(provider.runs[0].dispose.mock.calls.length, 1);
    });
  });
  await t.step("a run that ignores the cancel is torn down after the grace", async () => {
    const provider = controlledProvider({ cancelEnds: false });
    await withSetup(
      [provider],
      { limits: { taskTimeoutMs: 20 }, cancelTimeoutMs: 20 },
      async (s) => {
        const sent = await rpc(s.gateway, "SendMessage", {
          message: message("stuck"),
          configuration: { returnImmediately: true },
        });
        const ended = await untilEndedSlowly(s.gateway, sent.result.task.id);
        assert.equal(ended.status.state, "TASK_STATE_FAILED");
        assert.match(ended.status.message.parts[0].text, /did not stop within 20 ms/);
        await tick();
        assert.equal(provider.runs[0].dispose.mock.calls.length, 1);
      },
    );
  });
});

/** GetTask until the task ended, waiting on timers (bounded). */
async function untilEndedSlowly(gateway: Parameters<typeof rpc>[0], id: string): Promise<Wire> {
  for (let i = 0; i < 100; i++) {
    const got = await rpc(gateway, "GetTask", { id });
    if (/COMPLETED|FAILED|CANCELED|REJECTED/.test(got.result.status.state)) return got.result;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Task "${id}" did not end`);
}

Deno.test("bodies that are slow, cut off or steer too often are refused cleanly", async (t) => {
  const provider = controlledProvider({ steer: true });
  await withSetup(
    [provider],
    { limits: { bodyTimeoutMs: 50, maxSteeringMessages: 2 } },
    async (s) => {
      await t.step("a body that never ends answers 408 and is cancelled", async () => {
        const rpcBody = streamedRequest(['{"jsonrpc":'], "hang");
        const rest = streamedRequest(['{"message":'], "hang", "/message:send");
        try {
          const response = await within(s.gateway.fetch(rpcBody.request), "the 408 answer");
          assert.equal(response.status, 408);
          assert.match((await response.json()).error.message, /did not arrive within 50 ms/);
          await within(rpcBody.cancelled, "the cancel of the body");
          const answered = await within(s.gateway.fetch(rest.request), "the REST 408 answer");
          assert.equal(answered.status, 408);
          assert.equal((await answered.json()).error.status, "DEADLINE_EXCEEDED");
          await within(rest.cancelled, "the cancel of the REST body");
        } finally {
          rpcBody.cutOff();
          rest.cutOff();
        }
      });
      await t.step("a client that drops mid-body gets 400, logged below error level", async () => {
        const { request } = streamedRequest(['{"jsonrpc":'], "error");
        const response = await s.gateway.fetch(request);
        assert.equal(response.status, 200); // JSON-RPC: the error is in the body
        const body = await response.json();
        assert.equal(body.error.code, -32600);
        assert.match(body.error.message, /could not be read/);
        assert.deepEqual(s.errors(), []);
      });
      await t.step("a task takes maxSteeringMessages follow-ups, then 429", async () => {
        const sent = await rpc(s.gateway, "SendMessage", {
          message: message("start"),
          configuration: { returnImmediately: true },
        });
        const taskId = sent.result.task.id;
        provider.runs[0].ready();
        for (let i = 0; i < 2; i++) {
          const steered = await rpc(s.gateway, "SendMessage", {
            message: message(`more ${i}`, { taskId }),
            configuration: { returnImmediately: true },
          });
          assert.ok(steered.result, JSON.stringify(steered));
        }
        const refused = await s.gateway.fetch(
          rpcRequest("SendMessage", {
            message: message("one too many", { taskId }),
            configuration: { returnImmediately: true },
          }),
        );
        assert.equal(refused.status, 429);
        assert.match((await refused.json()).error.message, /took 2 follow-up messages/);
        assert.equal(provider.runs[0].sent.length, 2);
        provider.runs[0].finish({ output: "", stopReason: "completed" });
      });
    },
  );
});

Deno.test("small edges: inherited method names, WORKING first, the card's host", async (t) => {
  await t.step("toString and constructor are unknown methods, not A2A 0.3 ones", async () => {
    await withSetup([controlledProvider()], {}, async (s) => {
      for (const method of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
        const answer = await rpc(s.gateway, method, {});
        assert.equal(answer.error.code, -32601);
        assert.doesNotMatch(answer.error.message, /0\.3/);
      }
    });
  });
  await t.step("text streamed before readiness still comes after WORKING", async () => {
    const provider = controlledProvider();
    await withSetup([provider], {}, async (s) => {
      const reading = frames(
        await s.gateway.fetch(rpcRequest("SendStreamingMessage", { message: message("go") })),
      );
      const run = provider.runs[0];
      run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "Hi" });
      run.ready();
      run.finish({ output: "Hi", stopReason: "completed" });
      assert.deepEqual((await reading).map(describeFrame), [
        "task:SUBMITTED",
        "status:WORKING",
        "artifact:set:Hi",
        "artifact:set:last:Hi",
        "status:COMPLETED",
      ]);
    });
  });
  await t.step(
    "ids a store keeps as text are refused with a lone surrogate, naming the field",
    async () => {
      // A lone half reaches PostgreSQL's text as U+FFFD: "\ud800" and "\udfff" would be one context.
      const provider = controlledProvider();
      await withSetup([provider], {}, async (s) => {
        const lone = "ctx-\ud800";
        const cases: [string, unknown, RegExp][] = [
          ["SendMessage", { message: { ...message("go"), contextId: lone } }, /message\.contextId/],
          ["ListTasks", { contextId: lone }, /contextId must be well-formed Unicode/],
          ["ListTasks", { tenant: lone }, /tenant must be well-formed Unicode/],
        ];
        for (const [method, params, text] of cases) {
          const answer = await rpc(s.gateway, method, params);
          assert.equal(answer.error?.code, -32602, `${method} ${JSON.stringify(params)}`);
          assert.match(answer.error.message, text);
          assert.match(answer.error.message, /lone surrogate/);
        }
        assert.equal(provider.runs.length, 0, "no refused message started a run");
        // A well-formed pair (an emoji) is text like any other.
        const sent = await rpc(s.gateway, "SendMessage", {
          message: { ...message("go"), contextId: "ctx-\u{1F600}" },
          configuration: { returnImmediately: true },
        });
        assert.equal(sent.result.task.contextId, "ctx-\u{1F600}");
      });
    },
  );
  await t.step("trustedHosts: a trusted host's card is public, another host gets 421", async () => {
    await withSetup([controlledProvider()], { trustedHosts: ["gw.test"] }, async (s) => {
      const trusted = await s.gateway.fetch(new Request(`${BASE}/.well-known/agent-card.json`));
      assert.equal(trusted.headers.get("cache-control"), "public, max-age=60");
      await trusted.body?.cancel();
      const other = await s.gateway.fetch(
        new Request("http://evil.test/.well-known/agent-card.json"),
      );
      assert.equal(other.status, 421);
      assert.match((await other.json()).error.message, /host "evil.test" is not one/);
    });
  });
});

Deno.test("a task takes at most limits.maxSteeringBytes of follow-up content", async () => {
  const provider = controlledProvider({ steer: true });
  await withSetup([provider], { limits: { maxSteeringBytes: 2_000 } }, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", {
      message: message("start"),
      configuration: { returnImmediately: true },
    });
    const taskId = sent.result.task.id;
    provider.runs[0].ready();
    const steer = (text: string) =>
      s.gateway.fetch(rpcRequest("SendMessage", {
        message: message(text, { taskId }),
        configuration: { returnImmediately: true },
      }));
    const first = await steer("x".repeat(1_500));
    assert.ok((await first.json()).result);
    const second = await steer("y".repeat(1_000));
    assert.equal(second.status, 429);
    assert.match((await second.json()).error.message, /the limit is 2000 in all/);
    const small = await steer("ok");
    assert.ok((await small.json()).result, "what fits is still taken");
    assert.equal(provider.runs[0].sent.length, 2);
    provider.runs[0].finish({ output: "", stopReason: "completed" });
  });
});
