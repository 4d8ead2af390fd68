// The gateway mounted inside an existing Hono app under a base path, driven
// over loopback by the @a2a-js/sdk client made from the mounted card.
import assert from "node:assert/strict";
import { Hono } from "hono";
import type { Task } from "@a2a-js/sdk";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway } from "../gateway/mod.ts";
import { BINDINGS, makeClient, sendRequest, userMessage } from "./gateway_support.ts";
import { createReferenceProvider } from "./reference_provider.ts";

Deno.test("createGateway({ basePath }) lives inside a Hono app; the SDK client finds it by its card", async (t) => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  subagents.registerProvider(createReferenceProvider());
  const gateway = createGateway({ scope: root, basePath: "/a2a" });
  const app = new Hono();
  app.get("/", (c) => c.text("the app's own page"));
  app.all("/a2a/*", (c) => gateway.fetch(c.req.raw));
  app.all("/a2a", (c) => gateway.fetch(c.req.raw));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}`;
  try {
    await t.step("the card's interfaces carry the base path", async () => {
      const card = await (await fetch(`${url}/a2a/.well-known/agent-card.json`)).json();
      assert.deepEqual(
        card.supportedInterfaces.map((i: { url: string }) => i.url),
        [`${url}/a2a/`, `${url}/a2a`],
      );
      assert.equal(await (await fetch(`${url}/`)).text(), "the app's own page");
    });
    for (const binding of BINDINGS) {
      await t.step(`${binding}: a message completes through the mounted gateway`, async () => {
        const client = await makeClient(url, binding, {
          cardPath: "/a2a/.well-known/agent-card.json",
        });
        const task = await client.sendMessage(
          sendRequest(userMessage("complete mounted")),
        ) as Task;
        assert.equal(task.status?.state, 3 /* TASK_STATE_COMPLETED */);
        const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
        assert.equal(got.id, task.id);
      });
    }
    await t.step("a path outside the base answers 404 from the gateway", async () => {
      const response = await gateway.fetch(
        new Request(`${url}/message:send`, { method: "POST", body: "{}" }),
      );
      assert.equal(response.status, 404);
      await response.body?.cancel();
    });
  } finally {
    await gateway.close();
    await server.shutdown();
    await root.dispose();
  }
});
