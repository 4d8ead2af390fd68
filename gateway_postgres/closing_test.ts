// Closing one of two gateways on one PostgreSQL schema (each on its own
// store, in this process): every stream it serves ends, those of tasks the
// other instance runs (read from the log) included, and a client resumes on
// the other with Last-Event-ID, missing nothing.
import assert from "node:assert/strict";
import type { Gateway, TaskStorage } from "@seam/gateway";
import type { PostgresTaskStore } from "./mod.ts";
import { rpcRequest } from "../gateway/_test_support.ts";
import { within } from "../gateway/cluster/_cluster_test_support.ts";
import { Frames, SKIP, startTask, stateOf, withGateways } from "./_test_support.ts";

const V1 = { "a2a-version": "1.0" };

function post(gateway: Gateway, method: string, params: unknown, lastEventId?: string) {
  return gateway.fetch(rpcRequest(method, params, {
    ...V1,
    ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
  }));
}

Deno.test({
  name: "Gateway.close() ends the streams it reads from the log of a task another instance runs",
  ignore: SKIP,
  fn: () =>
    withGateways(2, {}, async (instances) => {
      const [a, b] = instances.map((i) => i.gateway);
      const streams: Frames[] = [];
      try {
        const { id, run } = await startTask(instances[0], V1);

        // b serves a stream of a's task, read from the log.
        const watch = new Frames(await post(b, "SubscribeToTask", { id }));
        streams.push(watch);
        const seen = [(await watch.next())!];
        assert.equal(seen[0].data.task?.id, id);

        await within(5_000, "b.close()", b.close());
        seen.push(
          ...await within(5_000, "the end of b's stream after b.close()", watch.rest()),
        );
        assert.notEqual(
          stateOf(seen.at(-1)!.data),
          "TASK_STATE_COMPLETED",
          "ended before the task",
        );

        // The client resumes on a where it left off; the task ends there.
        const resumed = new Frames(
          await post(a, "SubscribeToTask", { id }, String(seen.at(-1)!.id)),
        );
        streams.push(resumed);
        run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
        const rest = await within(5_000, "the end of the resumed stream", resumed.rest());
        assert.equal(stateOf(rest.at(-1)!.data), "TASK_STATE_COMPLETED");
        assert.equal(rest[0].id, seen.at(-1)!.id + 1, "nothing missed, nothing twice");
      } finally {
        for (const stream of streams) await stream.cancel().catch(() => {});
      }
    }),
});

Deno.test({
  name:
    "Gateway.close() while a SubscribeToTask reads the storage: the request is refused, no stream is left open",
  ignore: SKIP,
  fn: async () => {
    // b's storage holds its reads of the task while `gated`, as a slow database would.
    let gated = false;
    const reading = Promise.withResolvers<void>();
    const held = Promise.withResolvers<void>();
    const gate = (store: PostgresTaskStore): TaskStorage =>
      new Proxy(store, {
        get(target, key) {
          const value = Reflect.get(target, key, target);
          if (key === "get") {
            return async (...args: unknown[]) => {
              if (gated) {
                reading.resolve();
                await held.promise;
              }
              return await value.apply(target, args);
            };
          }
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    let watch: Frames | undefined;
    await withGateways(
      2,
      { gateway: ({ n, store }) => n === 1 ? { taskStore: gate(store) } : {} },
      async (instances) => {
        const b = instances[1].gateway;
        try {
          const { id } = await startTask(instances[0], V1);

          gated = true;
          const answer = post(b, "SubscribeToTask", { id });
          await within(5_000, "b reading the task", reading.promise);
          const closing = b.close();
          held.resolve();
          const response = await within(5_000, "b's answer", answer);
          if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
            // An answer as a stream must end with the gateway, not with the task.
            watch = new Frames(response);
            await within(5_000, "the end of b's stream", watch.rest());
          } else {
            assert.match(await response.text(), /shutting down|closing|closed/i);
          }
          await within(5_000, "b.close()", closing);
        } finally {
          held.resolve();
          await watch?.cancel().catch(() => {});
        }
      },
    );
  },
});
