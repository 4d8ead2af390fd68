// Which A2A version a request is served in, over real loopback HTTP: its
// A2A-Version header's, else its JSON-RPC method's or its HTTP+JSON route's;
// one task read in both versions' forms; 0.3 off by default.
import assert from "node:assert/strict";
import { error, message03, rest, rpc, withGateway } from "./gateway_support.ts";

Deno.test("gateway a2a03: a request's version is its header's, else its method's or route's", async (t) => {
  await withGateway({ a2a03: true }, async (served) => {
    await t.step("a 1.0 method without the header stays 1.0", async () => {
      const { body } = await rpc(served, "SendMessage", {
        message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "complete one" }] },
      });
      const result = body.result as { task: { status: { state: string } } };
      assert.equal(result.task.status.state, "TASK_STATE_COMPLETED");
    });

    await t.step("a 0.3 method without the header is 0.3 (kind, state)", async () => {
      const { body } = await rpc(served, "message/send", {
        message: message03([{ kind: "text", text: "complete three" }]),
      });
      const result = body.result as Record<string, unknown>;
      assert.equal(result.kind, "task");
      assert.equal((result.status as Record<string, unknown>).state, "completed");
      const artifact = (result.artifacts as { parts: unknown[] }[])[0];
      assert.deepEqual(artifact.parts, [{ kind: "text", text: "three" }]);
    });

    await t.step(
      "JSON-RPC: a configuration without blocking blocks (as 0.3 servers do)",
      async () => {
        const { body } = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "complete blocked" }]),
          configuration: { acceptedOutputModes: ["text/plain"] },
        });
        const result = body.result as { status: { state: string } };
        assert.equal(result.status.state, "completed");
      },
    );

    await t.step(
      "HTTP+JSON: a configuration without blocking returns at once (proto3's false)",
      async () => {
        const response = await fetch(`${served.url}/v1/message:send`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            message: { messageId: "nb", role: "ROLE_USER", content: [{ text: "hang" }] },
            configuration: { acceptedOutputModes: ["text/plain"] },
          }),
          signal: AbortSignal.timeout(5_000),
        });
        const body = await response.json();
        assert.match(body.task.status.state, /^TASK_STATE_(SUBMITTED|WORKING)$/);
      },
    );

    await t.step("message/stream: 0.3 events with kind, the last status update final", async () => {
      const response = await fetch(`${served.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: "s1",
          method: "message/stream",
          params: { message: message03([{ kind: "text", text: "complete streamed" }]) },
        }),
      });
      assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
      const events = (await response.text()).split("\n\n").filter((f) => f.startsWith("data: "))
        .map((f) => JSON.parse(f.slice(6)));
      assert.ok(events.every((e) => e.id === "s1" && e.jsonrpc === "2.0"));
      const results = events.map((e) => e.result);
      assert.equal(results[0].kind, "task");
      const statuses = results.filter((r) => r.kind === "status-update");
      assert.deepEqual(
        statuses.map((r) => `${r.status.state}:${r.final}`),
        ["working:false", "completed:true"],
      );
      assert.ok(results.some((r) => r.kind === "artifact-update"));
    });

    await t.step("one task for both versions: parts cross in their own forms", async () => {
      const { body } = await rpc(served, "message/send", {
        message: message03([
          { kind: "text", text: "complete parts" },
          { kind: "data", data: { value: 42 }, metadata: { data_part_compat: true } },
          { kind: "file", file: { bytes: "aGk=", mimeType: "image/png", name: "a.png" } },
          { kind: "file", file: { uri: "https://example.com/a.txt", mimeType: "text/plain" } },
        ]),
      });
      const id = (body.result as { id: string }).id;
      const v1 = await rpc(served, "GetTask", { id }, { headers: { "a2a-version": "1.0" } });
      const history = (v1.body.result as { history: { parts: unknown[] }[] }).history;
      assert.deepEqual(history[0].parts, [
        { text: "complete parts" },
        { data: 42 },
        { raw: "aGk=", mediaType: "image/png", filename: "a.png" },
        { url: "https://example.com/a.txt", mediaType: "text/plain" },
      ]);
      const v03 = await rpc(served, "tasks/get", { id });
      const parts = (v03.body.result as { history: { role: string; parts: unknown[] }[] })
        .history[0];
      assert.equal(parts.role, "user");
      assert.deepEqual(parts.parts.slice(1), [
        { kind: "data", data: { value: 42 }, metadata: { data_part_compat: true } },
        { kind: "file", file: { bytes: "aGk=", mimeType: "image/png", name: "a.png" } },
        { kind: "file", file: { uri: "https://example.com/a.txt", mimeType: "text/plain" } },
      ]);
      const proto = await rest(served, "GET", `/v1/tasks/${id}`);
      const history03 = (proto.body.history as { role: string; content: unknown[] }[])[0];
      assert.equal(history03.role, "ROLE_USER");
      assert.deepEqual(history03.content.slice(1), [
        { data: { data: { value: 42 } } },
        { file: { fileWithBytes: "aGk=", mimeType: "image/png" } },
        { file: { fileWithUri: "https://example.com/a.txt", mimeType: "text/plain" } },
      ]);
    });

    await t.step("A2A-Version: 0.3 is accepted with 0.3 methods", async () => {
      const { body } = await rpc(served, "message/send", {
        message: message03([{ kind: "text", text: "complete hdr" }]),
      }, { headers: { "a2a-version": "0.3" } });
      assert.equal((body.result as Record<string, unknown>).kind, "task");
    });

    await t.step("A2A-Version: 1.0 with a 0.3 method: -32601 naming the version", async () => {
      const { body } = await rpc(served, "message/send", {
        message: message03([{ kind: "text", text: "x" }]),
      }, { headers: { "a2a-version": "1.0" } });
      const e = error(body);
      assert.equal(e.code, -32601);
      assert.match(e.message, /A2A 0\.3 method.*A2A-Version 1\.0/);
    });

    await t.step("A2A-Version: 0.3 with a 1.0 method: -32601 naming its 0.3 name", async () => {
      const { body } = await rpc(served, "SendMessage", {
        message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] },
      }, { headers: { "a2a-version": "0.3" } });
      const e = error(body);
      assert.equal(e.code, -32601);
      assert.match(e.message, /A2A 1\.0 method.*message\/send/);
    });

    await t.step("any other version: -32009 naming both", async () => {
      for (const [method, path] of [["message/send", "/"], ["SendMessage", "/"]]) {
        const { body } = await rpc(served, method, {}, {
          headers: { "a2a-version": "2.0" },
          path,
        });
        const e = error(body);
        assert.equal(e.code, -32009);
        assert.match(e.message, /"2\.0".*1\.0 and 0\.3/);
      }
      const r = await rest(served, "POST", "/v1/message:send", {}, { "a2a-version": "0.2" });
      assert.equal(r.status, 400);
    });

    await t.step("A2A-Version: 1.0 on /v1/…: a 1.0 route of tenant v1", async () => {
      const r = await rest(served, "POST", "/v1/message:send", {
        message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "complete x" }] },
      }, { "a2a-version": "1.0" });
      assert.notEqual(r.status, 200);
      assert.ok(r.body.error && typeof r.body.error === "object", "a google.rpc.Status body");
      assert.match((r.body.error as { message: string }).message, /v1/);
    });

    await t.step("A2A-Version: 0.3 on a 1.0 route: 404 naming the 0.3 routes", async () => {
      const r = await rest(served, "POST", "/message:send", {}, { "a2a-version": "0.3" });
      assert.equal(r.status, 404);
      assert.equal(r.body.code, -32601);
      assert.match(r.body.message as string, /\/v1\/message:send/);
    });

    await t.step(
      "a 1.0 route with a trailing slash stays 1.0, not a provider's 0.3 address",
      async () => {
        const r = await rest(served, "POST", "/message:send/", {
          message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "complete slash" }] },
        }, { "a2a-version": "1.0" });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(
          (r.body.task as { status: { state: string } }).status.state,
          "TASK_STATE_COMPLETED",
        );
      },
    );

    await t.step("a provider's 0.3 JSON-RPC address refuses 1.0", async () => {
      const e1 = error(
        (await rpc(served, "message/send", {}, {
          path: "/bare/",
          headers: { "a2a-version": "1.0" },
        })).body,
      );
      assert.equal(e1.code, -32009);
      assert.match(e1.message, /0\.3 JSON-RPC address/);
      const e2 = error((await rpc(served, "SendMessage", {}, { path: "/bare/" })).body);
      assert.equal(e2.code, -32601);
      assert.match(e2.message, /message\/send/);
    });
  });

  await t.step("off by default: 0.3 methods and versions are refused, naming 1.0", async () => {
    await withGateway({}, async (served) => {
      const e1 = error((await rpc(served, "message/send", {})).body);
      assert.equal(e1.code, -32601);
      assert.match(e1.message, /A2A 0\.3 method.*SendMessage/);
      const e2 = error(
        (await rpc(served, "SendMessage", {}, { headers: { "a2a-version": "0.3" } })).body,
      );
      assert.equal(e2.code, -32009);
      const r = await rest(served, "POST", "/bare/", {});
      assert.equal(r.status, 404);
    });
  });
});
