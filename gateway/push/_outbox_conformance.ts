/**
 * The push outbox conformance suite (re-exported by `@seam/gateway/testing`):
 * what every {@linkcode PushOutbox} does, against real receivers on
 * 127.0.0.1; for an outbox its task storage writes (`enqueuedBy`), that an
 * append's pushes reach every config of the task or, when the append is
 * refused, none, and that a config deleted from its store hears nothing
 * more; and for any outbox beside a config store (a transactional one, or a
 * memory outbox given the store), that a config replaced in that store is
 * not sent what was written for its old target.
 */
import { createMemoryLogger, type Logger, type LogRecord } from "@seam/host";
import type { PushNotification, PushOutbox } from "../push_outbox.ts";
import type { PushConfigStore } from "../push_store.ts";
import { isTaskStorageError } from "../task_storage.ts";
import type { StoredTask } from "../task_store.ts";
import type { A2ATaskState } from "../types.ts";
import type { StorageTestContext } from "../testing.ts";
import { stringify } from "../core/_builtins.ts";

/** The settings the suite opens an outbox with (small delays, so it runs quickly). */
export interface PushOutboxTestSettings {
  /** Attempts per notification, the first included. */
  readonly maxAttempts: number;
  /** How long one request may take, in ms. */
  readonly timeoutMs: number;
  /** The delay before the first retry, in ms. */
  readonly baseDelayMs: number;
  /** The longest delay between attempts, in ms. */
  readonly maxDelayMs: number;
  /** Where the outbox logs (the suite reads its drops). */
  readonly logger: Logger;
}

/** What the outbox suite needs from a backend. */
export interface PushOutboxBackend {
  /** Open a fresh, empty outbox with `settings`; called once per case. The suite closes it. */
  open(settings: PushOutboxTestSettings): PushOutbox | Promise<PushOutbox>;
  /**
   * The config store beside the outbox: for one with `enqueuedBy`, the one
   * the storage's appends read; for another, the one it reads before each
   * attempt (as `createMemoryPushOutbox({ configStore })`). The suite keeps
   * each notification's config there before it enqueues it. Without it the
   * case of a config replaced in the store, and the transactional ones (a
   * config deleted from the store among them), are skipped.
   */
  configStore?(outbox: PushOutbox): PushConfigStore;
  /** Release what `open` made, after the outbox closed. */
  close?(outbox: PushOutbox): void | Promise<void>;
  /** Longest wait for a delivery, in ms. Default 10,000. */
  readonly timeoutMs?: number;
}

class OutboxConformanceFailure extends Error {
  override name = "OutboxConformanceFailure";
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new OutboxConformanceFailure(message);
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One request a receiver got. */
interface Received {
  readonly body: string;
  readonly headers: Headers;
}

type Handler = (
  received: Received,
  count: number,
  receiver: Receiver,
) => Response | Promise<Response>;

/** A webhook receiver on 127.0.0.1 whose answers the case decides. */
class Receiver {
  readonly received: Received[] = [];
  #server: Deno.HttpServer<Deno.NetAddr> | undefined;
  #port = 0;
  readonly #held = new Set<() => void>();
  readonly #handle: Handler;

  constructor(handle: Handler = () => new Response("ok")) {
    this.#handle = handle;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }

  /** Listen (on the port it had before, once it had one). */
  listen(): this {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: this.#port, onListen() {} },
      async (request) => {
        const received = { body: await request.text(), headers: request.headers };
        this.received.push(received);
        const count = this.received.filter((r) => r.body === received.body).length;
        return await this.#handle(received, count, this);
      },
    );
    this.#port = this.#server.addr.port;
    return this;
  }

  /** Hold a request until the receiver stops. */
  hold(): Promise<Response> {
    return new Promise((resolve) => {
      const release = () => resolve(new Response("late"));
      this.#held.add(release);
    });
  }

  bodies(): string[] {
    return this.received.map((r) => r.body);
  }

  count(body: string): number {
    return this.received.filter((r) => r.body === body).length;
  }

