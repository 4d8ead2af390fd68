// The delivery side on its own, against real receivers on loopback.
import assert from "node:assert/strict";
import { createMemoryLogger } from "@seam/host";
import {
  createMemoryPushConfigStore,
  createMemoryPushOutbox,
  type PushConfigStore,
  type PushNotification,
  type PushOutbox,
  sendPushNotification,
} from "./mod.ts";
import { testPushOutbox } from "./testing.ts";

/** A receiver on 127.0.0.1 whose answers the test decides; every request body is recorded. */
async function withServer(
  handle: (request: Request, body: string) => Response | Promise<Response>,
  fn: (url: string, bodies: string[]) => Promise<void>,
): Promise<void> {
  const bodies: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.text();
    bodies.push(body);
    return handle(req, body);
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/hook`, bodies);
  } finally {
    await server.shutdown();
  }
}

function note(url: string, body: string): PushNotification {
  return {
    id: crypto.randomUUID(),
    taskId: "t1",
    configId: "c1",
    url,
    body,
    createdAt: Date.now(),
  };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.ok(condition(), what);
}

Deno.test("sendPushNotification() says what one attempt came to", async (t) => {
  await withServer((req) => {
    const q = new URL(req.url).search;
    if (q === "?busy") return new Response(null, { status: 503, headers: { "retry-after": "7" } });
    if (q === "?moved") {
      return new Response(null, { status: 302, headers: { location: "/hook?elsewhere" } });
    }
    if (q === "?gone") return new Response(null, { status: 410 });
    return new Response("ok");
  }, async (url, bodies) => {
    await t.step("2xx is delivered", async () => {
      assert.deepEqual(await sendPushNotification(note(url, "{}")), {
        kind: "delivered",
        status: 200,
      });
    });
    await t.step("503 with Retry-After is a retry after that long", async () => {
      assert.deepEqual(await sendPushNotification(note(`${url}?busy`, "{}")), {
        kind: "retry",
        reason: "HTTP 503",
        retryAfterMs: 7_000,
      });
    });
    await t.step("a redirect is never followed", async () => {
      const before = bodies.length;
      const outcome = await sendPushNotification(note(`${url}?moved`, "{}"));
      assert.equal(outcome.kind, "drop");
      assert.match((outcome as { reason: string }).reason, /302 \(redirects are not followed\)/);
      assert.equal(bodies.length, before + 1, "the Location was not requested");
    });
    await t.step("another 4xx is dropped", async () => {
      assert.deepEqual(await sendPushNotification(note(`${url}?gone`, "{}")), {
        kind: "drop",
        reason: "HTTP 410",
      });
    });
    await t.step("nobody listening is a retry", async () => {
      const outcome = await sendPushNotification(note("http://127.0.0.1:9/", "{}"));
      assert.equal(outcome.kind, "retry");
    });
  });
});

Deno.test("sendPushNotification() gives up on a receiver that does not answer in time", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  await withServer(async () => {
    await held;
    return new Response("late");
  }, async (url) => {
    const outcome = await sendPushNotification(note(url, "{}"), { timeoutMs: 50 });
    release();
    assert.deepEqual(outcome, { kind: "retry", reason: "no answer within 50 ms" });
  });
});

Deno.test("createMemoryPushOutbox() bounds what waits per webhook, oldest dropped first", async () => {
  const { logger, records } = createMemoryLogger();
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  await withServer(async (_req, body) => {
    if (body === "1") await held;
    return new Response("ok");
  }, async (url, bodies) => {
    const outbox = createMemoryPushOutbox({ maxQueuedPerWebhook: 2, logger });
    outbox.enqueue(note(url, "1"));
    await until(() => bodies.length === 1, "the first is in flight");
    for (const body of ["2", "3", "4", "5"]) outbox.enqueue(note(url, body));
    release();
    await until(() => bodies.length === 3, "the kept ones arrive");
    assert.deepEqual(bodies, ["1", "4", "5"]);
    const dropped = records.filter((r) => /maxQueuedPerWebhook/.test(r.message));
    assert.equal(dropped.length, 2);
    await outbox.close();
  });
});

Deno.test("createMemoryPushOutbox() bounds the webhooks with notifications waiting", async () => {
  const { logger, records } = createMemoryLogger();
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  await withServer(async () => {
    await held;
    return new Response("ok");
  }, async (url, bodies) => {
    const outbox = createMemoryPushOutbox({ maxWebhooks: 1, logger });
    outbox.enqueue(note(`${url}?a`, "a"));
    outbox.enqueue(note(`${url}?b`, "b"));
    await until(() => bodies.length === 1, "the first webhook's arrives");
    release();
    await outbox.close();
    assert.deepEqual(bodies, ["a"]);
    assert.ok(records.some((r) => /maxWebhooks/.test(r.message)));
  });
});

Deno.test("createMemoryPushOutbox() refuses nonsensical bounds by name", () => {
  assert.throws(() => createMemoryPushOutbox({ maxAttempts: 0 }), /maxAttempts/);
  assert.throws(() => createMemoryPushOutbox({ timeoutMs: 1.5 }), /timeoutMs/);
  assert.throws(() => createMemoryPushOutbox({ maxQueuedPerWebhook: -1 }), /maxQueuedPerWebhook/);
});

Deno.test("createMemoryPushOutbox() passes the push outbox conformance suite", (t) =>
  testPushOutbox(t, { open: (settings) => createMemoryPushOutbox(settings) }));

Deno.test("createMemoryPushOutbox({ configStore }) passes the push outbox conformance suite, its store's cases included", async (t) => {
  const stores = new Map<PushOutbox, PushConfigStore>();
  await testPushOutbox(t, {
    open: (settings) => {
      const configStore = createMemoryPushConfigStore();
      const outbox = createMemoryPushOutbox({ ...settings, configStore });
      stores.set(outbox, configStore);
      return outbox;
    },
    configStore: (outbox) => stores.get(outbox)!,
    close: (outbox) => void stores.delete(outbox),
  });
});

Deno.test("createMemoryPushOutbox({ configStore }) drops a notification whose config is kept with another url, token or authentication, and sends one whose config is not there", async () => {
  await withServer(() => new Response("ok"), async (url, bodies) => {
    const configStore = createMemoryPushConfigStore();
    const outbox = createMemoryPushOutbox({ configStore });
    const auth = { scheme: "Bearer", credentials: "new" };
    configStore.put({ id: "c1", taskId: "t1", url, token: "tok", authentication: auth });
    const to = (body: string, extra: Partial<PushNotification>) => ({
      ...note(url, body),
      token: "tok",
      authentication: auth,
      ...extra,
    });
    outbox.enqueue(
      to("old credentials", { authentication: { scheme: "Bearer", credentials: "old" } }),
    );
    outbox.enqueue(to("no authentication", { authentication: undefined }));
    outbox.enqueue(to("old token", { token: "old" }));
    outbox.enqueue(to("no token", { token: undefined }));
    // Not in the store (evicted, say): sent as enqueued.
    outbox.enqueue(to("another config", { configId: "c2" }));
    outbox.enqueue(to("another task", { taskId: "t2" }));
    // Equal as JSON: a key whose value is undefined is no key.
    outbox.enqueue(to("same", { authentication: { ...auth, extra: undefined } as typeof auth }));
    // One queue (one URL), in order: once "same" arrived, the others before it were settled.
    await until(() => bodies.length === 3, "the notification for the config as kept arrived");
    // Replaced in place (the same id), at another URL.
    configStore.put({
      id: "c1",
      taskId: "t1",
      url: `${url}?moved`,
      token: "tok",
      authentication: auth,
    });
    outbox.enqueue(to("old url", {}));
    outbox.enqueue(to("moved", { url: `${url}?moved` }));
    await until(() => bodies.length === 4, "the notification for the replaced config arrived");
    await outbox.close();
    assert.deepEqual(bodies, ["another config", "another task", "same", "moved"]);
  });
});

Deno.test("createMemoryPushOutbox({ configStore }) still delivers a retry whose config the store evicted", async () => {
  const configStore = createMemoryPushConfigStore({ maxConfigs: 1 });
  let attempts = 0;
  await withServer((req) => {
    if (++attempts > 1) return new Response("ok");
    // While the first attempt is on its way, another task's config pushes
    // the ended task's config out of the full store.
    assert.equal(configStore.put({ id: "c2", taskId: "t2", url: "https://example.com/" }), true);
    assert.deepEqual(configStore.list("t1"), [], "the ended task's config was evicted");
    assert.equal(req.headers.get("x-a2a-notification-token"), "tok");
    return new Response(null, { status: 503 });
  }, async (url, bodies) => {
    const outbox = createMemoryPushOutbox({ configStore, baseDelayMs: 5, maxDelayMs: 5 });
    configStore.put({ id: "c1", taskId: "t1", url, token: "tok" });
    // As the gateway does: the terminal notification enqueued, then the task released.
    outbox.enqueue({ ...note(url, "completed"), token: "tok" });
    configStore.release("t1");
    await until(() => bodies.length === 2, "the retry was sent");
    await outbox.close();
    assert.deepEqual(bodies, ["completed", "completed"]);
  });
});

Deno.test("createMemoryPushOutbox({ configStore }): a store that cannot be read longer than the retry schedule does not lose the notification", async () => {
  const { logger, records } = createMemoryLogger();
  await withServer(() => new Response("ok"), async (url, bodies) => {
    const inner = createMemoryPushConfigStore();
    inner.put({ id: "c1", taskId: "t1", url, token: "tok" });
    let reads = 0;
    const configStore: PushConfigStore = {
      ...inner,
      list: () => {
        reads++;
        return Promise.reject(new Error("store out of reach"));
      },
    };
    const outbox = createMemoryPushOutbox({ configStore, maxAttempts: 2, logger });
    const n = { ...note(url, "sent as enqueued"), token: "tok" };
    outbox.enqueue(n);
    await until(() => bodies.length === 1, "the notification was sent");
    await outbox.close();
    assert.equal(reads, 1);
    assert.deepEqual(bodies, ["sent as enqueued"]);
    const warned = records.find((r) => r.message.includes(n.id));
    assert.equal(warned?.level, "warn");
    assert.match(
      warned!.message,
      /could not be read \(store out of reach\), so it is sent to the target it was enqueued with/,
    );
    assert.ok(!records.some((r) => /dropped/.test(r.message)), "nothing was dropped");
  });
});

Deno.test("createMemoryPushOutbox({ configStore }): a store that never answers holds neither a delivery nor close()", async (t) => {
  const { logger, records } = createMemoryLogger();
  const inner = createMemoryPushConfigStore();
  let reads = 0;
  const silent: PushConfigStore = {
    ...inner,
    list: () => {
      reads++;
      return new Promise(() => {});
    },
  };
  await t.step("a read without an answer within timeoutMs: sent as enqueued", async () => {
    await withServer(() => new Response("ok"), async (url, bodies) => {
      const outbox = createMemoryPushOutbox({ configStore: silent, timeoutMs: 50, logger });
      outbox.enqueue(note(url, "after the read timed out"));
      await until(() => bodies.length === 1, "the notification was sent");
      await outbox.close();
      assert.ok(records.some((r) => /no answer within 50 ms/.test(r.message)));
    });
  });
  await t.step("close() ends the wait for the read after its grace", async () => {
    await withServer(() => new Response("ok"), async (url, bodies) => {
      const outbox = createMemoryPushOutbox({ configStore: silent, closeGraceMs: 20, logger });
      reads = 0;
      outbox.enqueue(note(url, "never read"));
      await until(() => reads === 1, "the read began");
      const started = Date.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const closed = await Promise.race([
        outbox.close().then(() => true),
        new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), 2_000)),
      ]);
      clearTimeout(timer);
      assert.equal(closed, true, "close() returned within 2 s");
      assert.ok(Date.now() - started < 1_000, `close() took ${Date.now() - started} ms`);
      assert.deepEqual(bodies, [], "nothing is sent once the outbox closed");
    });
  });
});

Deno.test("createMemoryPushOutbox() refuses a configStore without list", () => {
  assert.throws(
    () => createMemoryPushOutbox({ configStore: {} as PushConfigStore }),
    /configStore must be a PushConfigStore/,
  );
});

Deno.test("createMemoryPushOutbox() refuses an unknown option, naming its own and the delivery ones", () => {
  assert.throws(
    () => createMemoryPushOutbox({ maxAttempt: 3 } as never),
    (error: Error) =>
      error instanceof TypeError &&
      /^Cannot create push outbox: unknown option maxAttempt \(known: maxWebhooks, configStore, maxAttempts, .*maxDelayMs\)$/
        .test(error.message),
  );
});
