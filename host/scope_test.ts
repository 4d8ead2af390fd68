import assert from "node:assert/strict";
import {
  createMemoryLogger,
  createRootScope,
  defineEvent,
  defineService,
  InactiveScopeError,
} from "./mod.ts";

const quiet = () => createMemoryLogger();

Deno.test("Scope.dispose() cascades to every descendant in reverse order", async () => {
  const root = createRootScope({ logger: quiet().logger });
  const order: string[] = [];
  root.effect(() => () => void order.push("root effect 1"));
  const a = root.child("a");
  a.effect(() => () => void order.push("a effect"));
  const grandchild = a.child("a/g");
  grandchild.onDispose(() => void order.push("grandchild"));
  root.onDispose(async () => {
    await Promise.resolve();
    order.push("root effect 2 (async)");
  });
  const b = root.child("b");
  b.onDispose(() => void order.push("b"));
  await root.dispose();
  assert.deepEqual(order, [
    "b",
    "root effect 2 (async)",
    "grandchild",
    "a effect",
    "root effect 1",
  ]);
  for (const scope of [root, a, grandchild, b]) assert.equal(scope.state, "disposed");
});

Deno.test("Scope.dispose() is memoized and contains failing disposers", async () => {
  const { logger, records } = quiet();
  const root = createRootScope({ logger });
  const ran: string[] = [];
  root.onDispose(() => void ran.push("first"));
  root.onDispose(() => {
    throw new Error("broken disposer");
  });
  root.onDispose(() => Promise.reject(new Error("broken async disposer")));
  const first = root.dispose();
  assert.equal(root.dispose(), first);
  assert.equal(root.state, "disposing");
  await first;
  assert.deepEqual(ran, ["first"]);
  assert.equal(records.filter((r) => r.level === "error").length, 2);
});

Deno.test("Scope refuses registrations once disposing or disposed", async (t) => {
  for (const when of ["disposing", "disposed"] as const) {
    await t.step(when, async () => {
      const root = createRootScope({ logger: quiet().logger });
      const event = defineEvent<void>("x");
      const key = defineService<number>("n");
      let attempts: (() => unknown)[] = [];
      const tryAll = () => {
        for (const attempt of attempts) {
          assert.throws(attempt, (error: unknown) => {
            assert.ok(error instanceof InactiveScopeError);
            assert.equal(error.state, when);
            assert.equal(error.code, "INACTIVE_SCOPE");
            assert.match(error.message, /inactive context/);
            return true;
          });
        }
      };
      attempts = [
        () => root.effect(() => {}),
        () => root.onDispose(() => {}),
        () => root.child(),
        () => root.on(event, () => {}),
        () => root.provide(key, 1),
      ];
      if (when === "disposing") {
        root.onDispose(() => tryAll());
        await root.dispose();
      } else {
        await root.dispose();
        tryAll();
      }
    });
  }
});

Deno.test("Scope.effect() owns the returned disposer and undoes it early once", async () => {
  const root = createRootScope({ logger: quiet().logger });
  let undone = 0;
  const undo = root.effect(() => () => void undone++);
  await undo();
  await undo();
  await root.dispose();
  assert.equal(undone, 1);
  const other = createRootScope({ logger: quiet().logger });
  assert.throws(() => other.effect((() => 42) as never), /setup returned number/);
  await other.dispose();
});

Deno.test("Scope.signal aborts when disposal starts", async () => {
  const root = createRootScope({ logger: quiet().logger });
  const signal = root.signal;
  assert.equal(signal.aborted, false);
  const done = root.dispose();
  assert.equal(signal.aborted, true);
  await done;
  assert.equal(root.child === undefined, false);
});

Deno.test("Scope.emit() reaches this scope's listeners, then its ancestors'", async () => {
  const root = createRootScope({ logger: quiet().logger });
  const ping = defineEvent<string>("test/ping");
  const parent = root.child("parent");
  const child = parent.child("child");
  const sibling = root.child("sibling");
  const seen: string[] = [];
  root.on(ping, (p) => void seen.push(`root:${p}`));
  parent.on(ping, (p) => void seen.push(`parent:${p}`));
  sibling.on(ping, (p) => void seen.push(`sibling:${p}`));
  child.on(ping, (p) => void seen.push(`child:${p}`));
  parent.emit(ping, "a");
  assert.deepEqual(seen, ["parent:a", "root:a"]);
  assert.equal(sibling.hasListeners(ping), true);
  assert.equal(root.hasListeners(defineEvent("other")), false);
  await parent.dispose();
  seen.length = 0;
  root.emit(ping, "b");
  assert.deepEqual(seen, ["root:b"]);
  await root.dispose();
});

