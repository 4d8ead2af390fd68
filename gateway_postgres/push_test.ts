// Push notifications from the PostgreSQL outbox, end to end: gateway
// processes on loopback, one PostgreSQL, and a real webhook receiver. Each
// state change reaches the webhook at least once; an instance SIGKILLed with
// notifications undelivered leaves them to another; the database going away
// loses none.
import assert from "node:assert/strict";
import postgres from "postgres";
import { rpc as rpcIn } from "../gateway/_test_support.ts";
import { createPostgresPushConfigStore, createPostgresPushOutbox } from "./mod.ts";
import {
  databaseUrl,
  dropSchema,
  eventually as poll,
  freshSchema,
  type InstanceProcess,
  rpc,
  SKIP,
  startInstance,
  type Wire,
  withGateways,
} from "./_test_support.ts";

/** A webhook on 127.0.0.1 that can go down and come back on its port; it keeps what it heard. */
class Webhook {
  /** Every request, by notification id (a retry of one it has is a duplicate). */
  readonly heard = new Map<string, Wire>();
  requests = 0;
  #server: Deno.HttpServer<Deno.NetAddr> | undefined;
  #port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }

  up(): this {
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: this.#port, onListen() {} }, async (
      request,
    ) => {
      this.requests++;
      this.heard.set(request.headers.get("x-a2a-notification-id")!, await request.json());
      return new Response("ok");
    });
    this.#port = this.#server.addr.port;
    return this;
  }

  async down(): Promise<void> {
    await this.#server?.shutdown();
    this.#server = undefined;
  }

  /** What it heard of task `id`, in order: a state, or "artifact:<text>". */
  of(id: string): string[] {
    const out: string[] = [];
    for (const n of this.heard.values()) {
      const s = n.statusUpdate;
      const a = n.artifactUpdate;
      if (s?.taskId === id) out.push(s.status.state.replace("TASK_STATE_", ""));
      if (a?.taskId === id) out.push(`artifact:${a.artifact.parts[0].text}`);
    }
    return out;
  }

  statusOf(id: string, state: string): Wire | undefined {
    return [...this.heard.values()].find((n) =>
      n.statusUpdate?.taskId === id && n.statusUpdate.status.state === `TASK_STATE_${state}`
    )?.statusUpdate;
  }
}

/** Within 20 s: a notification waits for a redelivery, or for an instance's lease to lapse. */
const eventually = <T>(what: string, fn: () => Promise<T | undefined>): Promise<T> =>
  poll(what, fn, 20_000);

function send(text: string, webhook: string) {
  return {
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
    configuration: {
      returnImmediately: true,
      taskPushNotificationConfig: { url: webhook, token: "hook-token" },
    },
  };
}

