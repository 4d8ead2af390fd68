import assert from "node:assert/strict";
import {
  createHost,
  createMemoryLogger,
  createRootScope,
  createScriptedModel,
  hostKey,
} from "./mod.ts";

Deno.test("createHost() builds the registries and provides the host in its root scope", async () => {
  const { logger } = createMemoryLogger();
  const host = createHost({ logger });
  assert.equal(host.logger, logger);
  assert.equal(host.scope.parent, undefined);
  assert.equal(host.scope.inject(hostKey), host);
  assert.equal(host.scope.child("deep").child("deeper").inject(hostKey), host);
  assert.ok(Object.isFrozen(host));
  for (const key of ["agents", "tools", "prompts", "models"] as const) {
    assert.equal(typeof host[key], "object", key);
  }
  await host.scope.dispose();
});

Deno.test("createHost() can adopt an existing scope", async () => {
  const { logger } = createMemoryLogger();
  const app = createRootScope({ logger, label: "app" });
  const host = createHost({ scope: app });
  assert.equal(host.scope, app);
  assert.equal(host.logger, logger, "the scope's logger by default");
  assert.throws(() => createHost({ scope: app }), /already provided/);
  host.models.register(app, "m", createScriptedModel());
  const agent = await host.agents.create({ options: { model: "m" } });
  agent.send("@hang");
  await app.dispose();
  assert.equal(agent.state, "disposed");
  assert.equal((await agent.whenIdle()).reason, "aborted");
  assert.deepEqual(host.agents.list(), []);
});

Deno.test("createHost() refuses an unknown option, naming the known ones", () => {
  assert.throws(
    () => createHost({ loger: createMemoryLogger().logger } as never),
    {
      name: "TypeError",
      message: "Cannot create the host: unknown option loger (known: logger, scope)",
    },
  );
});
