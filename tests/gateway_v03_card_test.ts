// The card an A2A 0.3 client reads beside the 1.0 one, over real loopback
// HTTP: its 0.3 fields and interfaces, a provider's card, the addresses
// under basePath, and the authenticated extended card and required
// extensions, read by `@a2a-js/sdk`'s 0.3 compatibility client.
import assert from "node:assert/strict";
import { Client, ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import {
  LegacyJsonRpcTransport,
  LegacyRestTransport,
  parseLegacyAgentCard,
} from "@a2a-js/sdk/compat/v0_3/client";
import { SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import {
  asTask,
  BINDINGS,
  card03,
  client03,
  rest,
  sendRequest,
  textOf,
  userMessage,
  withGateway,
} from "./gateway_support.ts";

Deno.test("gateway a2a03: the card", async (t) => {
  await withGateway({ a2a03: true }, async (served) => {
    await t.step("without A2A-Version: the 1.0 card plus the fields 0.3 clients read", async () => {
      const response = await fetch(`${served.url}/.well-known/agent-card.json`);
      assert.match(response.headers.get("vary") ?? "", /A2A-Version/);
      const card = await response.json();
      assert.equal(card.protocolVersion, "0.3");
      assert.equal(card.url, `${served.url}/`);
      assert.equal(card.preferredTransport, "JSONRPC");
      assert.deepEqual(card.additionalInterfaces, [
        { url: `${served.url}/`, transport: "JSONRPC" },
        { url: served.url, transport: "HTTP+JSON" },
      ]);
      assert.equal(card.supportsAuthenticatedExtendedCard, false);
      assert.deepEqual(
        card.supportedInterfaces.map((i: Record<string, string>) =>
          `${i.protocolBinding}@${i.protocolVersion}`
        ),
        ["JSONRPC@1.0", "HTTP+JSON@1.0", "JSONRPC@0.3", "HTTP+JSON@0.3"],
      );
    });

    await t.step(
      "with A2A-Version: 1.0: no 0.3 fields; the 0.3 interfaces after the 1.0 ones",
      async () => {
        const response = await fetch(`${served.url}/.well-known/agent-card.json`, {
          headers: { "a2a-version": "1.0" },
        });
        const card = await response.json();
        for (
          const field of ["url", "preferredTransport", "additionalInterfaces", "protocolVersion"]
        ) {
          assert.equal(field in card, false, field);
        }
        assert.equal(card.supportedInterfaces.length, 4);
        assert.equal(card.supportedInterfaces[0].protocolVersion, "1.0");
        assert.equal(card.supportedInterfaces[1].protocolVersion, "1.0");
      },
    );

    for (const binding of BINDINGS) {
      await t.step(
        `the 1.0 SDK client (legacy compat on) still picks 1.0 over ${binding}`,
        async () => {
          const factory = new ClientFactory(
            ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
              preferredTransports: [binding],
            }),
          );
          const client = await factory.createFromUrl(served.url);
          assert.equal(client.protocolVersion, "1.0");
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete v1"))));
          assert.equal(textOf(task), "v1");
        },
      );

      await t.step(
        `a provider's card gives 0.3 addresses of that provider (${binding})`,
        async () => {
          const card = await card03(served, "/bare/.well-known/agent-card.json");
          assert.equal(card.url, `${served.url}/bare/`);
          const client = await client03(served, binding, "/bare/.well-known/agent-card.json");
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete bare"))));
          assert.equal(textOf(task), "bare");
          const seam = task.metadata?.[SEAM_EXTENSION_URI] as Record<string, unknown>;
          assert.equal(seam.provider, "bare");
          const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
          assert.equal(got.id, task.id);
        },
      );
    }
  });

  await t.step("off by default: the card has no 0.3 field and no 0.3 interface", async () => {
    await withGateway({}, async (served) => {
      const response = await fetch(`${served.url}/.well-known/agent-card.json`);
      assert.equal((response.headers.get("vary") ?? "").includes("A2A-Version"), false);
      const card = await response.json();
      assert.equal("url" in card, false);
      assert.equal(card.supportedInterfaces.length, 2);
    });
  });

  await t.step(
    "with auth: 0.3 security schemes for 0.3, 1.0 ones for 1.0; a 0.3 client with its token",
    async () => {
      await withGateway({ a2a03: true, auth: { tokens: { alice: "tok-a" } } }, async (served) => {
        const c03 = await card03(served);
        assert.deepEqual(
          (c03.securitySchemes as Record<string, Record<string, string>>).bearer.type,
          "http",
        );
        assert.deepEqual(c03.security, [{ bearer: [] }]);
        const c10 = await (await fetch(`${served.url}/.well-known/agent-card.json`, {
          headers: { "a2a-version": "1.0" },
        })).json();
        assert.ok(c10.securitySchemes.bearer.httpAuthSecurityScheme);
        const refused = await rest(served, "POST", "/v1/message:send", {
          message: { messageId: "m", role: "ROLE_USER", content: [{ text: "complete x" }] },
        });
        assert.equal(refused.status, 401);
        assert.equal(typeof refused.body.code, "number");
        assert.match(refused.headers.get("www-authenticate") ?? "", /Bearer/);
        const fetchImpl: typeof fetch = (input, init) => {
          const headers = new Headers(init?.headers);
          headers.set("authorization", "Bearer tok-a");
          return fetch(input, { ...init, headers });
        };
        for (
          const transport of [
            new LegacyJsonRpcTransport({ endpoint: `${served.url}/`, fetchImpl }),
            new LegacyRestTransport({ endpoint: served.url, fetchImpl }),
          ]
        ) {
          const client = new Client(transport, parseLegacyAgentCard(c03));
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete mine"))));
          assert.equal(textOf(task), "mine");
        }
      });
    },
  );
});

