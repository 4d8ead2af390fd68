// The commands one gateway instance forwards to another (CancelTask, steering
// messages) when the owner's connection drops as it takes one or answers it,
// or the sender's as it sends one: the sender still hears what the owner
// did, and the owner runs it once, or never once the sender gave up. The
// store whose connection drops reaches PostgreSQL through a TCP relay.
import assert from "node:assert/strict";
import postgres from "postgres";
import type { JsonObject, TaskStorageError } from "@seam/gateway";
import { rpc as call } from "../gateway/_test_support.ts";
import type { PostgresTaskStore } from "./mod.ts";
import {
  CUT_CLOSE_GRACE_MS,
  databaseUrl,
  dropSchema,
  freshSchema,
  openStore,
  Relay,
  SKIP,
  startTask,
  withGateways,
} from "./_test_support.ts";

/**
 * Start a task on a gateway whose store reaches PostgreSQL through a relay
 * that drops the first statement carrying `dropped`, then CancelTask it on a
 * second gateway; the run is cancelled and the second answers CANCELED.
 */
function cancelThroughDrop(dropped: string): Promise<void> {
  // The sender waits cancelTimeoutMs + 2 s for the reply.
  return withGateways(
    2,
    { relayed: [0], gateway: () => ({ cancelTimeoutMs: 100 }) },
    async ([a, b]) => {
      const { id, run } = await startTask(a, { "a2a-version": "1.0" });

      a.relay!.dropOn(dropped);
      const canceled = await call(b.gateway, "CancelTask", { id }, { "a2a-version": "1.0" });
      assert.equal(run.cancel.mock.callCount(), 1, "the owner cancelled the run");
      assert.equal(
        canceled.result?.status?.state,
        "TASK_STATE_CANCELED",
        `the sender heard the owner's reply: ${JSON.stringify(canceled)}`,
      );
    },
  );
}

Deno.test({
  name:
    "CancelTask on another instance is answered when the owner's connection drops as it writes the reply",
  ignore: SKIP,
  fn: () => cancelThroughDrop("SET reply"),
});

Deno.test({
  name:
    "CancelTask on another instance reaches the owner when its connection drops as it takes the command",
  ignore: SKIP,
  fn: () => cancelThroughDrop("SET taken"),
});

/**
 * A sender store reaching PostgreSQL through a relay and an owner store
 * reaching it directly, on one schema; `fn` runs with both, a client beside
 * them, and the commands the owner served as "owner" heard (`serve`).
 */
async function withSenderAndOwner(
  fn: (parts: {
    sender: PostgresTaskStore;
    owner: PostgresTaskStore;
    relay: Relay;
    sql: postgres.Sql;
    schema: string;
  }) => Promise<void>,
): Promise<void> {
  const schema = freshSchema();
  const relay = new Relay(new URL(databaseUrl()!));
  relay.open();
  const stores: PostgresTaskStore[] = [];
  const sql = postgres(databaseUrl()!, { max: 1, onnotice: () => {} });
  try {
    stores.push(
      await openStore(schema, { url: relay.url, closeGraceMs: CUT_CLOSE_GRACE_MS }),
      await openStore(schema),
    );
    await fn({ sender: stores[0], owner: stores[1], relay, sql, schema });
  } finally {
    for (const store of stores) await store.close();
    await relay.cut();
    await sql.end({ timeout: 5 });
    await dropSchema(schema);
  }
}

