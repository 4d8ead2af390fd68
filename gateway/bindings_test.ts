// The gateway's two bindings, JSON-RPC and HTTP+JSON, through
// `gateway.fetch(new Request(...))`, no socket: its options, malformed
// requests, routes and statuses, the body limit, CORS, HEAD, the parts a
// message may hold, and auth.
import assert from "node:assert/strict";
import { type AgentRef, createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway } from "./mod.ts";
import { BASE, controlledProvider, message, rpc, rpcRequest, withSetup } from "./_test_support.ts";

Deno.test("createGateway() validates its options", async (t) => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  await t.step("scope must be a Scope", () => {
    assert.throws(
      () => createGateway({ scope: {} as Scope }),
      /options\.scope must be a Scope/,
    );
  });
  await t.step("numbers must be non-negative integers", () => {
    assert.throws(() => createGateway({ scope: root, bodyLimit: -1 }), RangeError);
    assert.throws(() => createGateway({ scope: root, cancelTimeoutMs: 1.5 }), RangeError);
  });
  await t.step("auth needs tokens or verify, and distinct tokens", () => {
    assert.throws(() => createGateway({ scope: root, auth: {} }), /tokens, verify, or both/);
    assert.throws(
      () => createGateway({ scope: root, auth: { tokens: { a: "same", b: "same" } } }),
      /another principal has/,
    );
    assert.throws(() => createGateway({ scope: root, auth: { tokens: { a: "" } } }), TypeError);
  });
  await t.step("publicUrl must be absolute, parent an agent or a function", () => {
    assert.throws(() => createGateway({ scope: root, publicUrl: "/relative" }), /absolute URL/);
    assert.throws(
      () => createGateway({ scope: root, parent: { id: 1 } as unknown as AgentRef }),
      /options\.parent/,
    );
  });
  await root.dispose();
});

Deno.test("JSON-RPC answers malformed requests with the spec's errors", async () => {
  await withSetup([controlledProvider({ auto: true })], {}, async (s) => {
    const raw = async (body: string, headers: Record<string, string> = {}) => {
      const response = await s.gateway.fetch(
        new Request(`${BASE}/`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
        }),
      );
      return { status: response.status, body: await response.json() };
    };
    const cases: [string, string, number, Record<string, string>?][] = [
      ["{", "not JSON", -32700],
      ["", "an empty body", -32700],
      ["[]", "a batch", -32600],
      ["7", "not an object", -32600],
      ['{"jsonrpc":"1.0","id":1,"method":"GetTask"}', "jsonrpc 1.0", -32600],
      ['{"jsonrpc":"2.0","id":{},"method":"GetTask"}', "an object id", -32600],
      ['{"jsonrpc":"2.0","id":1.5,"method":"GetTask"}', "a fractional id", -32600],
      ['{"jsonrpc":"2.0","id":1}', "no method", -32600],
      ['{"jsonrpc":"2.0","id":1,"method":"GetTask","params":[1]}', "array params", -32602],
      ['{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}', "no task id", -32602],
      ['{"jsonrpc":"2.0","id":1,"method":"Nope"}', "an unknown method", -32601],
      ['{"jsonrpc":"2.0","id":1,"method":"message/send"}', "a v0.3 method", -32601],
      [
        '{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{}}',
        "push config",
        -32003,
      ],
      [
        '{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}',
        "extended card, undeclared",
        -32004,
      ],
      ['{"jsonrpc":"2.0","id":1,"method":"GetTask"}', "text/plain", -32005, {
        "content-type": "text/plain",
      }],
      ['{"jsonrpc":"2.0","id":1,"method":"GetTask"}', "version 0.3", -32009, {
        "a2a-version": "0.3",
      }],
    ];
    for (const [body, label, code, headers] of cases) {
      const answer = await raw(body, headers);
      assert.equal(answer.status, 200, label);
      assert.equal(answer.body.jsonrpc, "2.0", label);
      assert.equal(answer.body.error.code, code, label);
      assert.ok(answer.body.error.message.length > 10, label);
    }
    const query = await s.gateway.fetch(
      new Request(`${BASE}/?from=fast-path`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "q" } }),
      }),
    );
    assert.equal((await query.json()).error.code, -32001, "a query string keeps the root path");
    const hinted = await raw('{"jsonrpc":"2.0","id":"x","method":"message/send"}');
    assert.equal(hinted.body.id, "x", "the id is echoed");
    assert.match(hinted.body.error.message, /use SendMessage/);
    const withInfo = await raw('{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"q"}}');
    assert.deepEqual(withInfo.body.error.data[0], {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "TASK_NOT_FOUND",
      domain: "a2a-protocol.org",
      metadata: { taskId: "q" },
    });
    assert.deepEqual(s.errors(), []);
  });
});

