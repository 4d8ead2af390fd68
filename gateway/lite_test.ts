import assert from "node:assert/strict";
import { createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway } from "./lite.ts";
import { controlledProvider, message, rpc } from "./_test_support.ts";
import { createMemoryTaskStore } from "./memory/memory_task_store.ts";

Deno.test("createGateway() from lite serves A2A 1.0: a message in, a completed task out", async () => {
  const root = createRootScope();
  createSubagentService(root).registerProvider(controlledProvider({ auto: true }));
  const gateway = createGateway({ scope: root });
  try {
    const card = await (await gateway.fetch(
      new Request("http://gw.test/.well-known/agent-card.json"),
    )).json();
    assert.equal(card.capabilities.pushNotifications, false);
    assert.deepEqual(
      card.supportedInterfaces.map((i: { protocolVersion: string }) => i.protocolVersion),
      ["1.0", "1.0"],
    );
    const sent = await rpc(gateway, "SendMessage", { message: message("hi") });
    assert.equal(sent.result.task.status.state, "TASK_STATE_COMPLETED");
    const push = await rpc(gateway, "CreateTaskPushNotificationConfig", {
      taskId: sent.result.task.id,
      url: "https://example.com/hook",
    });
    assert.equal(push.error.code, -32003, "push notifications are not supported");
  } finally {
    await gateway.close();
    await root.dispose();
  }
});

Deno.test("createGateway() from lite refuses a2a03, push, inspector, mounts and a shared store, naming each", async () => {
  const root = createRootScope();
  createSubagentService(root);
  try {
    for (
      const [options, pattern] of [
        [{ a2a03: true }, /a2a03 needs createGateway from @seam\/gateway .*A2A 0\.3/],
        [{ push: {} }, /push needs createGateway from @seam\/gateway .*push notifications/],
        [{ inspector: true }, /inspector needs createGateway from @seam\/gateway .*run inspector/],
        [
          { mounts: { "/mcp": () => new Response() } },
          /mounts needs createGateway from @seam\/gateway .*mounted endpoints/,
        ],
        [
          { taskStore: createMemoryTaskStore({ shared: true }) },
          /a shared taskStore needs createGateway from @seam\/gateway/,
        ],
      ] as const
    ) {
      assert.throws(
        () => createGateway({ scope: root, ...options }),
        (error: Error) => error instanceof TypeError && pattern.test(error.message),
      );
    }
    // Options it has are checked as @seam/gateway checks them.
    assert.throws(
      () => createGateway({ scope: root, a2a03: "yes" as never }),
      /a2a03 must be a boolean/,
    );
  } finally {
    await root.dispose();
  }
});

Deno.test("createGateway() from lite refuses an unknown option, naming it and the known ones", async () => {
  const root = createRootScope();
  createSubagentService(root);
  const refused = (options: Record<string, unknown>, pattern: RegExp) =>
    assert.throws(
      () => createGateway({ scope: root, ...options }),
      (error: Error) => error instanceof TypeError && pattern.test(error.message),
    );
  try {
    // A misspelt `inspector` meant a 404 page, silently.
    refused(
      { inspecter: true },
      /^Cannot create gateway: unknown option inspecter \(known: scope, subagents, .*inspector, mounts\)$/,
    );
    refused(
      { limits: { maxLiveTask: 5 } },
      /unknown option limits\.maxLiveTask \(known: maxLiveTasks, .*maxStreamBufferBytes\)/,
    );
  } finally {
    // Nothing was made: the refusals come before the gateway is built.
    await root.dispose();
  }
});
