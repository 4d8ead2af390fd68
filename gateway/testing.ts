/**
 * The storage conformance suite: the behavioural contract of a
 * {@linkcode TaskStorage} (snapshot + ordered event log with generations,
 * reads from a generation, live wake-ups across instances, ownership leases,
 * commands to a task's owner), run against any backend. The memory store and
 * `@seam/gateway-postgres` both run it; a storage author calls
 * {@linkcode testTaskStorage} from a test with a way to open the backend.
 * {@linkcode testPushOutbox} is the same for a push outbox (delivery,
 * order, retries, bounds; beside a config store, nothing for a replaced
 * config's old target; and for a transactional one its appends, and
 * nothing for a config deleted from its store).
 *
 * @example
 * ```ts ignore
 * import { testTaskStorage } from "@seam/gateway/testing";
 * import { createMyStorage } from "./my_storage.ts";
 *
 * Deno.test("my storage conforms", (t) =>
 *   testTaskStorage(t, {
 *     open: (leaseTtlMs) => createMyStorage({ leaseTtlMs }),
 *   }));
 * ```
 *
 * @module
 */
import { isTaskStorageError, type JsonObject, type TaskStorage } from "./task_storage.ts";
import type { StoredTask } from "./task_store.ts";
import type { A2ATaskState } from "./types.ts";
import { stringify } from "./core/_builtins.ts";

export {
  type PushOutboxBackend,
  type PushOutboxTestSettings,
  testPushOutbox,
} from "./push/_outbox_conformance.ts";

/** The part of a test context the suite needs: `Deno.TestContext` fits, so does an adapter. */
export interface StorageTestContext {
  /** Run a named step; resolves `false` when it failed. */
  step(name: string, fn: (t: StorageTestContext) => void | Promise<void>): Promise<boolean>;
}

/** What the suite needs from a backend. */
export interface StorageBackend {
  /**
   * Open a fresh, empty storage whose leases last `leaseTtlMs`. Called once
   * per case.
   */
  open(leaseTtlMs: number): TaskStorage | Promise<TaskStorage>;
  /**
   * Open a second handle on the storage `first` opened, as another gateway
   * instance would (its own connections). Default: `first` itself.
   */
  another?(first: TaskStorage): TaskStorage | Promise<TaskStorage>;
  /** Release a storage the suite opened (close its connections, drop its data). */
  close?(storage: TaskStorage): void | Promise<void>;
  /** Longest wait for a wake-up or a reply, in ms. Default 5,000. */
  readonly timeoutMs?: number;
}

class StorageConformanceFailure extends Error {
  override name = "StorageConformanceFailure";
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new StorageConformanceFailure(message);
}

function same(actual: unknown, expected: unknown, what: string): void {
  const a = stringify(actual);
  const b = stringify(expected);
  check(a === b, `${what}: expected ${b}, got ${a}`);
}

async function rejectsWith(promise: () => unknown, code: "CONFLICT" | "UNAVAILABLE", what: string) {
  try {
    await promise();
  } catch (error) {
    check(
      isTaskStorageError(error, code),
      `${what}: expected a TaskStorageError ${code}, got ${String(error)}`,
    );
    return;
  }
  throw new StorageConformanceFailure(`${what}: expected a TaskStorageError ${code}, got success`);
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function record(
  id: string,
  state: A2ATaskState,
  updatedAt: number,
  extra: { owner?: string; provider?: string; contextId?: string } = {},
): StoredTask {
  return {
    task: { id, contextId: extra.contextId ?? "ctx", status: { state } },
    owner: extra.owner,
    provider: extra.provider ?? "p",
    updatedAt,
  };
}

const status = (state: A2ATaskState): JsonObject => ({ statusUpdate: { status: { state } } });

/** Wait until `predicate` holds (polled), or fail with `what` after `ms`. */
async function until(predicate: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new StorageConformanceFailure(`${what} within ${ms} ms`);
    await delay(5);
  }
}

/**
 * Run the storage conformance suite as steps of `t`. Each case opens a fresh
 * storage (and a second handle, as another instance, where it needs one) and
 * closes it.
 */
