// Push notifications through the public API: config CRUD on both bindings,
// SendMessage's config, and delivery to real webhook receivers on loopback.
import assert from "node:assert/strict";
import { createMemoryLogger } from "@seam/host";
import { BASE, controlledProvider, message, rpc, type Wire, withSetup } from "./_test_support.ts";
import { createMemoryPushOutbox, type GatewayPushOptions } from "./mod.ts";

interface Received {
  readonly headers: Headers;
  readonly body: Wire;
}

interface Receiver {
  readonly url: string;
  /** Every request that reached the receiver, answered or not. */
  readonly requests: Received[];
  /** The requests it answered 2xx, in order. */
  readonly accepted: Received[];
  /** Wait (bounded) until `n` requests were accepted. */
  until(n: number): Promise<void>;
}

/** A real webhook receiver on 127.0.0.1: `answer` decides each request's status (default 200). */
async function withReceiver(
  fn: (receiver: Receiver) => Promise<void>,
  answer: (nth: number, url: URL) => number = () => 200,
): Promise<void> {
  const requests: Received[] = [];
  const accepted: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const got = { headers: req.headers, body: await req.json() };
    requests.push(got);
    const status = answer(requests.length, new URL(req.url));
    if (status >= 200 && status < 300) accepted.push(got);
    return new Response(null, { status });
  });
  const receiver: Receiver = {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    requests,
    accepted,
    async until(n) {
      for (let i = 0; i < 500 && accepted.length < n; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.ok(accepted.length >= n, `expected ${n} notifications, got ${accepted.length}`);
    },
  };
  try {
    await fn(receiver);
  } finally {
    await server.shutdown();
  }
}

const loopback: GatewayPushOptions["allowWebhook"] = (url) => url.hostname === "127.0.0.1";

function states(received: readonly Received[]): string[] {
  return received.map((r) =>
    r.body.statusUpdate
      ? r.body.statusUpdate.status.state.slice(11)
      : `artifact:${r.body.artifactUpdate.artifact.parts[0].text}`
  );
}

Deno.test("the card declares pushNotifications only when push is configured", async () => {
  for (const [push, expected] of [[undefined, false], [{}, true]] as const) {
    await withSetup([controlledProvider()], { push }, async (s) => {
      const card = await (await s.gateway.fetch(
        new Request(`${BASE}/.well-known/agent-card.json`),
      )).json();
      assert.equal(card.capabilities.pushNotifications, expected);
    });
  }
});

Deno.test("the extended card declares pushNotifications as the public card does", async () => {
  const auth = { tokens: { alice: "a-token" } };
  for (const [push, expected] of [[undefined, false], [{}, true]] as const) {
    await withSetup([controlledProvider()], { push, auth, extendedCard: {} }, async (s) => {
      const bearer = { authorization: "Bearer a-token" };
      const publicCard = await (await s.gateway.fetch(
        new Request(`${BASE}/.well-known/agent-card.json`),
      )).json();
      const extended = await rpc(s.gateway, "GetExtendedAgentCard", {}, bearer);
      assert.equal(publicCard.capabilities.pushNotifications, expected);
      assert.equal(extended.result.capabilities.pushNotifications, expected);
    });
  }
});