Deno.test("HTTP+JSON routes, statuses and error bodies", async (t) => {
  await withSetup([controlledProvider({ auto: true })], {}, async (s) => {
    const call = async (method: string, path: string, init: RequestInit = {}) => {
      const response = await s.gateway.fetch(new Request(`${BASE}${path}`, { method, ...init }));
      return { response, body: await response.json() };
    };
    const json = { "content-type": "application/json" };

    await t.step("POST /message:send and /{tenant}/message:send answer {task}", async () => {
      for (const path of ["/message:send", "/ctl/message:send"]) {
        const { response, body } = await call("POST", path, {
          headers: json,
          body: JSON.stringify({ message: message("hello") }),
        });
        assert.equal(response.status, 200);
        assert.equal(body.task.status.state, "TASK_STATE_COMPLETED");
        const got = await call("GET", `/tasks/${body.task.id}?historyLength=1`);
        assert.equal(got.body.history.length, 1);
      }
    });

    await t.step("unknown routes are 404, wrong methods 405 with Allow", async () => {
      const missing = await call("GET", "/nothing/here/at/all");
      assert.equal(missing.response.status, 404);
      assert.equal(missing.body.error.status, "NOT_FOUND");
      const wrong = await call("GET", "/message:send");
      assert.equal(wrong.response.status, 405);
      assert.equal(wrong.response.headers.get("allow"), "POST");
    });

    await t.step("push configs and the extended card answer 'not supported'", async () => {
      const push = await call("POST", "/tasks/x/pushNotificationConfigs", {
        headers: json,
        body: "{}",
      });
      assert.equal(push.response.status, 400);
      assert.equal(push.body.error.details[0].reason, "PUSH_NOTIFICATION_NOT_SUPPORTED");
      const card = await call("GET", "/extendedAgentCard");
      assert.equal(card.response.status, 400);
      assert.equal(card.body.error.details[0].reason, "UNSUPPORTED_OPERATION");
    });

    await t.step("bad input: content type, JSON, shapes, query values", async () => {
      const type = await call("POST", "/message:send", {
        headers: { "content-type": "text/plain" },
        body: "{}",
      });
      assert.equal(type.response.status, 415); // A2A §5.4
      assert.equal(type.body.error.details[0].reason, "CONTENT_TYPE_NOT_SUPPORTED");
      const parse = await call("POST", "/message:send", { headers: json, body: "{" });
      assert.equal(parse.response.status, 400);
      const shape = await call("POST", "/message:send", {
        headers: json,
        body: JSON.stringify({ message: { messageId: "m", role: "ROLE_AGENT", parts: [] } }),
      });
      assert.equal(shape.response.status, 400);
      assert.match(shape.body.error.message, /message\.role/);
      assert.match(shape.body.error.message, /message\.parts/);
      const page = await call("GET", "/tasks?pageSize=500");
      assert.equal(page.response.status, 400);
      assert.match(page.body.error.message, /pageSize/);
      const token = await call("GET", "/tasks?pageToken=zzz");
      assert.equal(token.response.status, 400);
    });
  });
});