Deno.test("gateway a2a03 under basePath: the 0.3 addresses include it", async (t) => {
  await withGateway({ a2a03: true, basePath: "/a2a" }, async (served) => {
    for (const binding of BINDINGS) {
      for (
        const card of ["/a2a/.well-known/agent-card.json", "/a2a/bare/.well-known/agent-card.json"]
      ) {
        await t.step(`${binding} from ${card}`, async () => {
          const client = await client03(served, binding, card);
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete based"))));
          assert.equal(textOf(task), "based");
          const seam = task.metadata?.[SEAM_EXTENSION_URI] as Record<string, unknown>;
          assert.equal(seam.provider, card.includes("bare") ? "bare" : "reference");
        });
      }
    }
    assert.ok(served.requests.includes("POST /a2a/bare/"));
    assert.ok(served.requests.includes("POST /a2a/bare/v1/message:send"));
  });
});

Deno.test("gateway a2a03: the authenticated extended card and required extensions, in 0.3", async (t) => {
  const EXT = "https://example.com/ext/must/v1";
  await withGateway({
    a2a03: true,
    auth: { tokens: { alice: "tok-a" } },
    extendedCard: {
      description: "For alice",
      skills: [{ id: "secret", name: "secret", description: "shown to callers with a token" }],
    },
    requiredExtensions: [{ uri: EXT, description: "must be on" }],
  }, async (served) => {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", "Bearer tok-a");
      return fetch(input, { ...init, headers });
    };
    const c03 = await card03(served);
    assert.equal(c03.supportsAuthenticatedExtendedCard, true);
    for (const binding of BINDINGS) {
      await t.step(`the SDK's 0.3 client reads the extended card (${binding})`, async () => {
        const transport = binding === "JSONRPC"
          ? new LegacyJsonRpcTransport({ endpoint: `${served.url}/`, fetchImpl })
          : new LegacyRestTransport({ endpoint: served.url, fetchImpl });
        const card = await transport.getExtendedAgentCard({ tenant: "" });
        assert.equal(card.description, "For alice");
        assert.ok(card.skills.some((s) => s.id === "secret"));
        assert.ok(card.supportedInterfaces.some((i) => i.protocolBinding === binding));
      });
      await t.step(
        `a message without the required extension is -32008, with it accepted (${binding})`,
        async () => {
          const transport = binding === "JSONRPC"
            ? new LegacyJsonRpcTransport({ endpoint: `${served.url}/`, fetchImpl })
            : new LegacyRestTransport({ endpoint: served.url, fetchImpl });
          const client = new Client(transport, parseLegacyAgentCard(c03));
          await assert.rejects(
            client.sendMessage(sendRequest(userMessage("complete x"))),
            /Extension support required.*X-A2A-Extensions/,
          );
          const task = asTask(
            await client.sendMessage(sendRequest(userMessage("complete y")), {
              serviceParameters: { "X-A2A-Extensions": EXT },
            }),
          );
          assert.equal(textOf(task), "y");
          const viaMessage = asTask(
            await client.sendMessage(sendRequest(userMessage("complete z", { extensions: [EXT] }))),
          );
          assert.equal(textOf(viaMessage), "z");
        },
      );
    }
  });
});