Deno.test("push configs: create, get, list, delete on both bindings", async (t) => {
  const auth = { tokens: { alice: "a-token", bob: "b-token" } };
  const alice = { authorization: "Bearer a-token" };
  const bob = { authorization: "Bearer b-token" };
  await withSetup(
    [controlledProvider({ auto: true })],
    { auth, push: { maxConfigsPerTask: 3 } },
    async (s) => {
      const sent = await rpc(s.gateway, "SendMessage", { message: message("hi") }, alice);
      const taskId: string = sent.result.task.id;
      const rest = async (method: string, path: string, body?: unknown, headers = alice) => {
        const response = await s.gateway.fetch(
          new Request(`${BASE}${path}`, {
            method,
            headers: { "content-type": "application/json", ...headers },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        );
        return { status: response.status, body: await response.json() };
      };
      const hook = "https://example.com/hook";

      await t.step("JSON-RPC: create (snake_case task_id), get, list, delete", async () => {
        const created = await rpc(s.gateway, "CreateTaskPushNotificationConfig", {
          task_id: taskId,
          id: "c1",
          url: hook,
          authentication: { scheme: "Bearer", credentials: "secret" },
        }, alice);
        assert.deepEqual(created.result, {
          id: "c1",
          taskId,
          url: hook,
          authentication: { scheme: "Bearer", credentials: "secret" },
        });
        const got = await rpc(s.gateway, "GetTaskPushNotificationConfig", {
          taskId,
          id: "c1",
        }, alice);
        assert.deepEqual(got.result, created.result);
        const listed = await rpc(s.gateway, "ListTaskPushNotificationConfigs", {
          task_id: taskId,
        }, alice);
        assert.deepEqual(listed.result, { configs: [created.result], nextPageToken: "" });
        const deleted = await rpc(s.gateway, "DeleteTaskPushNotificationConfig", {
          taskId,
          id: "c1",
        }, alice);
        assert.deepEqual(deleted.result, {});
        const again = await rpc(s.gateway, "DeleteTaskPushNotificationConfig", {
          taskId,
          id: "c1",
        }, alice);
        assert.deepEqual(again.result, {}, "delete is idempotent");
        const gone = await rpc(s.gateway, "GetTaskPushNotificationConfig", {
          taskId,
          id: "c1",
        }, alice);
        assert.equal(gone.error.code, -32001);
        assert.match(gone.error.message, /config "c1"/);
      });

      await t.step("HTTP+JSON: the pushNotificationConfigs routes", async () => {
        const created = await rpc(s.gateway, "SendMessage", { message: message("x") }, alice);
        const id: string = created.result.task.id;
        const base = `/tasks/${id}/pushNotificationConfigs`;
        const made = await rest("POST", base, { url: hook, token: "tok" });
        assert.equal(made.status, 200);
        assert.equal(made.body.taskId, id);
        assert.equal(made.body.token, "tok");
        assert.match(made.body.id, /^[0-9a-f-]{36}$/, "an id is assigned when none is given");
        const tenant = await rest("GET", `/ctl${base}/${made.body.id}`);
        assert.deepEqual(tenant.body, made.body);
        const list = await rest("GET", base);
        assert.deepEqual(list.body.configs, [made.body]);
        assert.equal((await rest("DELETE", `${base}/${made.body.id}`)).status, 200);
        assert.equal((await rest("DELETE", `${base}/${made.body.id}`)).status, 200);
        assert.equal((await rest("GET", `${base}/${made.body.id}`)).status, 404);
        assert.equal((await rest("DELETE", base)).status, 405);
        const mismatch = await rest("POST", base, { taskId: "other", url: hook });
        assert.equal(mismatch.status, 400);
        assert.match(mismatch.body.error.message, /does not match the task in the path/);
      });

      await t.step("pages of configs, and a page size never ignored", async () => {
        for (const id of ["p1", "p2", "p3"]) {
          await rpc(
            s.gateway,
            "CreateTaskPushNotificationConfig",
            { taskId, id, url: hook },
            alice,
          );
        }
        const first = await rpc(s.gateway, "ListTaskPushNotificationConfigs", {
          taskId,
          page_size: 2,
        }, alice);
        assert.deepEqual(first.result.configs.map((c: Wire) => c.id), ["p1", "p2"]);
        const second = await rest(
          "GET",
          `/tasks/${taskId}/pushNotificationConfigs?pageSize=2&pageToken=${
            encodeURIComponent(first.result.nextPageToken)
          }`,
        );
        assert.deepEqual(second.body.configs.map((c: Wire) => c.id), ["p3"]);
        assert.equal(second.body.nextPageToken, "");
        const bad = await rpc(s.gateway, "ListTaskPushNotificationConfigs", {
          taskId,
          pageToken: "nope",
        }, alice);
        assert.equal(bad.error.code, -32602);
      });

      await t.step("bounded per task: one more is 429, replacing one is not", async () => {
        const more = await rest("POST", `/tasks/${taskId}/pushNotificationConfigs`, {
          id: "p4",
          url: hook,
        });
        assert.equal(more.status, 429);
        assert.equal(more.body.error.details[0].reason, "TOO_MANY_PUSH_CONFIGS");
        const replaced = await rpc(s.gateway, "CreateTaskPushNotificationConfig", {
          taskId,
          id: "p3",
          url: "https://example.org/other",
        }, alice);
        assert.equal(replaced.result.url, "https://example.org/other");
      });

      await t.step("another principal's task, or none, is task-not-found", async () => {
        for (
          const [method, params] of [
            ["CreateTaskPushNotificationConfig", { taskId, url: hook }],
            ["GetTaskPushNotificationConfig", { taskId, id: "p1" }],
            ["ListTaskPushNotificationConfigs", { taskId }],
            ["DeleteTaskPushNotificationConfig", { taskId, id: "p1" }],
          ] as const
        ) {
          const answer = await rpc(s.gateway, method, params, bob);
          assert.equal(answer.error.code, -32001, `${method} by bob`);
          const none = await rpc(s.gateway, method, { ...params, taskId: "no-such" }, alice);
          assert.equal(none.error.code, -32001, `${method} on no task`);
        }
        const stillThere = await rpc(s.gateway, "GetTaskPushNotificationConfig", {
          taskId,
          id: "p1",
        }, alice);
        assert.equal(stillThere.result.id, "p1", "bob's delete did nothing");
      });

      await t.step("bad configs are refused by name", async () => {
        const cases: [Record<string, unknown>, RegExp][] = [
          [{ taskId }, /url is required/],
          [{ taskId, url: hook, colour: "red" }, /colour is not a field here/],
          [{ taskId, url: "file:///etc/passwd" }, /http or https/],
          [{ taskId, url: "http://127.0.0.1:9/" }, /loopback/],
          [{ taskId, url: "http://localhost:9/" }, /localhost/],
          [{ taskId, url: hook, authentication: { credentials: "x" } }, /scheme is required/],
          [{ taskId, url: hook, authentication: { scheme: "Bear er" } }, /authentication scheme/],
          [{ taskId, url: hook, token: "a\r\nX-Evil: 1" }, /printable ASCII/],
          [{ url: hook }, /taskId is required/],
        ];
        for (const [params, pattern] of cases) {
          const answer = await rpc(s.gateway, "CreateTaskPushNotificationConfig", params, alice);
          assert.equal(answer.error?.code, -32602, JSON.stringify(params));
          assert.match(answer.error.message, pattern);
        }
      });
      assert.deepEqual(s.errors(), []);
    },
  );
});

Deno.test("every state change reaches the webhook, authenticated, with an id", async () => {
  await withReceiver(async (receiver) => {
    const ctl = controlledProvider();
    await withSetup([ctl], { push: { allowWebhook: loopback } }, async (s) => {
      const sent = await rpc(s.gateway, "SendMessage", {
        message: message("hello"),
        configuration: {
          returnImmediately: true,
          taskPushNotificationConfig: {
            url: receiver.url,
            token: "tok-1",
            authentication: { scheme: "Bearer", credentials: "hook-secret" },
          },
        },
      });
      const taskId = sent.result.task.id;
      const run = ctl.runs[0];
      run.ready();
      await receiver.until(1);
      run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
      await receiver.until(3);
      assert.deepEqual(states(receiver.accepted), ["WORKING", "artifact:done", "COMPLETED"]);
      const ids = new Set<string>();
      for (const r of receiver.accepted) {
        assert.equal(r.headers.get("authorization"), "Bearer hook-secret");
        assert.equal(r.headers.get("x-a2a-notification-token"), "tok-1");
        assert.equal(r.headers.get("content-type"), "application/json");
        ids.add(r.headers.get("x-a2a-notification-id")!);
        const update = r.body.statusUpdate ?? r.body.artifactUpdate;
        assert.equal(update.taskId, taskId);
        assert.equal(Object.keys(r.body).length, 1, "a StreamResponse holds one payload");
      }
      assert.equal(ids.size, 3, "each notification has its own id");
      assert.deepEqual(s.errors(), []);
    });
  });
});

Deno.test("a webhook that fails, then recovers, gets every notification, in order", async () => {
  // The first three requests fail (503, 500, then 429), every later one succeeds.
  await withReceiver(async (receiver) => {
    await withSetup([controlledProvider({ auto: true })], {
      push: {
        allowWebhook: loopback,
        outbox: createMemoryPushOutbox({ baseDelayMs: 5, maxDelayMs: 20 }),
      },
    }, async (s) => {
      await rpc(s.gateway, "SendMessage", {
        message: message("again"),
        configuration: { taskPushNotificationConfig: { url: receiver.url } },
      });
      await receiver.until(3);
      assert.deepEqual(states(receiver.accepted), ["WORKING", "artifact:again", "COMPLETED"]);
      assert.equal(receiver.requests.length, 6, "three failed attempts, then three deliveries");
      const first = receiver.requests[0].headers.get("x-a2a-notification-id");
      assert.equal(
        receiver.accepted[0].headers.get("x-a2a-notification-id"),
        first,
        "a retry carries the id of the attempt it repeats",
      );
    });
  }, (nth) => [503, 500, 429][nth - 1] ?? 200);
});

Deno.test("a webhook that refuses (4xx) is not retried; one that never recovers is given up", async () => {
  const { logger, records } = createMemoryLogger();
  await withReceiver(async (receiver) => {
    await withSetup([controlledProvider({ auto: true })], {
      push: {
        allowWebhook: loopback,
        outbox: createMemoryPushOutbox({ baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 2, logger }),
      },
    }, async (s) => {
      await rpc(s.gateway, "SendMessage", {
        message: message("x"),
        configuration: { taskPushNotificationConfig: { url: `${receiver.url}?gone` } },
      });
      await rpc(s.gateway, "SendMessage", {
        message: message("y"),
        configuration: { taskPushNotificationConfig: { url: `${receiver.url}?down` } },
      });
      // gone: 3 notifications, one attempt each; down: 3 notifications, two attempts each.
      for (let i = 0; i < 500 && receiver.requests.length < 9; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await s.gateway.close();
      assert.equal(receiver.requests.length, 9);
      assert.equal(receiver.accepted.length, 0);
      const dropped = records.map((r) => r.message).filter((w) => /was dropped/.test(w));
      assert.equal(dropped.filter((w) => /refused it \(HTTP 410\)/.test(w)).length, 3);
      assert.equal(
        dropped.filter((w) => /2 attempts failed, the last: HTTP 503/.test(w)).length,
        3,
      );
    });
  }, (_nth, url) => url.search === "?gone" ? 410 : 503);
});

Deno.test("a webhook the policy refuses fails SendMessage before anything starts", async () => {
  const ctl = controlledProvider({ auto: true });
  let asked: string | undefined;
  await withSetup([ctl], {
    push: { allowWebhook: (url) => (asked = url.href, false) },
  }, async (s) => {
    for (const url of ["http://127.0.0.1:9/hook", "http://169.254.169.254/", "gopher://x.org/"]) {
      const answer = await rpc(s.gateway, "SendMessage", {
        message: message("x"),
        configuration: { taskPushNotificationConfig: { url } },
      });
      assert.equal(answer.error?.code, -32602, url);
      assert.match(answer.error.message, /configuration\.taskPushNotificationConfig\.url/);
    }
    assert.equal(asked, "http://169.254.169.254/", "allowWebhook is asked about non-public hosts");
    assert.equal(ctl.runs.length, 0, "no run started");
    const listed = await rpc(s.gateway, "ListTasks", {});
    assert.equal(listed.result.tasks.length, 0);
  });
});

Deno.test("a config created on a live task hears what follows; a deleted one hears nothing", async () => {
  await withReceiver(async (receiver) => {
    const ctl = controlledProvider();
    await withSetup([ctl], { push: { allowWebhook: loopback } }, async (s) => {
      const one = await rpc(s.gateway, "SendMessage", {
        message: message("one"),
        configuration: { returnImmediately: true },
      });
      const two = await rpc(s.gateway, "SendMessage", {
        message: message("two"),
        configuration: { returnImmediately: true },
      });
      for (const task of [one, two]) {
        await rpc(s.gateway, "CreateTaskPushNotificationConfig", {
          taskId: task.result.task.id,
          id: "hook",
          url: `${receiver.url}?${task.result.task.id}`,
        });
      }
      await rpc(s.gateway, "DeleteTaskPushNotificationConfig", {
        taskId: two.result.task.id,
        id: "hook",
      });
      for (const run of ctl.runs) {
        run.ready();
        run.finish({ output: [{ type: "text", text: "ok" }], stopReason: "completed" });
      }
      await receiver.until(3);
      await s.gateway.close();
      assert.deepEqual(states(receiver.accepted), ["WORKING", "artifact:ok", "COMPLETED"]);
      for (const r of receiver.requests) {
        const update = r.body.statusUpdate ?? r.body.artifactUpdate;
        assert.equal(update.taskId, one.result.task.id);
      }
    });
  });
});

Deno.test("close() stops retrying a dead webhook and leaves nothing running", async () => {
  const { logger, records } = createMemoryLogger();
  await withReceiver(async (receiver) => {
    await withSetup([controlledProvider({ auto: true })], {
      push: {
        allowWebhook: loopback,
        // Long waits between attempts: only close() can end them.
        outbox: createMemoryPushOutbox({
          baseDelayMs: 60_000,
          maxDelayMs: 60_000,
          maxAttempts: 100,
          closeGraceMs: 50,
          logger,
        }),
      },
    }, async (s) => {
      await rpc(s.gateway, "SendMessage", {
        message: message("x"),
        configuration: { taskPushNotificationConfig: { url: receiver.url } },
      });
      for (let i = 0; i < 500 && receiver.requests.length < 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await s.gateway.close();
      // The first failed and waits a minute for its retry: close() ends the wait; the two
      // queued behind it still have their one attempt within the grace, none is retried.
      const ids = receiver.requests.map((r) => r.headers.get("x-a2a-notification-id"));
      assert.equal(ids.length, 3);
      assert.equal(new Set(ids).size, 3, "no notification was attempted twice");
      assert.ok(records.some((r) => /outbox is closing/.test(r.message)));
    });
  }, () => 503);
});

Deno.test("a notification over maxPayloadBytes: the state still goes out, the bulk does not", async () => {
  await withReceiver(async (receiver) => {
    const ctl = controlledProvider();
    await withSetup([ctl], {
      push: { allowWebhook: loopback, maxPayloadBytes: 2_048 },
    }, async (s) => {
      for (const text of ["big output", "big failure"]) {
        await rpc(s.gateway, "SendMessage", {
          message: message(text),
          configuration: {
            returnImmediately: true,
            taskPushNotificationConfig: { url: `${receiver.url}?${text.replace(" ", "-")}` },
          },
        });
      }
      const [output, failure] = ctl.runs;
      output.ready();
      output.finish({
        output: [{ type: "text", text: "x".repeat(5_000) }],
        stopReason: "completed",
      });
      failure.ready();
      failure.finish({
        output: [],
        stopReason: "error",
        error: { code: "BROKEN", message: "y".repeat(5_000) },
      });
      await receiver.until(4);
      const bodies = receiver.accepted.map((r) => r.body);
      // No artifact update (5,000 characters): the task holds it.
      assert.equal(bodies.filter((b) => b.artifactUpdate).length, 0);
      const ended = bodies.filter((b) => /COMPLETED|FAILED/.test(b.statusUpdate.status.state));
      assert.equal(ended.length, 2);
      const failed = ended.find((b) => b.statusUpdate.status.state === "TASK_STATE_FAILED")!;
      assert.equal(failed.statusUpdate.status.message, undefined, "sent without its message");
      assert.ok(s.warnings().some((w) => /over 2048 bytes/.test(w)));
    });
  });
});

Deno.test("a config replaced in place (Create with its id) is not sent what waited for its old target, a retry included", async () => {
  // The default outbox reads the gateway's config store before each attempt.
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  const requests: { token: string | null; body: Wire }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const got = { token: req.headers.get("x-a2a-notification-token"), body: await req.json() };
    requests.push(got);
    if (got.token !== "old" || requests.length > 1) return new Response("ok");
    await released; // the first attempt is on its way while the config is replaced
    return new Response(null, { status: 503 });
  });
  const url = `http://127.0.0.1:${server.addr.port}/hook`;
  const heard = (token: string) =>
    states(requests.filter((r) => r.token === token) as unknown as Received[]);
  try {
    const ctl = controlledProvider();
    await withSetup([ctl], { push: { allowWebhook: loopback } }, async (s) => {
      const sent = await rpc(s.gateway, "SendMessage", {
        message: message("hello"),
        configuration: {
          returnImmediately: true,
          taskPushNotificationConfig: { id: "hook", url, token: "old" },
        },
      });
      const taskId = sent.result.task.id;
      const run = ctl.runs[0];
      run.ready();
      for (let i = 0; i < 500 && requests.length < 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const replaced = await rpc(s.gateway, "CreateTaskPushNotificationConfig", {
        taskId,
        id: "hook",
        url,
        token: "new",
      });
      assert.equal(replaced.result.token, "new");
      release(); // the first attempt fails: its retry waits (250 to 500 ms)
      run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
      // One queue (one URL): what follows the retry arrives once the retry was settled.
      for (let i = 0; i < 500 && heard("new").length < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.deepEqual(heard("old"), ["WORKING"], "the old token was sent once, not retried");
      assert.deepEqual(heard("new"), ["artifact:done", "COMPLETED"]);
      assert.deepEqual(s.errors(), []);
    });
  } finally {
    release();
    await server.shutdown();
  }
});