export async function testTaskStorage(
  t: StorageTestContext,
  backend: StorageBackend,
): Promise<void> {
  const timeout = backend.timeoutMs ?? 5_000;
  const withStorage = (
    name: string,
    ttl: number,
    fn: (s: TaskStorage, other: () => Promise<TaskStorage>) => Promise<void>,
  ) =>
    t.step(name, async () => {
      const storage = await backend.open(ttl);
      const others: TaskStorage[] = [];
      try {
        await fn(storage, async () => {
          const other = backend.another ? await backend.another(storage) : storage;
          if (other !== storage) others.push(other);
          return other;
        });
      } finally {
        for (const other of others) await backend.close?.(other);
        await backend.close?.(storage);
      }
    });

  await withStorage(
    "append() creates a task at generation 1 and counts +1 per change",
    10_000,
    async (s) => {
      const created = await s.append({
        record: record("a", "TASK_STATE_SUBMITTED", 1),
        expected: 0,
        events: [{ task: { id: "a" } }],
        instance: "i1",
      });
      same(created, 1, "the generation of a new task");
      const got = await s.get("a");
      check(got !== undefined, "get() finds an appended task");
      same(got.generation, 1, "get().generation");
      same(got.instance, "i1", "get().instance");
      same(got.task.status.state, "TASK_STATE_SUBMITTED", "the snapshot's state");
      const next = await s.append({
        record: record("a", "TASK_STATE_WORKING", 2),
        expected: 1,
        events: [status("TASK_STATE_WORKING"), { artifactUpdate: { n: 1 } }],
        instance: "i1",
      });
      same(next, 3, "the generation after two more changes");
      same((await s.get("a"))?.generation, 3, "get().generation after two more changes");
      same((await s.get("a"))?.task.status.state, "TASK_STATE_WORKING", "the snapshot's new state");
    },
  );

  await withStorage(
    "append() refuses a stale or taken generation and changes nothing",
    10_000,
    async (s) => {
      await s.append({
        record: record("b", "TASK_STATE_WORKING", 1),
        expected: 0,
        events: [{ task: {} }, status("TASK_STATE_WORKING")],
        instance: "i1",
      });
      await rejectsWith(
        () =>
          s.append({
            record: record("b", "TASK_STATE_SUBMITTED", 2),
            expected: 0,
            events: [{ task: {} }],
            instance: "i2",
          }),
        "CONFLICT",
        "creating a task that exists",
      );
      await rejectsWith(
        () =>
          s.append({
            record: record("b", "TASK_STATE_FAILED", 3),
            expected: 1,
            events: [status("TASK_STATE_FAILED")],
            instance: undefined,
          }),
        "CONFLICT",
        "appending at a stale generation",
      );
      const got = await s.get("b");
      same(got?.generation, 2, "the generation after refused appends");
      same(got?.task.status.state, "TASK_STATE_WORKING", "the snapshot after refused appends");
      same(got?.instance, "i1", "the instance after refused appends");
      same((await s.read("b", 0, 10)).length, 2, "the log after refused appends");
    },
  );

  await withStorage(
    "append() lets exactly one of two writers at one generation win",
    10_000,
    async (s, other) => {
      const b = await other();
      await s.append({
        record: record("race", "TASK_STATE_WORKING", 1),
        expected: 0,
        events: [{ task: {} }],
        instance: "i1",
      });
      const attempts = await Promise.allSettled(
        [s, b, s, b].map(async (store, n) =>
          await store.append({
            record: record("race", "TASK_STATE_FAILED", 2 + n),
            expected: 1,
            events: [status("TASK_STATE_FAILED")],
            instance: undefined,
          })
        ),
      );
      same(attempts.filter((a) => a.status === "fulfilled").length, 1, "writers that won");
      for (const a of attempts) {
        if (a.status === "rejected") {
          check(isTaskStorageError(a.reason, "CONFLICT"), `a losing writer: ${String(a.reason)}`);
        }
      }
      same((await s.read("race", 0, 10)).map((e) => e.generation), [1, 2], "the log's generations");
    },
  );

  await withStorage(
    "append() changes an ended task at its generation, with no owner",
    10_000,
    async (s) => {
      // The gateway adds a steering message its run took as the task ended.
      const ended = await s.append({
        record: record("late", "TASK_STATE_COMPLETED", 1),
        expected: 0,
        events: [{ task: {} }, status("TASK_STATE_COMPLETED")],
        instance: "i1",
      });
      const history = [{ messageId: "m", role: "ROLE_USER", parts: [{ text: "late" }] }];
      const amended = record("late", "TASK_STATE_COMPLETED", 2);
      const later = await s.append({
        record: { ...amended, task: { ...amended.task, history } as StoredTask["task"] },
        expected: ended,
        events: [{ task: { id: "late", status: { state: "TASK_STATE_COMPLETED" } } }],
        instance: undefined,
      });
      same(later, 3, "the generation after the late change");
      const got = await s.get("late");
      same(got?.generation, 3, "get().generation after the late change");
      same(got?.task.history, history, "the snapshot's history after the late change");
      same(got?.task.status.state, "TASK_STATE_COMPLETED", "the snapshot's state");
      same(got?.instance, undefined, "an ended task's instance");
      same((await s.read("late", 2, 10)).map((e) => e.generation), [3], "the late entry");
    },
  );

  await withStorage(
    "read() answers the entries after a generation, in order, at most limit",
    10_000,
    async (s) => {
      let generation = 0;
      for (let n = 0; n < 10; n++) {
        generation = await s.append({
          record: record("c", "TASK_STATE_WORKING", n),
          expected: generation,
          events: [{ artifactUpdate: { n: 2 * n } }, { artifactUpdate: { n: 2 * n + 1 } }],
          instance: "i1",
        });
      }
      same(generation, 20, "the generation after ten appends of two");
      const all = await s.read("c", 0, 100);
      same(
        all.map((e) => e.generation),
        Array.from({ length: 20 }, (_, i) => i + 1),
        "generations",
      );
      same(
        all.map((e) => (e.event.artifactUpdate as { n: number }).n),
        [...Array(20).keys()],
        "order",
      );
      same((await s.read("c", 7, 3)).map((e) => e.generation), [8, 9, 10], "read(7, 3)");
      same(await s.read("c", 20, 10), [], "read() past the end");
      same(await s.read("nope", 0, 10), [], "read() of an unknown task");
    },
  );

  await withStorage("append() keeps a copy of the events and the snapshot", 10_000, async (s) => {
    const event = { statusUpdate: { status: { state: "TASK_STATE_SUBMITTED" } } };
    const r = record("d", "TASK_STATE_SUBMITTED", 1);
    await s.append({ record: r, expected: 0, events: [event], instance: "i1" });
    event.statusUpdate.status.state = "changed";
    same((await s.read("d", 0, 1))[0].event, status("TASK_STATE_SUBMITTED"), "the stored event");
  });

  await withStorage(
    "subscribe() wakes listeners on every instance after a commit",
    10_000,
    async (s, other) => {
      const b = await other();
      const heardA: number[] = [];
      const heardB: number[] = [];
      const offA = s.subscribe("e", (g) => heardA.push(g));
      const offB = b.subscribe("e", (g) => heardB.push(g));
      const offOther = b.subscribe("other-task", (g) => g > 0 && heardB.push(-1));
      try {
        await delay(50); // a remote listener may take a moment to be in place
        await s.append({
          record: record("e", "TASK_STATE_SUBMITTED", 1),
          expected: 0,
          events: [{ task: {} }],
          instance: "i1",
        });
        await until(
          () => heardA.includes(1) && heardB.includes(1),
          timeout,
          "both instances heard generation 1",
        );
        await s.append({
          record: record("e", "TASK_STATE_WORKING", 2),
          expected: 1,
          events: [status("TASK_STATE_WORKING"), { artifactUpdate: {} }],
          instance: "i1",
        });
        await until(() => heardB.includes(3), timeout, "the other instance heard generation 3");
        check(!heardB.includes(-1), "a listener of another task was woken");
        offB();
        const count = heardB.length;
        await s.append({
          record: record("e", "TASK_STATE_COMPLETED", 3),
          expected: 3,
          events: [status("TASK_STATE_COMPLETED")],
          instance: undefined,
        });
        await until(() => heardA.includes(4), timeout, "the first instance heard generation 4");
        await delay(50);
        same(heardB.length, count, "wake-ups after unsubscribing");
      } finally {
        offA();
        offB();
        offOther();
      }
    },
  );

  await withStorage(
    "list() filters, orders newest first and pages with a cursor",
    10_000,
    async (s) => {
      const put = (id: string, state: A2ATaskState, at: number, extra = {}) =>
        s.append({
          record: record(id, state, at, extra),
          expected: 0,
          events: [{ task: {} }],
          instance: "i1",
        });
      await put("t1", "TASK_STATE_WORKING", 100, { owner: "alice" });
      await put("t2", "TASK_STATE_COMPLETED", 200, { owner: "alice", contextId: "k" });
      await put("t3", "TASK_STATE_COMPLETED", 200, { owner: "alice", provider: "q" });
      await put("t4", "TASK_STATE_WORKING", 300, { owner: "bob" });
      await put("t5", "TASK_STATE_WORKING", 50);
      const ids = async (query: Parameters<TaskStorage["list"]>[0]) => {
        const page = await s.list(query);
        return { ids: page.tasks.map((r) => r.task.id), total: page.total };
      };
      same(
        await ids({ owner: "alice", limit: 10 }),
        { ids: ["t3", "t2", "t1"], total: 3 },
        "alice's",
      );
      same(await ids({ owner: undefined, limit: 10 }), { ids: ["t5"], total: 1 }, "no owner's");
      same(
        await ids({ owner: "alice", provider: "q", limit: 10 }),
        { ids: ["t3"], total: 1 },
        "by provider",
      );
      same(
        await ids({ owner: "alice", contextId: "k", limit: 10 }),
        { ids: ["t2"], total: 1 },
        "by context",
      );
      same(
        await ids({ owner: "alice", state: "TASK_STATE_WORKING", limit: 10 }),
        { ids: ["t1"], total: 1 },
        "by state",
      );
      same(await ids({ owner: "alice", updatedAfter: 100, limit: 10 }), {
        ids: ["t3", "t2"],
        total: 2,
      }, "updatedAfter");
      same(await ids({ owner: "alice", limit: 2 }), { ids: ["t3", "t2"], total: 3 }, "page 1");
      same(
        await ids({ owner: "alice", after: { updatedAt: 200, id: "t2" }, limit: 2 }),
        { ids: ["t1"], total: 3 },
        "page 2",
      );
    },
  );

  await withStorage(
    "waiting() answers a principal's tasks waiting for input in a context, newest first",
    10_000,
    async (s) => {
      if (!s.waiting) return; // optional: the gateway reads list() instead
      const put = (id: string, state: A2ATaskState, at: number, extra = {}) =>
        s.append({
          record: record(id, state, at, { contextId: "w", owner: "alice", ...extra }),
          expected: 0,
          events: [{ task: {} }],
          instance: "i1",
        });
      await put("w1", "TASK_STATE_INPUT_REQUIRED", 100);
      await put("w2", "TASK_STATE_AUTH_REQUIRED", 200);
      await put("w3", "TASK_STATE_INPUT_REQUIRED", 200, { provider: "q" });
      await put("w4", "TASK_STATE_WORKING", 300);
      await put("w5", "TASK_STATE_COMPLETED", 300);
      await put("w6", "TASK_STATE_INPUT_REQUIRED", 300, { contextId: "v" });
      await put("w7", "TASK_STATE_INPUT_REQUIRED", 300, { owner: "bob" });
      await put("w8", "TASK_STATE_INPUT_REQUIRED", 300, { owner: undefined });
      // Waited, then was answered: it waits no more.
      await put("w9", "TASK_STATE_INPUT_REQUIRED", 300);
      await s.append({
        record: record("w9", "TASK_STATE_WORKING", 400, { contextId: "w", owner: "alice" }),
        expected: 1,
        events: [status("TASK_STATE_WORKING")],
        instance: "i1",
      });
      const ids = async (query: Parameters<NonNullable<TaskStorage["waiting"]>>[0]) =>
        (await s.waiting!(query)).map((r) => r.task.id);
      same(await ids({ owner: "alice", contextId: "w", limit: 10 }), ["w3", "w2", "w1"], "alice's");
      same(await ids({ owner: "alice", contextId: "w", limit: 2 }), ["w3", "w2"], "limit");
      same(
        await ids({ owner: "alice", contextId: "w", provider: "q", limit: 10 }),
        ["w3"],
        "by provider",
      );
      same(await ids({ owner: "bob", contextId: "w", limit: 10 }), ["w7"], "bob's");
      same(await ids({ owner: undefined, contextId: "w", limit: 10 }), ["w8"], "no owner's");
      same(await ids({ owner: "alice", contextId: "none", limit: 10 }), [], "another context");
      const [first] = await s.waiting({ owner: "alice", contextId: "w", limit: 1 });
      same(
        [first.generation, first.instance],
        [1, "i1"],
        "a waiting task's generation and instance",
      );
    },
  );

  await withStorage(
    "a live task whose instance stops its heartbeat becomes an orphan",
    300,
    async (s, other) => {
      const b = await other();
      await s.heartbeat("alive");
      await s.heartbeat("dying");
      const create = (id: string, instance: string | undefined, state: A2ATaskState) =>
        s.append({
          record: record(id, state, 1),
          expected: 0,
          events: [{ task: {} }],
          instance,
        });
      await create("kept", "alive", "TASK_STATE_WORKING");
      await create("lost", "dying", "TASK_STATE_WORKING");
      await create("done", "dying", "TASK_STATE_COMPLETED");
      same((await b.orphans(10)).map((r) => r.task.id), [], "orphans while both heartbeat");
      const end = Date.now() + 700;
      while (Date.now() < end) {
        await s.heartbeat("alive");
        await delay(60);
      }
      const orphans = await b.orphans(10);
      same(orphans.map((r) => r.task.id), ["lost"], "orphans once one lease lapsed");
      same(orphans[0].instance, "dying", "an orphan names its lost instance");
      same(orphans[0].generation, 1, "an orphan carries its generation");
      if (b.leased) {
        // Optional: whether an instance's lease is current, asked before a command is sent it.
        same(await b.leased("alive"), true, "leased() of an instance that heartbeats");
        same(await b.leased("dying"), false, "leased() of an instance whose lease lapsed");
        same(await b.leased("never"), false, "leased() of an instance that never beat");
      }
      await b.append({
        record: record("lost", "TASK_STATE_FAILED", 2),
        expected: orphans[0].generation,
        events: [status("TASK_STATE_FAILED")],
        instance: undefined,
      });
      same(await b.orphans(10), [], "orphans once the lost task ended");
      same((await s.get("lost"))?.instance, undefined, "an ended task's instance");
    },
  );

  await withStorage(
    "orphans() leaves out the instance it is told to, and answers the least recently changed first",
    200,
    async (s, other) => {
      const b = await other();
      await s.heartbeat("mine");
      await s.heartbeat("dead");
      const create = (id: string, instance: string | undefined, updatedAt: number) =>
        s.append({
          record: record(id, "TASK_STATE_WORKING", updatedAt),
          expected: 0,
          events: [{ task: {} }],
          instance,
        });
      // More of the caller's own than a page, written first; then the others'.
      for (let i = 1; i <= 5; i++) await create(`mine-${i}`, "mine", i * 10);
      await create("dead-new", "dead", 100);
      await create("unowned", undefined, 60);
      await create("dead-old", "dead", 1);
      await delay(350); // both leases lapse
      same(
        (await b.orphans(3, { excludeInstance: "mine" })).map((r) => r.task.id),
        ["dead-old", "unowned", "dead-new"],
        "orphans(3) but for mine's: the others', a task with no instance among them",
      );
      same(
        (await b.orphans(3)).map((r) => r.task.id),
        ["dead-old", "mine-1", "mine-2"],
        "orphans(3): the least recently changed first, whatever the order they were written in",
      );
      same(
        (await b.orphans(10, { excludeInstance: "nobody" })).length,
        8,
        "orphans(10) but for an instance with no task: all of them",
      );
    },
  );

  await withStorage(
    "send() reaches the instance that serves, and answers its reply",
    10_000,
    async (s, other) => {
      const b = await other();
      const heard: JsonObject[] = [];
      const stop = b.serve("owner", (command) => {
        heard.push(command);
        return Promise.resolve({ echoed: command.n });
      });
      try {
        await delay(50);
        same(await s.send("owner", { n: 1 }, timeout), { echoed: 1 }, "the reply");
        same(await s.send("owner", { n: 2 }, timeout), { echoed: 2 }, "a second reply");
        same(heard, [{ n: 1 }, { n: 2 }], "the commands the owner heard");
      } finally {
        stop();
      }
      await rejectsWith(
        () => s.send("nobody", { n: 3 }, 300),
        "UNAVAILABLE",
        "a command nobody serves",
      );
    },
  );
}