Deno.test("the body limit answers 413, declared or streamed", async () => {
  await withSetup([controlledProvider({ auto: true })], { bodyLimit: 1_000 }, async (s) => {
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: message("x".repeat(2_000)) },
    });
    const declared = await s.gateway.fetch(
      new Request(`${BASE}/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: big,
      }),
    );
    assert.equal(declared.status, 413);
    assert.equal((await declared.json()).error.code, -32600);
    const bytes = new TextEncoder().encode(big);
    const streamed = await s.gateway.fetch(
      new Request(`${BASE}/message:send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < bytes.length; i += 256) controller.enqueue(bytes.slice(i, i + 256));
            controller.close();
          },
        }),
        // A stream body needs `duplex: "half"` under Node (undici) and browsers; Deno ignores it.
        duplex: "half",
      } as RequestInit),
    );
    assert.equal(streamed.status, 413);
    assert.equal((await streamed.json()).error.status, "RESOURCE_EXHAUSTED");
    const small = await rpc(s.gateway, "SendMessage", { message: message("ok") });
    assert.equal(small.result.task.status.state, "TASK_STATE_COMPLETED");
  });
});

Deno.test("CORS is off by default and configurable", async () => {
  const preflight = () =>
    new Request(`${BASE}/`, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,a2a-version",
      },
    });
  await withSetup([], {}, async (s) => {
    const card = await s.gateway.fetch(
      new Request(`${BASE}/.well-known/agent-card.json`, {
        headers: { origin: "https://app.example" },
      }),
    );
    assert.equal(card.headers.get("access-control-allow-origin"), null);
    await card.body?.cancel();
    const response = await s.gateway.fetch(preflight());
    assert.equal(response.headers.get("access-control-allow-origin"), null);
    await response.body?.cancel();
  });
  await withSetup([], { cors: { origin: ["https://app.example"], maxAge: 600 } }, async (s) => {
    const response = await s.gateway.fetch(preflight());
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-origin"), "https://app.example");
    assert.match(response.headers.get("access-control-allow-headers") ?? "", /A2A-Version/i);
    const card = await s.gateway.fetch(
      new Request(`${BASE}/.well-known/agent-card.json`, {
        headers: { origin: "https://app.example" },
      }),
    );
    assert.equal(card.headers.get("access-control-allow-origin"), "https://app.example");
    await card.body?.cancel();
    const call = await s.gateway.fetch(
      rpcRequest("GetTask", { id: "x" }, { origin: "https://app.example" }),
    );
    assert.equal(call.headers.get("access-control-allow-origin"), "https://app.example");
    assert.equal((await call.json()).error.code, -32001);
    const other = await s.gateway.fetch(
      rpcRequest("GetTask", { id: "x" }, { origin: "https://evil.example" }),
    );
    assert.equal(other.headers.get("access-control-allow-origin"), null);
    await other.body?.cancel();
  });
});

Deno.test("a HEAD is answered as its GET, without the body", async () => {
  await withSetup([], {}, async (s) => {
    const url = `${BASE}/.well-known/agent-card.json`;
    const get = await s.gateway.fetch(new Request(url));
    const head = await s.gateway.fetch(new Request(url, { method: "HEAD" }));
    assert.equal(head.status, get.status);
    assert.equal(head.headers.get("content-type"), get.headers.get("content-type"));
    assert.equal(head.headers.get("etag"), get.headers.get("etag"));
    assert.equal(head.body, null);
    await get.body?.cancel();
  });
});

