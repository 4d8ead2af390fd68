// A stream an instance serves from the log of a task another instance runs,
// when one of its connections drops as it reads the log: the read is tried
// again from the stream's cursor, and the client sees the task to its end,
// nothing missed, nothing twice. The reader's store reaches PostgreSQL
// through a TCP relay that drops the read undelivered.
import assert from "node:assert/strict";
import type { Gateway } from "@seam/gateway";
import { rpcRequest } from "../gateway/_test_support.ts";
import {
  eventually,
  Frames,
  SKIP,
  startTask,
  stateOf,
  textOf,
  withGateways,
} from "./_test_support.ts";
import { storeInternals } from "./postgres_store.ts";

const V1 = { "a2a-version": "1.0" };

function post(gateway: Gateway, method: string, params: unknown): Promise<Response> {
  return gateway.fetch(rpcRequest(method, params, V1));
}

Deno.test({
  name:
    "SubscribeToTask on another instance goes on to the task's end when a connection drops as it reads the log",
  ignore: SKIP,
  fn: () =>
    // a runs the task; b (through the relay) serves its stream from the log.
    withGateways(2, { relayed: [1] }, async (instances) => {
      const [a, b] = instances;
      let watch: Frames | undefined;
      try {
        const { id, run } = await startTask(a, V1);

        watch = new Frames(await post(b.gateway, "SubscribeToTask", { id }));
        const seen = [(await watch.next())!];
        assert.equal(seen[0].data.task?.id, id);
        a.emit(0, "one ");
        seen.push(...await watch.until((f) => textOf(f.data) === "one "));
        // b says in the database that it listens (so a's appends wake it): the
        // next statement b sends naming the task is then a read of its log.
        const sql = storeInternals(a.store, "a test").sql;
        await eventually(
          "b's watchers row",
          async () =>
            (await sql`SELECT count(*)::integer AS n FROM watchers WHERE task_id = ${id}`)[0].n >
              0 ||
            undefined,
        );

        b.relay!.dropOn(id);
        a.emit(0, "two ");
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
          b.log.records.some((r) => /Reading the log .* trying again/.test(r.message)),
          "b's read of the log was dropped with its connection",
        );
      } finally {
        await watch?.cancel().catch(() => {});
      }
    }),
});
