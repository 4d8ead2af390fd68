// Steering a task on PostgreSQL: two gateways in this process, each on its
// own store (its own connections) over one schema, as two instances.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway, type Gateway } from "@seam/gateway";
import { controlledProvider } from "../gateway/_test_support.ts";
import type { PostgresTaskStore } from "./mod.ts";
import { dropSchema, freshSchema, openStore, SKIP, type Wire } from "./_test_support.ts";

async function call(gateway: Gateway, method: string, params: unknown): Promise<Wire> {
  return await (await gateway.fetch(
    new Request("http://gw.test/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }),
  )).json();
}

const text = (value: string, extra: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: "ROLE_USER",
  parts: [{ text: value }],
  ...extra,
});

Deno.test({
  name: "a steering message the run takes as its task ends is stored on PostgreSQL",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    const stores: PostgresTaskStore[] = [];
    const parts: { gateway: Gateway; dispose(): Promise<void> }[] = [];
    try {
      stores.push(await openStore(schema));
      stores.push(await openStore(schema));
      const provider = controlledProvider({ steer: true });
      for (const [n, store] of stores.entries()) {
        const root = createRootScope({ logger: createMemoryLogger().logger });
        if (n === 0) createSubagentService(root).registerProvider(provider);
        else createSubagentService(root).registerProvider(controlledProvider({ steer: true }));
        const gateway = createGateway({ scope: root, taskStore: store });
        parts.push({ gateway, dispose: () => root.dispose() });
      }
      const [a, b] = parts.map((p) => p.gateway);
      const sent = await call(a, "SendMessage", {
        message: text("go"),
        configuration: { returnImmediately: true },
      });
      const id: string = sent.result.task.id;
      const run = provider.runs[0];
      run.ready();
      // The run takes the message only once it has ended and that end is
      // committed: the race that lost it.
      run.onSend = async () => {
        run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
        while ((await stores[0].get(id))?.task.status.state !== "TASK_STATE_COMPLETED") {
          await new Promise((r) => setTimeout(r, 10));
        }
        await new Promise((r) => setTimeout(r, 50));
      };
      const steered = await call(b, "SendMessage", {
        message: text("one more thing", { taskId: id }),
        configuration: { returnImmediately: true },
      });
      assert.equal(steered.result?.task?.id, id, JSON.stringify(steered));
      assert.deepEqual(run.sent, [[{ type: "text", text: "one more thing" }]]);
      const got = await call(b, "GetTask", { id });
      assert.equal(got.result.status.state, "TASK_STATE_COMPLETED");
      assert.deepEqual(got.result.history.map((m: Wire) => m.parts[0].text), [
        "go",
        "one more thing",
      ]);
      const log = await stores[1].read(id, 0, 100);
      assert.equal(
        JSON.stringify(log.at(-1)!.event.task),
        JSON.stringify(got.result),
        "the last entry is the task as it now is",
      );
    } finally {
      for (const p of parts) await p.gateway.close();
      for (const p of parts) await p.dispose();
      for (const store of stores) await store.close();
      await dropSchema(schema);
    }
  },
});