  async stop(): Promise<void> {
    for (const release of this.#held) release();
    this.#held.clear();
    await this.#server?.shutdown();
    this.#server = undefined;
  }
}

/**
 * A receiver that answers "ok", but holds each notification with the token
 * `held` until `release()` (its attempt is on its way while the case
 * changes the config) and then answers it 503; `heard(token)`: what came
 * with that token.
 */
function holdingToken(held: string): {
  receiver: Receiver;
  release: () => void;
  heard: (token: string) => Received[];
} {
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  const token = (r: Received) => r.headers.get("x-a2a-notification-token");
  const receiver = new Receiver(async (r) => {
    if (token(r) !== held) return new Response("ok");
    await released;
    return new Response(null, { status: 503 });
  }).listen();
  return { receiver, release, heard: (t) => receiver.received.filter((r) => token(r) === t) };
}

/** Run `fn` with a receiver that answers by `handle`, stopped whatever happens. */
async function withReceiver(
  handle: Handler | undefined,
  fn: (receiver: Receiver) => Promise<void>,
): Promise<void> {
  const receiver = new Receiver(handle).listen();
  try {
    await fn(receiver);
  } finally {
    await receiver.stop();
  }
}

function note(url: string, body: string, extra: Partial<PushNotification> = {}): PushNotification {
  return {
    id: crypto.randomUUID(),
    taskId: "task-1",
    configId: "config-1",
    url,
    body,
    createdAt: Date.now(),
    ...extra,
  };
}

/**
 * Run the push outbox conformance suite as steps of `t`: each case opens an
 * outbox with small retry delays, runs receivers on 127.0.0.1, and closes
 * everything it started.
 *
 * @example
 * ```ts ignore
 * import { testPushOutbox } from "@seam/gateway/testing";
 *
 * Deno.test("my outbox conforms", (t) =>
 *   testPushOutbox(t, { open: (settings) => createMyOutbox(settings) }));
 * ```
 */
export async function testPushOutbox(
  t: StorageTestContext,
  backend: PushOutboxBackend,
): Promise<void> {
  const timeout = backend.timeoutMs ?? 10_000;
  const configs = backend.configStore;
  /** Whether the outboxes are written by their storage (known once one was opened). */
  let transactional: boolean | undefined;
  /**
   * Hand `n` to `outbox`; beside a config store, its config is kept there
   * first, with the notification's target (such an outbox sends only for
   * configs that store still holds, as they still are: url, token and
   * authentication).
   */
  const enqueue = async (outbox: PushOutbox, n: PushNotification): Promise<void> => {
    await configs?.(outbox).put({
      id: n.configId,
      taskId: n.taskId,
      url: n.url,
      ...(n.token === undefined ? {} : { token: n.token }),
      ...(n.authentication ? { authentication: n.authentication } : {}),
    });
    await outbox.enqueue(n);
  };
  const until = async (predicate: () => boolean, what: string): Promise<void> => {
    const end = Date.now() + timeout;
    while (!predicate()) {
      if (Date.now() > end) throw new OutboxConformanceFailure(`${what} within ${timeout} ms`);
      await delay(10);
    }
  };
  const withOutbox = (
    name: string,
    overrides: Partial<PushOutboxTestSettings>,
    fn: (outbox: PushOutbox, records: LogRecord[]) => Promise<void>,
  ) =>
    t.step(name, async () => {
      const { logger, records } = createMemoryLogger();
      const outbox = await backend.open({
        maxAttempts: 3,
        timeoutMs: 2_000,
        baseDelayMs: 10,
        maxDelayMs: 50,
        logger,
        ...overrides,
      });
      transactional ??= outbox.enqueuedBy !== undefined;
      try {
        await fn(outbox, records);
      } finally {
        await outbox.close();
        await backend.close?.(outbox);
      }
    });
  const dropLogged = (records: LogRecord[], id: string) =>
    records.some((r) => r.level === "warn" && r.message.includes(id) && /dropped/.test(r.message));

  await withOutbox(
    "enqueue() delivers a notification with its body, id, token and authorization",
    {},
    async (outbox) => {
      await withReceiver(undefined, async (receiver) => {
        const n = note(receiver.url, '{"statusUpdate":{}}', {
          token: "secret-token",
          authentication: { scheme: "Bearer", credentials: "abc" },
        });
        await enqueue(outbox, n);
        await until(() => receiver.received.length === 1, "the notification arrived");
        const got = receiver.received[0];
        check(got.body === n.body, `the body: ${got.body}`);
        check(got.headers.get("x-a2a-notification-id") === n.id, "X-A2A-Notification-Id");
        check(got.headers.get("x-a2a-notification-token") === "secret-token", "the token");
        check(got.headers.get("authorization") === "Bearer abc", "Authorization");
        check(got.headers.get("content-type") === "application/json", "Content-Type");
      });
    },
  );

  await withOutbox("a webhook hears its notifications in order", {}, async (outbox) => {
    await withReceiver(undefined, async (receiver) => {
      const bodies = ["1", "2", "3", "4", "5"];
      for (const body of bodies) await enqueue(outbox, note(receiver.url, body));
      await until(() => receiver.received.length >= 5, "five notifications arrived");
      check(
        stringify(receiver.bodies()) === stringify(bodies),
        `the order: ${receiver.bodies()}`,
      );
    });
  });

  await withOutbox(
    "a failed attempt (5xx) is retried, with the same id, until delivered",
    {},
    async (outbox) => {
      await withReceiver(
        (r, count) => new Response(null, { status: r.body === "flaky" && count < 3 ? 503 : 200 }),
        async (receiver) => {
          const n = note(receiver.url, "flaky");
          await enqueue(outbox, n);
          await until(() => receiver.count("flaky") === 3, "the third attempt arrived");
          const ids = new Set(receiver.received.map((r) => r.headers.get("x-a2a-notification-id")));
          check(ids.size === 1 && ids.has(n.id), "every attempt carries the notification's id");
          await enqueue(outbox, note(receiver.url, "next"));
          await until(() => receiver.count("next") === 1, "the next one arrived");
          check(receiver.count("flaky") === 3, "a delivered notification is not sent again");
        },
      );
    },
  );

  await withOutbox(
    "a receiver that is down and comes back up gets the notification",
    { maxAttempts: 50 },
    async (outbox) => {
      const receiver = new Receiver().listen();
      const url = receiver.url;
      await receiver.stop();
      try {
        await enqueue(outbox, note(url, "waited"));
        await delay(100); // attempts fail meanwhile: nobody listens
        receiver.listen();
        check(receiver.url === url, "the receiver came back on its port");
        await until(() => receiver.count("waited") >= 1, "the notification arrived");
      } finally {
        await receiver.stop();
      }
    },
  );

  await withOutbox(
    "attempts are bounded: a notification that keeps failing is dropped after maxAttempts",
    { maxAttempts: 3 },
    async (outbox, records) => {
      await withReceiver(
        (r) => new Response(null, { status: r.body === "doomed" ? 500 : 200 }),
        async (receiver) => {
          const doomed = note(receiver.url, "doomed");
          await enqueue(outbox, doomed);
          await enqueue(outbox, note(receiver.url, "after"));
          await until(() => receiver.count("after") === 1, "the one behind it arrived");
          check(receiver.count("doomed") === 3, `attempts made: ${receiver.count("doomed")}`);
          await until(() => dropLogged(records, doomed.id), "the drop was logged");
        },
      );
    },
  );

  await withOutbox(
    "a receiver that does not answer within timeoutMs is a failed attempt",
    { timeoutMs: 200, maxAttempts: 3 },
    async (outbox) => {
      await withReceiver(
        (_r, count, self) => count === 1 ? self.hold() : new Response("ok"),
        async (receiver) => {
          await enqueue(outbox, note(receiver.url, "slow"));
          await until(() => receiver.count("slow") === 2, "a second attempt after the timeout");
        },
      );
    },
  );

  await withOutbox(
    "a 4xx or a redirect is dropped after one attempt",
    { maxAttempts: 5 },
    async (outbox, records) => {
      await withReceiver(
        (r) =>
          r.body === "gone"
            ? new Response(null, { status: 410 })
            : r.body === "moved"
            ? new Response(null, { status: 302, headers: { location: "/elsewhere" } })
            : new Response("ok"),
        async (receiver) => {
          const gone = note(receiver.url, "gone");
          const moved = note(receiver.url, "moved");
          await enqueue(outbox, gone);
          await enqueue(outbox, moved);
          await enqueue(outbox, note(receiver.url, "fine"));
          await until(() => receiver.count("fine") === 1, "the one behind them arrived");
          check(receiver.count("gone") === 1, "410 was attempted once");
          check(receiver.count("moved") === 1, "302 was attempted once (and not followed)");
          await until(
            () => dropLogged(records, gone.id) && dropLogged(records, moved.id),
            "the drops were logged",
          );
        },
      );
    },
  );

  await withOutbox(
    "discard() drops what waits for a config: nothing more is sent for it, not even a retry that was waiting",
    { maxAttempts: 40, baseDelayMs: 400, maxDelayMs: 400 },
    async (outbox) => {
      await withReceiver(
        (r) => new Response(null, { status: r.body === "kept" ? 200 : 503 }),
        async (receiver) => {
          await enqueue(outbox, note(receiver.url, "unwanted", { configId: "c-gone" }));
          await until(() => receiver.count("unwanted") === 1, "the first attempt");
          // Its retry waits (200 to 400 ms), and another of its config's behind it.
          await enqueue(outbox, note(receiver.url, "unwanted too", { configId: "c-gone" }));
          await outbox.discard("task-1", "c-gone");
          await enqueue(outbox, note(receiver.url, "kept", { configId: "c-kept" }));
          await until(() => receiver.count("kept") === 1, "the other config's arrived");
          await delay(500); // past the retry the discarded one waited for
          check(
            receiver.count("unwanted") === 1,
            `attempts after discard(): ${receiver.count("unwanted") - 1}`,
          );
          check(receiver.count("unwanted too") === 0, "the one behind it was not sent");
        },
      );
    },
  );

  if (!configs) return; // no config store beside the outbox
  const taskOf = (id: string, state: A2ATaskState): StoredTask => ({
    task: { id, contextId: "ctx", status: { state } },
    owner: undefined,
    provider: "p",
    updatedAt: Date.now(),
  });
  /**
   * A task's changes as the gateway hands them over: to a transactional
   * outbox, one append per change (its storage writes a notification per
   * config of the task); to another, one notification per config the store
   * holds for the task, with its target.
   */
  const changesOf = (outbox: PushOutbox, taskId: string) => {
    let generation = 0;
    return async (state: A2ATaskState, body: string): Promise<void> => {
      const storage = outbox.enqueuedBy;
      if (storage) {
        generation = await storage.append({
          record: taskOf(taskId, state),
          expected: generation,
          events: [generation === 0 ? { task: {} } : { statusUpdate: {} }],
          instance: generation === 0 ? "i1" : undefined,
          pushes: [body],
        });
        return;
      }
      for (const c of await configs(outbox).list(taskId)) {
        await outbox.enqueue(note(c.url, body, {
          taskId,
          configId: c.id,
          ...(c.token === undefined ? {} : { token: c.token }),
          ...(c.authentication ? { authentication: c.authentication } : {}),
        }));
      }
    };
  };
  if (transactional) {
    await withOutbox(
      "an append's pushes reach every config of the task, in order, or none when it is refused",
      {},
      async (outbox) => {
        const storage = outbox.enqueuedBy;
        check(
          storage !== undefined,
          "an outbox with a config store names its storage (enqueuedBy)",
        );
        const store = configs(outbox);
        const a = new Receiver().listen();
        const b = new Receiver().listen();
        try {
          await store.put({ id: "to-a", taskId: "tx", url: a.url, token: "ta" });
          await store.put({ id: "to-b", taskId: "tx", url: b.url });
          await store.put({ id: "other", taskId: "another", url: a.url });
          const task = (state: A2ATaskState) => taskOf("tx", state);
          const g = await storage.append({
            record: task("TASK_STATE_WORKING"),
            expected: 0,
            events: [{ task: {} }, { statusUpdate: {} }],
            instance: "i1",
            pushes: ["working", "artifact"],
          });
          try {
            await storage.append({
              record: task("TASK_STATE_FAILED"),
              expected: 0,
              events: [{ statusUpdate: {} }],
              instance: undefined,
              pushes: ["refused"],
            });
            throw new OutboxConformanceFailure("a stale append was accepted");
          } catch (error) {
            check(isTaskStorageError(error, "CONFLICT"), `a stale append: ${String(error)}`);
          }
          await storage.append({
            record: task("TASK_STATE_COMPLETED"),
            expected: g,
            events: [{ statusUpdate: {} }],
            instance: undefined,
            pushes: ["completed"],
          });
          const all = ["working", "artifact", "completed"];
          await until(
            () => a.received.length >= 3 && b.received.length >= 3,
            "both webhooks heard every change",
          );
          check(stringify(a.bodies()) === stringify(all), `webhook a: ${a.bodies()}`);
          check(stringify(b.bodies()) === stringify(all), `webhook b: ${b.bodies()}`);
          check(a.received[0].headers.get("x-a2a-notification-token") === "ta", "a's token");
          const ids = new Set(
            [...a.received, ...b.received].map((r) => r.headers.get("x-a2a-notification-id")),
          );
          check(ids.size === 6, "one notification id per config and change");
        } finally {
          await a.stop();
          await b.stop();
        }
      },
    );
  }

  // Deleted from the store alone, without discard(): only an outbox its
  // storage writes reads a config's absence as a delete. Beside a memory
  // outbox an absent config may have been evicted (its task ended, the store
  // full) with its last notifications still owed, so they are sent; a delete
  // stops them there through discard(), its own case above.
  if (transactional) {
    await withOutbox(
      "a config deleted from its store hears nothing more, even of notifications written before",
      {},
      async (outbox) => {
        const store = configs(outbox);
        const change = changesOf(outbox, "ty");
        // The first attempt to "gone" is on its way while the config is deleted.
        const { receiver, release, ...held } = holdingToken("gone");
        const heard = (t: string) => held.heard(t).length;
        try {
          await store.put({ id: "gone", taskId: "ty", url: receiver.url, token: "gone" });
          await store.put({ id: "kept", taskId: "ty", url: receiver.url, token: "kept" });
          await change("TASK_STATE_WORKING", "working");
          await until(() => heard("gone") === 1, "the first attempt");
          await change("TASK_STATE_COMPLETED", "completed");
          // Deleted from the store alone: as when the outbox's discard() ran
          // before an append that had read the config committed.
          await store.delete("ty", "gone");
          release();
          await until(() => heard("kept") === 2, "the other config heard both changes");
          await delay(200); // past any retry (the delays are at most 50 ms)
          check(
            heard("gone") === 1,
            `requests to the deleted config after it went: ${heard("gone") - 1}`,
          );
        } finally {
          release();
          await receiver.stop();
        }
      },
    );
  }

  await withOutbox(
    "a config replaced in its store (another token) is not sent what was written for its old target, a retry included",
    {},
    async (outbox) => {
      const store = configs(outbox);
      const change = changesOf(outbox, "tz");
      // The first attempt to "old" is on its way while the config is replaced.
      const { receiver, release, heard } = holdingToken("old");
      try {
        await store.put({ id: "moved", taskId: "tz", url: receiver.url, token: "old" });
        await change("TASK_STATE_WORKING", "working");
        await until(() => heard("old").length === 1, "the first attempt");
        // CreateTaskPushNotificationConfig with its id: replaced, not deleted
        // (the gateway calls no discard() for it).
        await store.put({ id: "moved", taskId: "tz", url: receiver.url, token: "new" });
        await change("TASK_STATE_COMPLETED", "completed");
        release();
        await until(() => heard("new").length === 1, "the replaced config heard the next change");
        await delay(200); // past any retry (the delays are at most 50 ms)
        check(
          heard("old").length === 1,
          `requests with the old token after the replace: ${heard("old").length - 1}`,
        );
        check(
          stringify(heard("new").map((r) => r.body)) === '["completed"]',
          `with the new token: ${stringify(heard("new").map((r) => r.body))}`,
        );
      } finally {
        release();
        await receiver.stop();
      }
    },
  );
}