async function pendingIn(schema: string): Promise<number> {
  const sql = postgres(databaseUrl()!, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql.unsafe(`SELECT count(*)::integer AS n FROM "${schema}".push_outbox`);
    return rows[0].n;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const PUSH = { PUSH: "1", LEASE_TTL_MS: "1000", PUSH_ATTEMPTS: "10000" };

Deno.test({
  name: "every state change of a task on PostgreSQL reaches its webhook at least once",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const webhook = new Webhook().up();
    let instance: InstanceProcess | undefined;
    try {
      instance = await startInstance(schema, PUSH);
      const sent = await rpc(instance.url, "SendMessage", send("stream 3", webhook.url));
      const id: string = sent.result.task.id;
      await eventually("COMPLETED heard", () => Promise.resolve(webhook.statusOf(id, "COMPLETED")));
      assert.deepEqual(webhook.of(id), [
        "WORKING",
        "artifact:chunk 1 chunk 2 chunk 3 ",
        "COMPLETED",
      ]);
      await eventually(
        "the outbox emptied",
        async () => (await pendingIn(schema)) === 0 ? true : undefined,
      );
    } finally {
      await instance?.kill();
      await webhook.down();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name:
    "an instance SIGKILLed with notifications undelivered: another instance delivers them, and its lost run's FAILED",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const webhook = new Webhook().up();
    const url = webhook.url;
    await webhook.down(); // the receiver is down while the tasks run
    const instances: InstanceProcess[] = [];
    try {
      const a = await startInstance(schema, PUSH);
      instances.push(a);
      const done: string = (await rpc(a.url, "SendMessage", send("stream 2", url))).result.task.id;
      const lost: string = (await rpc(a.url, "SendMessage", send("stream forever", url))).result
        .task.id;
      await eventually("the first task COMPLETED", async () => {
        const got = await rpc(a.url, "GetTask", { id: done });
        return got.result.status.state === "TASK_STATE_COMPLETED" ? true : undefined;
      });
      // Both tasks' changes so far (WORKING, the artifact, COMPLETED; WORKING) wait.
      await eventually(
        "notifications waiting in the outbox",
        async () => (await pendingIn(schema)) >= 4 ? true : undefined,
      );
      assert.equal(webhook.requests, 0);
      await a.kill();

      const b = await startInstance(schema, PUSH);
      instances.push(b);
      webhook.up();
      assert.equal(webhook.url, url);
      await eventually(
        "the lost run's FAILED heard",
        () => Promise.resolve(webhook.statusOf(lost, "FAILED")),
      );
      await eventually(
        "the first task's COMPLETED heard",
        () => Promise.resolve(webhook.statusOf(done, "COMPLETED")),
      );
      assert.deepEqual(webhook.of(done), ["WORKING", "artifact:chunk 1 chunk 2 ", "COMPLETED"]);
      assert.deepEqual(webhook.of(lost), ["WORKING", "FAILED"]);
      assert.match(
        webhook.statusOf(lost, "FAILED")!.status.message.parts[0].text,
        /lost with its gateway instance/,
      );
    } finally {
      for (const i of instances) await i.kill();
      await webhook.down();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name: "the database going away loses no notification: the end is pushed once it is back",
  ignore: SKIP,
  fn: async () => {
    const webhook = new Webhook().up();
    try {
      await withGateways(1, {
        relayed: [0],
        leaseTtlMs: 1_000,
        gateway: ({ store, log }) => ({
          push: {
            allowWebhook: (u) => u.hostname === "127.0.0.1",
            configStore: createPostgresPushConfigStore(store),
            outbox: createPostgresPushOutbox(store, {
              pollIntervalMs: 50,
              baseDelayMs: 20,
              maxDelayMs: 100,
              logger: log.logger,
            }),
          },
        }),
      }, async ([instance]) => {
        const { gateway, provider, relay } = instance;
        const call = (method: string, params: unknown) => rpcIn(gateway, method, params);
        const sent = await call("SendMessage", send("go", webhook.url));
        const id: string = sent.result.task.id;
        provider.runs[0].ready();
        await eventually("WORKING heard", () => Promise.resolve(webhook.statusOf(id, "WORKING")));

        await relay!.cut();
        provider.runs[0].finish({
          output: [{ type: "text", text: "done" }],
          stopReason: "completed",
        });
        const refused = await call("ListTaskPushNotificationConfigs", { taskId: id });
        assert.match(JSON.stringify(refused), /STORE_UNAVAILABLE|Service unavailable/);
        await new Promise((r) => setTimeout(r, 300)); // the outbox polls meanwhile, in vain
        assert.equal(webhook.statusOf(id, "COMPLETED"), undefined, "nothing pushed while away");

        relay!.open();
        await eventually(
          "COMPLETED heard once the database is back",
          () => Promise.resolve(webhook.statusOf(id, "COMPLETED")),
        );
        assert.deepEqual(webhook.of(id), ["WORKING", "artifact:done", "COMPLETED"]);
        assert.ok(
          instance.log.records.some((r) => /push outbox cannot reach PostgreSQL/.test(r.message)),
          "the outage was logged",
        );
        // A reconnect the client scheduled during the outage (its backoff is at
        // most a second) fires before the store closes: the client does not
        // cancel it on end().
        await new Promise((r) => setTimeout(r, 1_200));
      });
    } finally {
      await webhook.down();
    }
  },
});