Deno.test("Scope.emit() contains each listener and never awaits", async () => {
  const { logger, records } = quiet();
  const root = createRootScope({ logger });
  const ping = defineEvent<number>("test/contained");
  const seen: number[] = [];
  let release!: () => void;
  root.on(ping, () => {
    throw new Error("sync failure");
  });
  root.on(ping, () => Promise.reject(new Error("async failure")));
  root.on(ping, () => new Promise<void>((resolve) => release = resolve));
  root.on(ping, (n) => void seen.push(n));
  root.emit(ping, 1);
  assert.deepEqual(seen, [1]);
  await new Promise((resolve) => setTimeout(resolve, 0));
  const messages = records.map((r) => r.message);
  assert.deepEqual(messages, [
    'A listener of "test/contained" threw',
    'A listener of "test/contained" rejected',
  ]);
  release();
  await root.dispose();
});

Deno.test("Scope.on() returns a disposer; removal during dispatch is safe", async () => {
  const root = createRootScope({ logger: quiet().logger });
  const ping = defineEvent<void>("test/off");
  let count = 0;
  let off: () => Promise<void> = () => Promise.resolve();
  off = root.on(ping, () => {
    count++;
    void off();
  });
  root.on(ping, () => void count++);
  root.emit(ping, undefined);
  root.emit(ping, undefined);
  assert.equal(count, 3);
  await root.dispose();
});

Deno.test("Scope.provide() and inject() resolve the nearest service", async () => {
  const root = createRootScope({ logger: quiet().logger });
  const key = defineService<string>("greeting");
  root.provide(key, "hello");
  const child = root.child();
  assert.equal(child.inject(key), "hello");
  const undo = child.provide(key, "hi");
  assert.equal(child.inject(key), "hi");
  assert.throws(() => child.provide(key, "again"), /already provided/);
  await undo();
  assert.equal(child.inject(key), "hello");
  assert.equal(root.inject(defineService("missing")), undefined);
  await root.dispose();
});

Deno.test("defineEvent() and defineService() reject empty names", () => {
  assert.throws(() => defineEvent(""), TypeError);
  assert.throws(() => defineService(""), TypeError);
});

Deno.test("Scope.dispose() re-entered from a disposer never waits for itself", async (t) => {
  const settles = async (done: Promise<void>) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        done.then(() => "settled"),
        new Promise((resolve) => timer = setTimeout(() => resolve("hung"), 100)),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  await t.step("a disposer returning its own scope's dispose()", async () => {
    const scope = createRootScope({ logger: quiet().logger });
    const order: string[] = [];
    scope.onDispose(() => void order.push("first"));
    scope.onDispose(() => scope.dispose());
    assert.equal(await settles(scope.dispose()), "settled");
    assert.equal(scope.state, "disposed");
    assert.deepEqual(order, ["first"]);
  });
  await t.step("a child's disposer returning its parent's dispose()", async () => {
    const parent = createRootScope({ logger: quiet().logger });
    const child = parent.child("c");
    child.onDispose(() => parent.dispose());
    assert.equal(await settles(parent.dispose()), "settled");
    assert.deepEqual([parent.state, child.state], ["disposed", "disposed"]);
  });
  await t.step("the same once the disposal awaited (its signal was read)", async () => {
    const scope = createRootScope({ logger: quiet().logger });
    void scope.signal;
    scope.onDispose(() => scope.dispose());
    assert.equal(await settles(scope.dispose()), "settled");
    assert.equal(scope.state, "disposed");
  });
});

Deno.test("createRootScope() refuses an unknown option, naming the known ones", () => {
  assert.throws(
    () => createRootScope({ lable: "app" } as never),
    {
      name: "TypeError",
      message: "Cannot create the root scope: unknown option lable (known: logger, label)",
    },
  );
});
