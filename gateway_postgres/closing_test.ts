// Closing one of two gateways on one PostgreSQL schema (each on its own
// store, in this process): every stream it serves ends, those of tasks the
// other instance runs (read from the log) included, and a client resumes on
// the other with Last-Event-ID, missing nothing.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway, type Gateway } from "@seam/gateway";
import { controlledProvider } from "../gateway/_test_support.ts";
import type { PostgresTaskStore } from "./mod.ts";
import { dropSchema, Frames, freshSchema, openStore, SKIP, stateOf } from "./_test_support.ts";

function post(gateway: Gateway, method: string, params: unknown, lastEventId?: string) {
  return gateway.fetch(
    new Request("http://gw.test/", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "a2a-version": "1.0",
        ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }),
  );
}

/** Start a task on `gateway`, answered at once; its id. */
async function startTask(gateway: Gateway): Promise<string> {
  const sent = await (await post(gateway, "SendMessage", {
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "go" }] },
    configuration: { returnImmediately: true },
  })).json();
  return sent.result.task.id;
}

/** `promise`, or a failure naming `what` after `ms` (not a timing assertion: far above the bound). */
async function within<T>(promise: Promise<T>, what: string, ms = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test({
  name: "Gateway.close() ends the streams it reads from the log of a task another instance runs",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const stores: PostgresTaskStore[] = [];
    const roots: ReturnType<typeof createRootScope>[] = [];
    const gateways: Gateway[] = [];
    const streams: Frames[] = [];
    const provider = controlledProvider();
    try {
      for (let n = 0; n < 2; n++) {
        const store = await openStore(schema);
        stores.push(store);
        const root = createRootScope({ logger: createMemoryLogger().logger });
        roots.push(root);
        createSubagentService(root).registerProvider(n === 0 ? provider : controlledProvider());
        gateways.push(createGateway({ scope: root, taskStore: store }));
      }
      const [a, b] = gateways;
      const id = await startTask(a);
      const run = provider.runs[0];
      run.ready();

      // b serves a stream of a's task, read from the log.
      const watch = new Frames(await post(b, "SubscribeToTask", { id }));
      streams.push(watch);
      const seen = [(await watch.next())!];
      assert.equal(seen[0].data.task?.id, id);

      await within(b.close(), "b.close()");
      seen.push(...await within(watch.rest(), "the end of b's stream after b.close()"));
      assert.notEqual(stateOf(seen.at(-1)!.data), "TASK_STATE_COMPLETED", "ended before the task");

      // The client resumes on a where it left off; the task ends there.
      const resumed = new Frames(
        await post(a, "SubscribeToTask", { id }, String(seen.at(-1)!.id)),
      );
      streams.push(resumed);
      run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
      const rest = await within(resumed.rest(), "the end of the resumed stream");
      assert.equal(stateOf(rest.at(-1)!.data), "TASK_STATE_COMPLETED");
      assert.equal(rest[0].id, seen.at(-1)!.id + 1, "nothing missed, nothing twice");
    } finally {
      for (const run of provider.runs) run.finish({ output: "", stopReason: "completed" });
      for (const stream of streams) await stream.cancel().catch(() => {});
      for (const gateway of gateways) await gateway.close();
      for (const root of roots) await root.dispose();
      for (const store of stores) await store.close();
      await dropSchema(schema);
    }
  },
});

Deno.test({
  name:
    "Gateway.close() while a SubscribeToTask reads the storage: the request is refused, no stream is left open",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const stores: PostgresTaskStore[] = [];
    const roots: ReturnType<typeof createRootScope>[] = [];
    const gateways: Gateway[] = [];
    const provider = controlledProvider();
    let release = () => {};
    let watch: Frames | undefined;
    try {
      // b's storage holds its reads of the task while `gated`, as a slow database would.
      let gated = false;
      let reached = () => {};
      const reading = new Promise<void>((resolve) => reached = resolve);
      const held = new Promise<void>((resolve) => release = resolve);
      for (let n = 0; n < 2; n++) {
        const store = await openStore(schema);
        stores.push(store);
        const root = createRootScope({ logger: createMemoryLogger().logger });
        roots.push(root);
        createSubagentService(root).registerProvider(n === 0 ? provider : controlledProvider());
        const storage = n === 0 ? store : new Proxy(store, {
          get(target, key) {
            const value = Reflect.get(target, key, target);
            if (key === "get") {
              return async (...args: unknown[]) => {
                if (gated) {
                  reached();
                  await held;
                }
                return await value.apply(target, args);
              };
            }
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        gateways.push(createGateway({ scope: root, taskStore: storage }));
      }
      const [a, b] = gateways;
      const id = await startTask(a);
      provider.runs[0].ready();

      gated = true;
      const answer = post(b, "SubscribeToTask", { id });
      await within(reading, "b reading the task");
      const closing = b.close();
      release();
      const response = await within(answer, "b's answer");
      if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
        // An answer as a stream must end with the gateway, not with the task.
        watch = new Frames(response);
        await within(watch.rest(), "the end of b's stream");
      } else {
        assert.match(await response.text(), /shutting down|closing|closed/i);
      }
      await within(closing, "b.close()");
    } finally {
      release();
      for (const run of provider.runs) run.finish({ output: "", stopReason: "completed" });
      await watch?.cancel().catch(() => {});
      for (const gateway of gateways) await gateway.close();
      for (const root of roots) await root.dispose();
      for (const store of stores) await store.close();
      await dropSchema(schema);
    }
  },
});
