// The commands one gateway instance forwards to another (CancelTask, steering
// messages) when the owner's connection drops as it takes one or answers it:
// the sender still hears what the owner did. The owner's store reaches
// PostgreSQL through a TCP relay that drops a statement undelivered.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway, type Gateway } from "@seam/gateway";
import { controlledProvider } from "../gateway/_test_support.ts";
import type { PostgresTaskStore } from "./mod.ts";
import { databaseUrl, dropSchema, freshSchema, openStore, Relay, SKIP } from "./_test_support.ts";

async function call(gateway: Gateway, method: string, params: unknown) {
  const response = await gateway.fetch(
    new Request("http://gw.test/", {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }),
  );
  return await response.json();
}

/**
 * Start a task on a gateway whose store reaches PostgreSQL through a relay
 * that drops the first statement carrying `dropped`, then CancelTask it on a
 * second gateway; the run is cancelled and the second answers CANCELED.
 */
async function cancelThroughDrop(dropped: string): Promise<void> {
  const schema = freshSchema();
  const url = new URL(databaseUrl()!);
  const relay = new Relay(url);
  relay.open();
  const stores: PostgresTaskStore[] = [];
  const parts: { gateway: Gateway; dispose(): Promise<void> }[] = [];
  const provider = controlledProvider();
  try {
    stores.push(await openStore(schema, { url: relay.url }));
    stores.push(await openStore(schema));
    for (const [n, store] of stores.entries()) {
      const root = createRootScope({ logger: createMemoryLogger().logger });
      createSubagentService(root).registerProvider(n === 0 ? provider : controlledProvider());
      // The sender waits cancelTimeoutMs + 2 s for the reply.
      const gateway = createGateway({ scope: root, taskStore: store, cancelTimeoutMs: 100 });
      parts.push({ gateway, dispose: () => root.dispose() });
    }
    const [a, b] = parts.map((p) => p.gateway);
    const sent = await call(a, "SendMessage", {
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "go" }] },
      configuration: { returnImmediately: true },
    });
    const id: string = sent.result.task.id;
    provider.runs[0].ready();

    relay.dropOn(dropped);
    const canceled = await call(b, "CancelTask", { id });
    assert.equal(provider.runs[0].cancel.mock.callCount(), 1, "the owner cancelled the run");
    assert.equal(
      canceled.result?.status?.state,
      "TASK_STATE_CANCELED",
      `the sender heard the owner's reply: ${JSON.stringify(canceled)}`,
    );
  } finally {
    for (const run of provider.runs) run.finish({ output: "", stopReason: "completed" });
    for (const p of parts) await p.gateway.close();
    for (const p of parts) await p.dispose();
    for (const store of stores) await store.close();
    await relay.cut();
    await dropSchema(schema);
  }
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
