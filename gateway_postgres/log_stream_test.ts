// A stream an instance serves from the log of a task another instance runs,
// when one of its connections drops as it reads the log: the read is tried
// again from the stream's cursor, and the client sees the task to its end,
// nothing missed, nothing twice. The reader's store reaches PostgreSQL
// through a TCP relay that drops the read undelivered.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway, type Gateway } from "@seam/gateway";
import { controlledProvider } from "../gateway/_test_support.ts";
import type { PostgresTaskStore } from "./mod.ts";
import {
  databaseUrl,
  dropSchema,
  Frames,
  freshSchema,
  openStore,
  Relay,
  SKIP,
  stateOf,
  textOf,
} from "./_test_support.ts";
import { storeInternals } from "./postgres_store.ts";

function post(gateway: Gateway, method: string, params: unknown): Promise<Response> {
  return gateway.fetch(
    new Request("http://gw.test/", {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }),
  );
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + 10_000;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what}: not within 10 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

Deno.test({
  name:
    "SubscribeToTask on another instance goes on to the task's end when a connection drops as it reads the log",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const url = new URL(databaseUrl()!);
    const relay = new Relay(url);
    relay.open();
    const stores: PostgresTaskStore[] = [];
    const roots: ReturnType<typeof createRootScope>[] = [];
    const gateways: Gateway[] = [];
    const emitters: ((runId: string, text: string) => void)[] = [];
    const provider = controlledProvider();
    const readerLog = createMemoryLogger();
    let watch: Frames | undefined;
    try {
      // a runs the task; b (through the relay) serves its stream from the log.
      stores.push(await openStore(schema));
      stores.push(await openStore(schema, { url: relay.url }));
      for (const [n, store] of stores.entries()) {
        const root = createRootScope({
          logger: n === 0 ? createMemoryLogger().logger : readerLog.logger,
        });
        roots.push(root);
        createSubagentService(root).registerProvider(n === 0 ? provider : controlledProvider());
        gateways.push(createGateway({
          scope: root,
          taskStore: store,
          progress: n === 0 ? (_parent, emit) => void emitters.push(emit) : undefined,
        }));
      }
      const [a, b] = gateways;
      const sent = await (await post(a, "SendMessage", {
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "go" }] },
        configuration: { returnImmediately: true },
      })).json();
      const id: string = sent.result.task.id;
      const run = provider.runs[0];
      run.ready();

      watch = new Frames(await post(b, "SubscribeToTask", { id }));
      const seen = [(await watch.next())!];
      assert.equal(seen[0].data.task?.id, id);
      emitters[0](run.id, "one ");
      seen.push(...await watch.until((f) => textOf(f.data) === "one "));
      // b says in the database that it listens (so a's appends wake it): the
      // next statement b sends naming the task is then a read of its log.
      const sql = storeInternals(stores[0], "a test").sql;
      await eventually(
        "b's watchers row",
        async () =>
          (await sql`SELECT count(*)::integer AS n FROM watchers WHERE task_id = ${id}`)[0].n > 0 ||
          undefined,
      );

      relay.dropOn(id);
      emitters[0](run.id, "two ");
      seen.push(...await watch.until((f) => textOf(f.data) === "two " || f.data.error));
      run.finish({ output: [{ type: "text", text: "one two " }], stopReason: "completed" });
      seen.push(...await watch.rest());

      assert.equal(
        stateOf(seen.at(-1)!.data),
        "TASK_STATE_COMPLETED",
        `the stream reached the task's end: ${JSON.stringify(seen.at(-1))}`,
      );
      assert.deepEqual(
        seen.map((f) => f.id),
        seen.map((_, i) => seen[0].id + i),
        "consecutive ids: nothing missed, nothing twice",
      );
      const deltas = seen.filter((f) => f.data.artifactUpdate?.lastChunk === false)
        .map((f) => textOf(f.data));
      assert.deepEqual(deltas, ["one ", "two "], "each text once, in order");
      assert.ok(
        readerLog.records.some((r) => /Reading the log .* trying again/.test(r.message)),
        "b's read of the log was dropped with its connection",
      );
    } finally {
      for (const run of provider.runs) run.finish({ output: "", stopReason: "completed" });
      await watch?.cancel().catch(() => {});
      for (const gateway of gateways) await gateway.close();
      for (const root of roots) await root.dispose();
      for (const store of stores) await store.close();
      await relay.cut();
      await dropSchema(schema);
    }
  },
});