/** Settles once `check` holds, polling every 20 ms for at most `ms`. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 5_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const INSERT = "INSERT INTO commands";

Deno.test({
  name:
    "send() whose connection drops after its command committed answers the owner's reply, the command run once",
  ignore: SKIP,
  fn: () =>
    withSenderAndOwner(async ({ sender, owner, relay }) => {
      const heard: JsonObject[] = [];
      const stop = owner.serve("owner", (command) => {
        heard.push(command);
        return Promise.resolve({ echoed: command.n });
      });
      try {
        // The command's text goes with the statement's execution (its SQL
        // text goes before, to be described).
        relay.severAfter("sever-me");
        assert.deepEqual(await sender.send("owner", { n: 1, s: "sever-me" }, 5_000), {
          echoed: 1,
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(heard, [{ n: 1, s: "sever-me" }], "the owner ran it once");
      } finally {
        stop();
      }
    }),
});

Deno.test({
  name:
    "send() tries its insert again after its connection dropped; the owner that took it runs it once",
  ignore: SKIP,
  fn: () =>
    withSenderAndOwner(async ({ sender, owner, relay, sql, schema }) => {
      const heard: JsonObject[] = [];
      const stop = owner.serve("owner", async (command) => {
        heard.push(command);
        // Answered only once the sender inserted the command again, after
        // this instance took it.
        await until("the sender inserts again", () => relay.sent("sever-me") >= 2);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { echoed: command.n };
      });
      try {
        relay.sent("sever-me");
        relay.severAfter("sever-me");
        assert.deepEqual(await sender.send("owner", { n: 1, s: "sever-me" }, 5_000), {
          echoed: 1,
        });
        assert.equal(relay.sent("sever-me"), 2, "inserted again, once");
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(heard, [{ n: 1, s: "sever-me" }], "the owner ran it once");
        const rows = await sql.unsafe(`SELECT taken FROM "${schema}".commands`);
        assert.deepEqual(rows.map((r) => r.taken), [true], "one row, taken");
      } finally {
        stop();
      }
    }),
});

Deno.test({
  name: "send() that gave up revokes its command: its insert arriving late runs nothing",
  ignore: SKIP,
  fn: () =>
    withSenderAndOwner(async ({ sender, owner, relay, sql, schema }) => {
      const heard: JsonObject[] = [];
      const stop = owner.serve("owner", (command) => {
        heard.push(command);
        return Promise.resolve({ echoed: command.n });
      });
      const release = relay.holdOn(INSERT);
      try {
        await assert.rejects(
          () => sender.send("owner", { n: 1 }, 300),
          (error: Error) => {
            assert.equal((error as TaskStorageError).code, "UNAVAILABLE");
            assert.match(error.message, /instance "owner" did not answer within 300 ms/);
            return true;
          },
        );
        await until("the revoke is stored", async () =>
          (await sql.unsafe(`SELECT 1 FROM "${schema}".commands WHERE taken`)).length === 1);
        release();
        await until("the late insert arrived", () =>
          relay.sent(INSERT) >= 1);
        await new Promise((resolve) =>
          setTimeout(resolve, 300)
        );
        assert.deepEqual(heard, [], "the owner ran nothing");
      } finally {
        release();
        stop();
      }
    }),
});

Deno.test({
  name:
    "a command whose sender gave up and could not revoke it is not run by an owner that comes after its deadline",
  ignore: SKIP,
  fn: () =>
    withSenderAndOwner(async ({ sender, owner, relay, sql, schema }) => {
      const sent = sender.send("late", { n: 1 }, 400);
      const gaveUp = assert.rejects(sent, /instance "late" did not answer within 400 ms/);
      await until("the command is stored", async () =>
        (await sql.unsafe(`SELECT 1 FROM "${schema}".commands`)).length === 1);
      // The sender's database goes out of reach: it cannot revoke the command.
      await relay.cut();
      await gaveUp;
      await until("the deadline passed", async () =>
        (await sql.unsafe(`SELECT 1 FROM "${schema}".commands WHERE deadline < now()`)).length ===
          1);
      const rows = await sql.unsafe(`SELECT taken FROM "${schema}".commands`);
      assert.deepEqual(
        rows.map((r) =>
          r.taken
        ),
        [false],
        "not revoked",
      );
      const heard: JsonObject[] = [];
      const stop = owner.serve("late", (command) => {
        heard.push(command);
        return Promise.resolve({});
      });
      try {
        await new Promise((resolve) =>
          setTimeout(resolve, 300)
        );
        assert.deepEqual(heard, [], "the owner ran nothing");
      } finally {
        stop();
        relay.open();
        // A reconnect the client scheduled while cut off (its backoff is at
        // most a second) fires before the store closes: the client does not
        // cancel it on end().
        await new Promise((resolve) => setTimeout(resolve, 1_200));
      }
    }),
});
