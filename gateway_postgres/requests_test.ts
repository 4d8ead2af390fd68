// What a hostile client sends, over HTTP on loopback, to a gateway on
// PostgreSQL: what the database cannot take is refused with an error naming
// it, never an internal error.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway, type GatewayLimits } from "@seam/gateway";
import { controlledProvider } from "../gateway/_test_support.ts";
import { createPostgresPushConfigStore } from "./mod.ts";
import {
  dropSchema,
  freshSchema,
  openStore,
  openStream,
  SKIP,
  stateOf,
  type Wire,
} from "./_test_support.ts";

interface Served {
  readonly base: string;
  readonly errors: () => string[];
  readonly provider: ReturnType<typeof controlledProvider>;
}

/** A gateway on a fresh schema, with PostgreSQL push configs, served on loopback. */
async function withServed(
  fn: (served: Served) => Promise<void>,
  limits?: GatewayLimits,
): Promise<void> {
  const schema = freshSchema();
  const store = await openStore(schema);
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  const provider = controlledProvider();
  createSubagentService(root).registerProvider(provider);
  const gateway = createGateway({
    scope: root,
    taskStore: store,
    push: { allowWebhook: () => true, configStore: createPostgresPushConfigStore(store) },
    limits,
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => gateway.fetch(request),
  );
  try {
    await fn({
      base: `http://127.0.0.1:${server.addr.port}`,
      errors: () => records.filter((r) => r.level === "error").map((r) => r.message),
      provider,
    });
  } finally {
    await server.shutdown();
    await gateway.close();
    await root.dispose();
    await store.close();
    await dropSchema(schema);
  }
}

async function rpc(base: string, method: string, params: unknown): Promise<Wire> {
  const response = await fetch(`${base}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  assert.equal(response.status, 200, `${method}: HTTP ${response.status}`);
  return await response.json();
}

const message = (fields: Record<string, unknown> = {}) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: "ROLE_USER",
    parts: [{ text: "hi" }],
    ...fields,
  },
  configuration: { returnImmediately: true },
});

Deno.test({
  name: "find(), list(), send() and the push params refuse a NUL in what reaches PostgreSQL",
  ignore: SKIP,
  fn: async () => {
    await withServed(async ({ base, errors }) => {
      const sent = await rpc(base, "SendMessage", message());
      const taskId = sent.result.task.id;
      const nul = "a\u0000b";
      const cases: [string, unknown, number, RegExp][] = [
        ["GetTask", { id: nul }, -32001, /Task not found/],
        ["CancelTask", { id: nul }, -32001, /Task not found/],
        ["SubscribeToTask", { id: nul }, -32001, /Task not found/],
        ["SendMessage", message({ taskId: nul }), -32001, /Task not found/],
        ["SendMessage", message({ contextId: nul }), -32602, /message\.contextId must not/],
        ["ListTasks", { contextId: nul }, -32602, /contextId must not contain NUL/],
        ["ListTasks", { tenant: nul }, -32602, /tenant must not contain NUL/],
        ["ListTasks", { pageToken: btoa(`1:${nul}`) }, -32602, /pageToken is not a token/],
        ["ListTaskPushNotificationConfigs", { taskId: nul }, -32602, /taskId must not/],
        [
          "CreateTaskPushNotificationConfig",
          { taskId, id: nul, url: "https://example.com/hook" },
          -32602,
          /id must not contain NUL/,
        ],
        ["DeleteTaskPushNotificationConfig", { taskId, id: nul }, -32602, /id must not/],
      ];
      for (const [method, params, code, text] of cases) {
        const answer = await rpc(base, method, params);
        assert.equal(answer.error?.code, code, `${method} ${JSON.stringify(params)}`);
        assert.match(answer.error.message, text);
      }
      // A lone surrogate half would reach PostgreSQL's text as U+FFFD (two ids become one).
      const lone = "a\udfffb";
      const surrogates: [string, unknown, RegExp][] = [
        ["SendMessage", message({ contextId: lone }), /message\.contextId must be well-formed/],
        ["ListTasks", { contextId: lone }, /contextId must be well-formed/],
        [
          "CreateTaskPushNotificationConfig",
          { taskId, url: "https://example.com/hook", token: lone },
          /token must be well-formed/,
        ],
      ];
      for (const [method, params, text] of surrogates) {
        const answer = await rpc(base, method, params);
        assert.equal(answer.error?.code, -32602, `${method} ${JSON.stringify(params)}`);
        assert.match(answer.error.message, text);
      }
      const rest = await fetch(`${base}/tasks/a%00b`);
      assert.equal(rest.status, 404);
      await rest.body?.cancel();
      const listed = await fetch(`${base}/tasks?contextId=a%00b`);
      assert.equal(listed.status, 400);
      assert.match((await listed.json()).error.message, /contextId must not contain NUL/);
      assert.deepEqual(errors(), []);
    });
  },
});

Deno.test({
  name: "subscribe() refuses a Last-Event-ID beyond the task's newest event, as large as it gets",
  ignore: SKIP,
  fn: async () => {
    await withServed(async ({ base, errors, provider }) => {
      const sent = await rpc(base, "SendMessage", message());
      const id = sent.result.task.id;
      provider.runs[0].ready();
      const subscribe = (lastEventId: string) =>
        fetch(`${base}/tasks/${id}:subscribe`, {
          headers: { "last-event-id": lastEventId },
          signal: AbortSignal.timeout(5_000),
        });
      // Past PostgreSQL's integer and within it: either waited for ever (for
      // an event no stream will send, even after the end) or failed as 503.
      for (const cursor of ["99999999999999", "2147483647", "1000"]) {
        const response = await subscribe(cursor);
        assert.equal(response.status, 400, `Last-Event-ID ${cursor}`);
        const body = await response.json();
        assert.match(body.error.message, new RegExp(`Last-Event-ID ${cursor} is beyond`));
      }
      // An id it sent still resumes there.
      const resumed = await subscribe("1");
      assert.equal(resumed.status, 200);
      assert.equal(resumed.headers.get("content-type"), "text/event-stream");
      const reader = resumed.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.match(first, /^id: 2\n/);
      await reader.cancel();
      assert.deepEqual(errors(), []);
    });
  },
});

Deno.test({
  name:
    "subscribe() refuses a Last-Event-ID beyond an ended task's newest event; at it, the stream ends at once",
  ignore: SKIP,
  fn: async () => {
    await withServed(async ({ base, errors, provider }) => {
      const sent = await rpc(base, "SendMessage", message());
      const id = sent.result.task.id;
      const run = provider.runs[0];
      run.ready();
      run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
      const subscribe = (lastEventId: string) =>
        fetch(`${base}/tasks/${id}:subscribe`, {
          headers: { "last-event-id": lastEventId },
          signal: AbortSignal.timeout(5_000),
        });
      let newest = 0;
      for (let i = 0; i < 500; i++) {
        const task = (await rpc(base, "GetTask", { id })).result;
        if (stateOf({ task }) === "TASK_STATE_COMPLETED") break;
        await new Promise((r) => setTimeout(r, 10));
      }
      // The newest id: what a replay from the start ends with.
      const replay = await (await subscribe("0")).text();
      newest = Math.max(...[...replay.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])));
      assert.ok(newest >= 2, replay);
      const past = await subscribe(String(newest + 1));
      assert.equal(past.status, 400);
      assert.match(
        (await past.json()).error.message,
        new RegExp(
          `Last-Event-ID ${newest + 1} is beyond the newest event of task "${id}" \\(${newest}\\)`,
        ),
      );
      const at = await subscribe(String(newest));
      assert.equal(at.status, 200);
      assert.equal(await at.text(), "");
      assert.deepEqual(errors(), []);
    });
  },
});

Deno.test({
  name: "limits.maxStreamsPerPrincipal bounds the streams read from the log, each slot given back",
  ignore: SKIP,
  fn: async () => {
    await withServed(async ({ base, errors, provider }) => {
      const streaming = await openStream(base, "SendStreamingMessage", message());
      const id = (await streaming.next())!.data.task.id;
      const refusedSend = await openStream(base, "SendStreamingMessage", message());
      const refused = (await refusedSend.json()).error;
      assert.match(refused.message, /^Too many streams: 1 are open for unauthenticated callers/);
      assert.equal(refused.data[0].reason, "TOO_MANY_STREAMS_PER_PRINCIPAL");
      assert.equal(provider.runs.length, 1, "the refused stream started no task");
      const rest = await fetch(`${base}/tasks/${id}:subscribe`);
      assert.equal(rest.status, 429);
      assert.match((await rest.json()).error.message, /maxStreamsPerPrincipal is 1\)/);
      // The client goes: a subscriber from the log takes the slot.
      await streaming.cancel();
      let subscribed;
      for (let i = 0; i < 200 && !subscribed; i++) {
        const tried = await fetch(`${base}/tasks/${id}:subscribe`);
        if (tried.status === 429) {
          await tried.body?.cancel();
          await new Promise((resolve) => setTimeout(resolve, 10));
        } else subscribed = tried;
      }
      assert.equal(subscribed?.status, 200, "the slot came back after the client went");
      // The task ends: the stream with it, and the slot.
      provider.runs[0].ready();
      provider.runs[0].finish({ output: "done", stopReason: "completed" });
      const text = await subscribed!.text();
      assert.match(text, /TASK_STATE_COMPLETED/);
      // Resumed at its last event: a stream that ends at once, its slot with it.
      const last = [...text.matchAll(/^id: (\d+)$/gm)].at(-1)![1];
      for (let i = 0; i < 2; i++) {
        const resumed = await fetch(`${base}/tasks/${id}:subscribe`, {
          headers: { "last-event-id": last },
        });
        assert.equal(resumed.status, 200);
        assert.equal(await resumed.text(), "");
      }
      const next = await openStream(base, "SendStreamingMessage", message());
      assert.equal(stateOf((await next.next())!.data), "TASK_STATE_SUBMITTED");
      await next.cancel();
      assert.deepEqual(errors(), []);
    }, { maxStreamsPerPrincipal: 1 });
  },
});
