// Push notification configs over A2A 0.3, over real loopback HTTP: set, got,
// listed and deleted by `@a2a-js/sdk`'s 0.3 compatibility client with
// delivery to a webhook receiver, the refusals naming the 0.3 field, and a
// config given on message/send.
import assert from "node:assert/strict";
import {
  asTask,
  BINDINGS,
  card03,
  client03,
  error,
  message03,
  rest,
  rpc,
  sendRequest,
  until,
  userMessage,
  withGateway,
} from "./gateway_support.ts";

/** A webhook receiver on 127.0.0.1 for the duration of `fn`: what it heard. */
async function withReceiver(
  fn: (url: string, heard: { headers: Headers; body: Record<string, unknown> }[]) => Promise<void>,
): Promise<void> {
  const heard: { headers: Headers; body: Record<string, unknown> }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    heard.push({ headers: req.headers, body: await req.json() });
    return new Response(null, { status: 200 });
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/hook`, heard);
  } finally {
    await server.shutdown();
  }
}

for (const binding of BINDINGS) {
  Deno.test(`gateway a2a03 over ${binding}: push configs set, got, listed, deleted by the SDK's 0.3 client`, async () => {
    await withReceiver(async (hook, heard) => {
      await withGateway({
        a2a03: true,
        push: { allowWebhook: (url) => url.hostname === "127.0.0.1" },
      }, async (served) => {
        assert.equal(
          ((await card03(served)).capabilities as Record<string, unknown>).pushNotifications,
          true,
        );
        const client = await client03(served, binding);
        const task = asTask(
          await client.sendMessage(sendRequest(userMessage("hang"), { returnImmediately: true })),
        );
        const made = await client.createTaskPushNotificationConfig({
          tenant: "",
          taskId: task.id,
          id: "cfg-1",
          url: hook,
          token: "tok-1",
          authentication: { scheme: "Bearer", credentials: "cred-1" },
        });
        assert.equal(made.taskId, task.id);
        assert.equal(made.id, "cfg-1");
        assert.equal(made.url, hook);
        const got = await client.getTaskPushNotificationConfig({
          tenant: "",
          taskId: task.id,
          id: "cfg-1",
        });
        assert.equal(got.authentication?.scheme, "Bearer");
        const listed = await client.listTaskPushNotificationConfig({
          tenant: "",
          taskId: task.id,
          pageSize: 0,
          pageToken: "",
        });
        assert.deepEqual(listed.configs.map((c) => c.id), ["cfg-1"]);
        await until(() => served.reference.live.size > 0);
        await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
        await until(() => heard.some((h) => JSON.stringify(h.body).includes("CANCELED")), 5_000);
        const last = heard.at(-1)!;
        assert.equal(last.headers.get("authorization"), "Bearer cred-1");
        assert.equal(last.headers.get("x-a2a-notification-token"), "tok-1");
        await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "cfg-1" });
        const after = await client.listTaskPushNotificationConfig({
          tenant: "",
          taskId: task.id,
          pageSize: 0,
          pageToken: "",
        });
        assert.equal(after.configs.length, 0);
      });
    });
  });
}

Deno.test("gateway a2a03: push config refusals name the 0.3 field", async (t) => {
  await withGateway({
    a2a03: true,
    push: { allowWebhook: (url) => url.hostname === "127.0.0.1" },
  }, async (served) => {
    const cases: [string, string, unknown, RegExp, number][] = [
      [
        "set without taskId",
        "tasks/pushNotificationConfig/set",
        {
          pushNotificationConfig: { url: "http://127.0.0.1:1/h" },
        },
        /set params\): taskId must be a non-empty string/,
        -32602,
      ],
      [
        "set with a 1.0 shape",
        "tasks/pushNotificationConfig/set",
        {
          taskId: "t",
          url: "http://127.0.0.1:1/h",
        },
        /unknown field "url" \(known: taskId, pushNotificationConfig\)/,
        -32602,
      ],
      [
        "get without id",
        "tasks/pushNotificationConfig/get",
        {},
        /get params\): id must be/,
        -32602,
      ],
      [
        "delete without its config id",
        "tasks/pushNotificationConfig/delete",
        { id: "t" },
        /pushNotificationConfigId must be/,
        -32602,
      ],
      [
        "list of an unknown task",
        "tasks/pushNotificationConfig/list",
        { id: "no-such" },
        /./,
        -32001,
      ],
    ];
    for (const [what, method, params, pattern, code] of cases) {
      await t.step(what, async () => {
        const e = error((await rpc(served, method, params)).body);
        assert.equal(e.code, code, e.message);
        assert.match(e.message, pattern);
      });
    }

    await t.step(
      "a config on message/send (JSON-RPC) and on message:send (HTTP+JSON) is registered",
      async () => {
        const { body } = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "hang" }]),
          configuration: {
            blocking: false,
            pushNotificationConfig: {
              id: "on-send",
              url: "http://127.0.0.1:9/h",
              authentication: { schemes: ["Bearer"], credentials: "c" },
            },
          },
        });
        const id = (body.result as { id: string }).id;
        const listed = await rpc(served, "tasks/pushNotificationConfig/list", { id });
        assert.deepEqual(listed.body.result, [{
          taskId: id,
          pushNotificationConfig: {
            id: "on-send",
            url: "http://127.0.0.1:9/h",
            authentication: { schemes: ["Bearer"], credentials: "c" },
          },
        }]);
        const r = await rest(served, "POST", "/v1/message:send", {
          message: { messageId: "p", role: "ROLE_USER", content: [{ text: "hang" }] },
          configuration: { pushNotification: { id: "rest", url: "http://127.0.0.1:9/r" } },
        });
        const taskId = (r.body.task as { id: string }).id;
        const one = await rest(served, "GET", `/v1/tasks/${taskId}/pushNotificationConfigs/rest`);
        assert.equal(one.body.name, `tasks/${taskId}/pushNotificationConfigs/rest`);
        const refused = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "hang" }]),
          configuration: { pushNotificationConfig: { url: "http://10.0.0.1/h" } },
        });
        assert.equal(error(refused.body).code, -32602);
      },
    );
  });
});