Deno.test("content: every A2A part maps to a block and back; output modes are checked", async () => {
  const provider = controlledProvider({ auto: true });
  await withSetup([provider], {}, async (s) => {
    const rich = await rpc(s.gateway, "SendMessage", {
      message: {
        messageId: "m",
        role: "ROLE_USER",
        parts: [
          { raw: "iVBORw0KGgo=", mediaType: "image/png" },
          { raw: "AAAA", mediaType: "application/pdf", filename: "report.pdf" },
          { url: "https://x/y.html", mediaType: "text/html", filename: "y.html" },
          { data: { a: 1 } },
        ],
      },
    });
    assert.equal(rich.result.task.status.state, "TASK_STATE_COMPLETED");
    assert.deepEqual(provider.runs[0].request.prompt, [
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      { type: "file", mediaType: "application/pdf", data: "AAAA", filename: "report.pdf" },
      { type: "resource", uri: "https://x/y.html", mediaType: "text/html", filename: "y.html" },
      { type: "data", data: { a: 1 } },
    ]);
    // The echo provider answers with its prompt: each block back as its part.
    assert.deepEqual(rich.result.task.artifacts[0].parts, [
      { raw: "iVBORw0KGgo=", mediaType: "image/png" },
      { raw: "AAAA", mediaType: "application/pdf", filename: "report.pdf" },
      { url: "https://x/y.html", mediaType: "text/html", filename: "y.html" },
      { data: { a: 1 }, mediaType: "application/json" },
    ]);
    const notBase64 = await rpc(s.gateway, "SendMessage", {
      message: { messageId: "m", role: "ROLE_USER", parts: [{ raw: "%%%", mediaType: "a/b" }] },
    });
    assert.equal(notBase64.error.code, -32602);
    assert.match(notBase64.error.message, /parts\[0\]\.raw must be base64/);
    const modes = await rpc(s.gateway, "SendMessage", {
      message: message("x"),
      configuration: { acceptedOutputModes: ["image/png"] },
    });
    assert.equal(modes.error.code, -32005);
    assert.equal(provider.runs.length, 1);
  });
});

Deno.test("auth: bearer tokens exactly, verify() as a fallback, 401 with a challenge", async () => {
  const provider = controlledProvider({ auto: true });
  await withSetup([provider], {
    auth: {
      tokens: { alice: "s3cret-token" },
      verify: (token) => token === "from-verify" ? "carol" : undefined,
    },
  }, async (s) => {
    for (
      const header of [
        undefined,
        "Bearer",
        "Basic s3cret-token",
        "Bearer s3cret-toke",
        "Bearer s3cret-token2",
      ]
    ) {
      const response = await s.gateway.fetch(
        rpcRequest("GetTask", { id: "x" }, header ? { authorization: header } : {}),
      );
      assert.equal(response.status, 401, String(header));
      assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer realm="a2a"/);
      await response.body?.cancel();
    }
    const ok = await rpc(s.gateway, "SendMessage", { message: message("hi") }, {
      authorization: "bearer s3cret-token",
    });
    assert.equal(ok.result.task.status.state, "TASK_STATE_COMPLETED");
    const carol = await rpc(s.gateway, "ListTasks", {}, { authorization: "Bearer from-verify" });
    assert.deepEqual(carol.result.tasks, [], "carol sees none of alice's tasks");
    const rest = await s.gateway.fetch(new Request(`${BASE}/tasks`));
    assert.equal(rest.status, 401);
    assert.equal((await rest.json()).error.status, "UNAUTHENTICATED");
  });
});

Deno.test("HTTP+JSON statuses follow A2A §5.4", async () => {
  await withSetup([controlledProvider({ auto: true })], {}, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", { message: message("done at once") });
    const cancel = await s.gateway.fetch(
      new Request(`${BASE}/tasks/${sent.result.task.id}:cancel`, { method: "POST" }),
    );
    assert.equal(cancel.status, 409);
    assert.equal((await cancel.json()).error.status, "FAILED_PRECONDITION");
    const version = await s.gateway.fetch(
      new Request(`${BASE}/tasks`, { headers: { "a2a-version": "9.9" } }),
    );
    assert.equal(version.status, 400);
    assert.equal((await version.json()).error.status, "UNIMPLEMENTED");
  });
});
