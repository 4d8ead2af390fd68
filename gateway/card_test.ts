// The gateway's agent cards through `gateway.fetch(new Request(...))`, no
// socket: the public card and a provider's, their caching, the extended card
// behind auth, and the extensions a caller must use.
import assert from "node:assert/strict";
import { SEAM_EXTENSION_URI } from "./mod.ts";
import { ALL, BASE, controlledProvider, message, rpc, withSetup } from "./_test_support.ts";

Deno.test("gateway cards", async (t) => {
  await withSetup([controlledProvider({ auto: true })], { cardMaxAge: 30 }, async (s) => {
    const card = () => s.gateway.fetch(new Request(`${BASE}/.well-known/agent-card.json`));

    await t.step(
      "the card lists interfaces, capabilities, the extension and a skill per provider",
      async () => {
        const response = await card();
        // Its URLs come from the request's Host: never cached for another client.
        assert.equal(response.headers.get("cache-control"), "private, max-age=30");
        assert.equal(response.headers.get("vary"), "Host");
        const modified = Date.parse(response.headers.get("last-modified")!);
        assert.ok(Math.abs(Date.now() - modified) < 60_000, "Last-Modified: when the card changed");
        const body = await response.json();
        assert.deepEqual(body.supportedInterfaces, [
          { url: `${BASE}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: BASE, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        ]);
        assert.equal(body.capabilities.streaming, true);
        assert.equal(body.capabilities.pushNotifications, false);
        const ext = body.capabilities.extensions[0];
        assert.equal(ext.uri, SEAM_EXTENSION_URI);
        assert.equal(ext.required, false);
        assert.deepEqual(ext.params.providers.ctl, {
          capabilities: { ...ALL, budget: false }, // declared without one: false
          inheritsParentContext: false,
        });
        assert.deepEqual(body.skills.map((s: { id: string }) => s.id), ["ctl"]);
        assert.match(
          body.skills[0].description,
          /Start-time options through the seam extension: outputSchema, maxDepth, toolFilter, persona\.$/,
        );
        assert.equal(body.securitySchemes, undefined);
      },
    );

    await t.step("If-None-Match with the ETag answers 304", async () => {
      const first = await card();
      const etag = first.headers.get("etag")!;
      await first.body?.cancel();
      assert.match(etag, /^W\/"/);
      const again = await s.gateway.fetch(
        new Request(`${BASE}/.well-known/agent-card.json`, { headers: { "if-none-match": etag } }),
      );
      assert.equal(again.status, 304);
      assert.equal(again.headers.get("etag"), etag);
      assert.equal(again.body, null);
    });

    await t.step("skills mirror providers as they come and go; the ETag follows", async () => {
      const before = (await card()).headers.get("etag");
      const dispose = s.subagents.registerProvider(
        controlledProvider({ name: "late", capabilities: { persona: false } }),
      );
      const during = await card();
      const body = await during.json();
      assert.deepEqual(body.skills.map((s: { id: string }) => s.id), ["ctl", "late"]);
      assert.equal(
        body.capabilities.extensions[0].params.providers.late.capabilities.persona,
        false,
      );
      assert.notEqual(during.headers.get("etag"), before);
      await dispose();
      const after = await (await card()).json();
      assert.deepEqual(after.skills.map((s: { id: string }) => s.id), ["ctl"]);
    });

    await t.step(
      "a provider's own card carries it as the tenant; an unknown one is 404",
      async () => {
        const response = await s.gateway.fetch(
          new Request(`${BASE}/ctl/.well-known/agent-card.json`),
        );
        const body = await response.json();
        assert.ok(body.supportedInterfaces.every((i: { tenant: string }) => i.tenant === "ctl"));
        assert.equal(body.capabilities.extensions[0].params.provider, "ctl");
        const missing = await s.gateway.fetch(
          new Request(`${BASE}/nobody/.well-known/agent-card.json`),
        );
        assert.equal(missing.status, 404);
        await missing.body?.cancel();
      },
    );
  });

  await t.step("publicUrl replaces the request's origin in the card", async () => {
    await withSetup([], { publicUrl: "https://agents.example/a2a/" }, async (s) => {
      const body = await (await s.gateway.fetch(
        new Request(`${BASE}/.well-known/agent-card.json`),
      )).json();
      assert.equal(body.supportedInterfaces[0].url, "https://agents.example/a2a/");
      assert.equal(body.supportedInterfaces[1].url, "https://agents.example/a2a");
    });
  });
});

Deno.test("GetExtendedAgentCard: the extended card behind auth, -32004 when undeclared", async (t) => {
  const auth = { tokens: { alice: "a-token" } };
  await t.step("configured: authenticated callers get the card plus its additions", async () => {
    await withSetup([controlledProvider()], {
      auth,
      extendedCard: {
        description: "For our partners",
        skills: [{ id: "audit", name: "Audit", description: "Audits a repository" }],
      },
    }, async (s) => {
      const publicCard = await (await s.gateway.fetch(
        new Request(`${BASE}/.well-known/agent-card.json`),
      )).json();
      assert.equal(publicCard.capabilities.extendedAgentCard, true);
      assert.ok(!publicCard.skills.some((k: { id: string }) => k.id === "audit"));
      const bearer = { authorization: "Bearer a-token" };
      const rpcCard = await rpc(s.gateway, "GetExtendedAgentCard", {}, bearer);
      assert.equal(rpcCard.result.description, "For our partners");
      assert.ok(rpcCard.result.skills.some((k: { id: string }) => k.id === "audit"));
      const rest = await s.gateway.fetch(
        new Request(`${BASE}/extendedAgentCard`, { headers: bearer }),
      );
      assert.equal((await rest.json()).description, "For our partners");
      const anonymous = await s.gateway.fetch(new Request(`${BASE}/extendedAgentCard`));
      assert.equal(anonymous.status, 401);
      await anonymous.body?.cancel();
    });
  });
  await t.step("undeclared: UnsupportedOperationError (-32004) on both bindings", async () => {
    await withSetup([controlledProvider()], {}, async (s) => {
      const card = await (await s.gateway.fetch(new Request(`${BASE}/.well-known/agent-card.json`)))
        .json();
      assert.equal(card.capabilities.extendedAgentCard, false);
      const answer = await rpc(s.gateway, "GetExtendedAgentCard", {});
      assert.equal(answer.error.code, -32004);
      assert.match(answer.error.message, /declares no extended agent card/);
      const rest = await s.gateway.fetch(new Request(`${BASE}/extendedAgentCard`));
      assert.equal(rest.status, 400);
      assert.equal((await rest.json()).error.details[0].reason, "UNSUPPORTED_OPERATION");
    });
  });
  await t.step("an extended card without auth is refused at creation", async () => {
    await assert.rejects(
      withSetup([], { extendedCard: {} }, () => Promise.resolve()),
      /extendedCard is for authenticated callers; give auth too/,
    );
  });
});

Deno.test("requiredExtensions: declared required, enforced with -32008", async () => {
  const uri = "urn:example:must-use";
  await withSetup([controlledProvider({ auto: true })], {
    requiredExtensions: [{ uri, description: "A contract the caller signs" }],
  }, async (s) => {
    const card = await (await s.gateway.fetch(
      new Request(`${BASE}/.well-known/agent-card.json`),
    )).json();
    assert.deepEqual(card.capabilities.extensions[0], {
      uri,
      description: "A contract the caller signs",
      required: true,
    });
    const missing = await rpc(s.gateway, "SendMessage", { message: message("hi") });
    assert.equal(missing.error.code, -32008);
    assert.match(missing.error.message, /requires the extension "urn:example:must-use"/);
    const rest = await s.gateway.fetch(
      new Request(`${BASE}/message:send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: message("hi") }),
      }),
    );
    assert.equal(rest.status, 400);
    assert.equal((await rest.json()).error.details[0].reason, "EXTENSION_SUPPORT_REQUIRED");
    const byHeader = await rpc(s.gateway, "SendMessage", { message: message("hi") }, {
      "a2a-extensions": uri,
    });
    assert.equal(byHeader.result.task.status.state, "TASK_STATE_COMPLETED");
    const byMessage = await rpc(s.gateway, "SendMessage", {
      message: message("hi", { extensions: [uri] }),
    });
    assert.equal(byMessage.result.task.status.state, "TASK_STATE_COMPLETED");
  });
});
