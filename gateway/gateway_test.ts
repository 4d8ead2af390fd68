// The gateway through `gateway.fetch(new Request(...))`, no socket: the rules
// the SDK-client tests over loopback do not reach.
import assert from "node:assert/strict";
import { type AgentRef, createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import { createSubagentService, subagentProgress, type SubagentProvider } from "@seam/subagent";
import { createGateway, createMemoryTaskStore, getGatewayTask, SEAM_EXTENSION_URI } from "./mod.ts";

import {
  ALL,
  BASE,
  type Controlled,
  controlledProvider,
  type ControlledRun,
  describeFrame,
  frames,
  message,
  rpc,
  rpcRequest,
  type Setup,
  tick,
  untilEnded,
  withSetup,
} from "./_test_support.ts";

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
      ['{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}', "extended card", -32007],
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
      assert.equal(card.body.error.details[0].reason, "EXTENDED_AGENT_CARD_NOT_CONFIGURED");
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

Deno.test("a run's lifecycle maps to the task's states, in order", async (t) => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    await t.step("SUBMITTED until started, WORKING after, the result at the end", async () => {
      const response = await s.gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("go") }),
      );
      const run = provider.runs.at(-1)!;
      const reading = frames(response);
      await tick();
      run.ready();
      await tick();
      run.finish({ output: [{ type: "text", text: "out" }], stopReason: "refusal" });
      assert.deepEqual((await reading).map(describeFrame), [
        "task:SUBMITTED",
        "status:WORKING",
        "artifact:set:last:out",
        "status:REJECTED",
      ]);
      assert.equal(run.dispose.mock.callCount(), 1);
    });

    await t.step("a result before readiness still goes WORKING first", async () => {
      const response = await s.gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("go") }),
      );
      const run = provider.runs.at(-1)!;
      run.finish({ output: "done", stopReason: "completed" });
      await tick();
      run.ready();
      assert.deepEqual((await frames(response)).map(describeFrame), [
        "task:SUBMITTED",
        "status:WORKING",
        "artifact:set:last:done",
        "status:COMPLETED",
      ]);
    });

    await t.step("readiness that fails ends the task by its result, never WORKING", async () => {
      const response = await s.gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("go") }),
      );
      const run = provider.runs.at(-1)!;
      run.fail(new Error("no child"));
      run.finish({ output: "could not start", stopReason: "error" });
      const seen = (await frames(response)).map(describeFrame);
      assert.deepEqual(seen, [
        "task:SUBMITTED",
        "artifact:set:last:could not start",
        "status:FAILED",
      ]);
      assert.equal(run.dispose.mock.callCount(), 1);
    });

    await t.step(
      "a rejected result (contract fault) ends FAILED with the error, disposed",
      async () => {
        const pending = rpc(s.gateway, "SendMessage", { message: message("go") });
        await tick();
        const run = provider.runs.at(-1)!;
        run.ready();
        run.reject(new TypeError("broken provider"));
        const { result } = await pending;
        assert.equal(result.task.status.state, "TASK_STATE_FAILED");
        const meta = result.task.metadata[SEAM_EXTENSION_URI];
        assert.equal(meta.stopReason, undefined);
        assert.match(meta.error, /broken provider/);
        assert.equal(run.dispose.mock.callCount(), 1);
      },
    );
  });
});

Deno.test("a run that ends at once still streams its task as submitted first", async () => {
  const provider = controlledProvider({ auto: true });
  await withSetup([provider], {}, async (s) => {
    const response = await s.gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("instant") }),
    );
    const all = await frames(response);
    assert.deepEqual(all.map(describeFrame), [
      "task:SUBMITTED",
      "status:WORKING",
      "artifact:set:last:instant",
      "status:COMPLETED",
    ]);
    const first = all[0].result.task;
    assert.equal(first.metadata[SEAM_EXTENSION_URI].stopReason, undefined);
    assert.equal(first.artifacts, undefined);
  });
});

Deno.test("every run is disposed when its task ends, on every path", async (t) => {
  await t.step("start refused: no run exists, nothing is left behind", async () => {
    const provider = controlledProvider({ capabilities: { persona: false } });
    await withSetup([provider], {}, async (s) => {
      const answer = await rpc(s.gateway, "SendMessage", {
        message: message("go", { metadata: { [SEAM_EXTENSION_URI]: { persona: "p" } } }),
      });
      assert.equal(answer.error.code, -32004);
      assert.equal(answer.error.data[0].metadata.seamCode, "UNSUPPORTED_CAPABILITY");
      assert.equal(provider.runs.length, 0);
      assert.equal(s.gateway.liveTasks, 0);
    });
  });

  await t.step(
    "cancel that the child never confirms: torn down after cancelTimeoutMs",
    async () => {
      const provider = controlledProvider({ cancelEnds: false });
      await withSetup([provider], { cancelTimeoutMs: 20 }, async (s) => {
        const sent = await rpc(s.gateway, "SendMessage", {
          message: message("go"),
          configuration: { returnImmediately: true },
        });
        const run = provider.runs[0];
        run.ready();
        const canceled = await rpc(s.gateway, "CancelTask", { id: sent.result.task.id });
        assert.equal(canceled.result.status.state, "TASK_STATE_CANCELED");
        assert.match(canceled.result.status.message.parts[0].text, /did not confirm/);
        assert.equal(run.cancel.mock.callCount(), 1);
        await tick();
        assert.equal(run.dispose.mock.callCount(), 1);
        // Its late result changes nothing.
        run.finish({ output: "late", stopReason: "completed" });
        await tick();
        const got = await rpc(s.gateway, "GetTask", { id: sent.result.task.id });
        assert.equal(got.result.status.state, "TASK_STATE_CANCELED");
      });
    },
  );

  await t.step("close(): live tasks end CANCELED, streams close, runs are disposed", async () => {
    const provider = controlledProvider({ cancelEnds: false });
    const { logger } = createMemoryLogger();
    const root = createRootScope({ logger });
    createSubagentService(root).registerProvider(provider);
    const gateway = createGateway({ scope: root });
    const stream = await gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("go") }),
    );
    const reading = frames(stream);
    const blocking = rpc(gateway, "SendMessage", { message: message("go too") });
    await tick();
    provider.runs.forEach((run) => run.ready());
    await gateway.close();
    assert.deepEqual((await reading).map(describeFrame).at(-1), "status:CANCELED");
    assert.equal((await blocking).result.task.status.state, "TASK_STATE_CANCELED");
    assert.ok(provider.runs.every((run) => run.dispose.mock.callCount() === 1));
    assert.ok(provider.runs.every((run) => run.cancel.mock.callCount() === 1));
    const after = await gateway.fetch(rpcRequest("GetTask", { id: "x" }));
    assert.equal(after.status, 503);
    await after.body?.cancel();
    await root.dispose();
  });

  await t.step("disposing the owning scope closes the gateway", async () => {
    const provider = controlledProvider({ cancelEnds: false });
    const root = createRootScope({ logger: createMemoryLogger().logger });
    createSubagentService(root).registerProvider(provider);
    const gateway = createGateway({ scope: root });
    const blocking = rpc(gateway, "SendMessage", { message: message("go") });
    await tick();
    await root.dispose();
    assert.equal((await blocking).result.task.status.state, "TASK_STATE_CANCELED");
    assert.equal(provider.runs[0].dispose.mock.callCount(), 1);
    await gateway.close();
  });
});

Deno.test("streamed text becomes artifact updates; a grandchild's is left out", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    const response = await s.gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("go") }),
    );
    const reading = frames(response);
    const run = provider.runs[0];
    const scope = run.request.parent.scope;
    run.ready();
    await tick();
    scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "Hel" });
    scope.emit(subagentProgress, { runId: "grandchild", kind: "text", text: "zzz" });
    scope.emit(subagentProgress, { runId: run.id, kind: "tool-call", name: "t" });
    scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "lo" });
    run.finish({ output: "Hello", stopReason: "completed" });
    assert.deepEqual((await reading).map(describeFrame), [
      "task:SUBMITTED",
      "status:WORKING",
      "artifact:set:Hel",
      "artifact:append:lo",
      "artifact:set:last:Hello",
      "status:COMPLETED",
    ]);
  });
});

Deno.test("a factory's parent outside the gateway's scope still streams its run's text", async () => {
  const provider = controlledProvider();
  const elsewhere = createRootScope({ logger: createMemoryLogger().logger });
  await withSetup([provider], { parent: () => ({ id: "far", scope: elsewhere }) }, async (s) => {
    const response = await s.gateway.fetch(
      rpcRequest("SendStreamingMessage", { message: message("go") }),
    );
    const reading = frames(response);
    const run = provider.runs[0];
    run.ready();
    await tick();
    assert.equal(run.request.parent.scope, elsewhere);
    elsewhere.emit(subagentProgress, { runId: run.id, kind: "text", text: "far away" });
    run.finish({ output: "done", stopReason: "completed" });
    assert.ok((await reading).map(describeFrame).includes("artifact:set:far away"));
    assert.equal(
      elsewhere.hasListeners(subagentProgress),
      false,
      "its listener went with the task",
    );
  });
  await elsewhere.dispose();
});

Deno.test("GetTask of a live task shows the text streamed so far", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", {
      message: message("go"),
      configuration: { returnImmediately: true },
    });
    const run = provider.runs[0];
    run.ready();
    run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "par" });
    run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "tial" });
    const got = await rpc(s.gateway, "GetTask", { id: sent.result.task.id });
    assert.equal(got.result.status.state, "TASK_STATE_WORKING");
    assert.deepEqual(got.result.artifacts[0].parts, [{ text: "partial" }]);
    run.finish({ output: "", stopReason: "aborted" });
  });
});

/** The texts of a task's history, in order. */
const historyTexts = (history: { parts: { text: string }[] }[]): string[] =>
  history.map((m) => m.parts[0].text);

/** Start a task saying "first" on `provider` (one that steers) and make its run ready. */
async function startSteerable(
  s: Setup,
  provider: Controlled,
): Promise<{ task: { id: string }; run: ControlledRun }> {
  const sent = await rpc(s.gateway, "SendMessage", {
    message: message("first"),
    configuration: { returnImmediately: true },
  });
  const run = provider.runs.at(-1)!;
  run.ready();
  return { task: sent.result.task, run };
}

Deno.test("a follow-up on a live task steers its run", async (t) => {
  await t.step("with sendMessage: the content reaches the running child", async () => {
    const provider = controlledProvider({ steer: true });
    await withSetup([provider], {}, async (s) => {
      const { task, run } = await startSteerable(s, provider);
      const steering = rpc(s.gateway, "SendMessage", {
        message: message("second", { taskId: task.id }),
        configuration: { returnImmediately: true },
      });
      const steered = await steering;
      assert.equal(steered.result.task.id, task.id);
      assert.deepEqual(run.sent, [[{ type: "text", text: "second" }]]);
      assert.equal(provider.runs.length, 1, "no new run");
      run.finish({ output: "both", stopReason: "completed" });
      const got = await untilEnded(s.gateway, task.id);
      assert.equal(got.result.status.state, "TASK_STATE_COMPLETED");
      assert.deepEqual(got.result.artifacts[0].parts, [{ text: "both" }]);
      assert.deepEqual(historyTexts(got.result.history), ["first", "second"]);
      const last = await rpc(s.gateway, "GetTask", { id: task.id, historyLength: 1 });
      assert.deepEqual(historyTexts(last.result.history), ["second"]);
    });
  });

  await t.step("a message taken while the run ends is in the stored history", async () => {
    const provider = controlledProvider({ steer: true });
    await withSetup([provider], {}, async (s) => {
      const { task, run } = await startSteerable(s, provider);
      // As over A2A: the child ends while the message's round trip is in flight.
      run.onSend = async () => {
        run.finish({ output: "done", stopReason: "completed" });
        await new Promise((resolve) => setTimeout(resolve, 5));
      };
      const steered = await rpc(s.gateway, "SendMessage", {
        message: message("second", { taskId: task.id }),
      });
      assert.deepEqual(historyTexts(steered.result.task.history), ["first", "second"]);
      const got = await untilEnded(s.gateway, task.id);
      assert.equal(got.result.status.state, "TASK_STATE_COMPLETED");
      assert.deepEqual(historyTexts(got.result.history), ["first", "second"]);
    });
  });

  await t.step(
    "refusals: no sendMessage, a finished task, a mismatched context, start fields",
    async () => {
      const provider = controlledProvider();
      await withSetup([provider], {}, async (s) => {
        const sent = await rpc(s.gateway, "SendMessage", {
          message: message("first"),
          configuration: { returnImmediately: true },
        });
        const task = sent.result.task;
        provider.runs[0].ready();
        const noSteer = await rpc(s.gateway, "SendMessage", {
          message: message("more", { taskId: task.id }),
        });
        assert.equal(noSteer.error.code, -32004);
        assert.match(noSteer.error.message, /cannot steer/);
        const mismatch = await rpc(s.gateway, "SendMessage", {
          message: message("more", { taskId: task.id, contextId: "other" }),
        });
        assert.equal(mismatch.error.code, -32602);
        const startFields = await rpc(s.gateway, "SendMessage", {
          message: message("more", {
            taskId: task.id,
            metadata: { [SEAM_EXTENSION_URI]: { persona: "p" } },
          }),
        });
        assert.equal(startFields.error.code, -32602);
        provider.runs[0].finish({ output: "x", stopReason: "completed" });
        await tick();
        const finished = await rpc(s.gateway, "SendMessage", {
          message: message("more", { taskId: task.id }),
        });
        assert.equal(finished.error.code, -32004);
        assert.match(finished.error.message, new RegExp(`contextId "${task.contextId}"`));
        const unknown = await rpc(s.gateway, "SendMessage", {
          message: message("more", { taskId: "nope" }),
        });
        assert.equal(unknown.error.code, -32001);
      });
    },
  );
});

Deno.test("a message in a finished task's context resumes its run", async (t) => {
  await t.step(
    "the kept run resumes; the chain is disposed when the context is dropped",
    async () => {
      const provider = controlledProvider({ auto: true, resume: true });
      await withSetup([provider], { maxResumableRuns: 1 }, async (s) => {
        const first = await rpc(s.gateway, "SendMessage", { message: message("one") });
        const contextId = first.result.task.contextId;
        assert.equal(provider.runs[0].dispose.mock.callCount(), 0, "kept for a follow-up");
        const second = await rpc(s.gateway, "SendMessage", {
          message: message("two", { contextId }),
        });
        assert.equal(second.result.task.contextId, contextId);
        assert.notEqual(second.result.task.id, first.result.task.id);
        assert.equal(
          second.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom,
          first.result.task.id,
        );
        assert.deepEqual(provider.runs[0].resumedWith, [[{ type: "text", text: "two" }]]);
        assert.deepEqual(second.result.task.artifacts[0].parts, [{ text: "two" }]);
        // Another context takes the only slot: the first chain is disposed, newest run first.
        await rpc(s.gateway, "SendMessage", { message: message("three") });
        await tick();
        assert.equal(provider.runs[0].dispose.mock.callCount(), 1);
        assert.equal(provider.runs[1].dispose.mock.callCount(), 1);
        assert.equal(provider.runs[2].dispose.mock.callCount(), 0);
      });
      assert.equal(provider.runs[2].dispose.mock.callCount(), 1, "close() disposes the kept runs");
    },
  );

  await t.step(
    "with maxResumableRuns 0 every run is disposed at once; a context starts afresh",
    async () => {
      const provider = controlledProvider({ auto: true, resume: true });
      await withSetup([provider], { maxResumableRuns: 0 }, async (s) => {
        const first = await rpc(s.gateway, "SendMessage", { message: message("one") });
        await tick();
        assert.equal(provider.runs[0].dispose.mock.callCount(), 1);
        const contextId = first.result.task.contextId;
        const second = await rpc(s.gateway, "SendMessage", {
          message: message("two", { contextId }),
        });
        assert.equal(second.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
        assert.deepEqual(provider.runs[0].resumedWith, []);
      });
    },
  );

  await t.step("a depth cap holds across a continuation, kept run or fresh", async () => {
    const provider = controlledProvider({ auto: true, resume: true });
    await withSetup([provider], { maxResumableRuns: 1 }, async (s) => {
      const ext = (fields: Record<string, unknown>) => ({
        metadata: { [SEAM_EXTENSION_URI]: fields },
      });
      const first = await rpc(s.gateway, "SendMessage", {
        message: message("one", ext({ depth: 1, maxDepth: 3 })),
      });
      const contextId = first.result.task.contextId;
      // The same cap (or a looser one) is accepted: the kept run's cap holds it.
      const same = await rpc(s.gateway, "SendMessage", {
        message: message("two", { contextId, ...ext({ depth: 1, maxDepth: 3 }) }),
      });
      assert.equal(same.error, undefined, JSON.stringify(same.error));
      assert.equal(same.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom, first.result.task.id);
      const looser = await rpc(s.gateway, "SendMessage", {
        message: message("three", { contextId, ...ext({ depth: 1, maxDepth: 5 }) }),
      });
      assert.equal(
        looser.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom,
        same.result.task.id,
      );
      // A tighter cap could not hold on the resumed run: refused, the run still kept.
      const tighter = await rpc(s.gateway, "SendMessage", {
        message: message("four", { contextId, ...ext({ depth: 1, maxDepth: 2 }) }),
      });
      assert.equal(tighter.error.code, -32602);
      assert.match(tighter.error.message, /started with maxDepth 3.*never tighter/);
      const stillKept = await rpc(s.gateway, "SendMessage", {
        message: message("five", { contextId, ...ext({ depth: 1, maxDepth: 3 }) }),
      });
      assert.equal(
        stillKept.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom,
        looser.result.task.id,
      );
      // Other start-time fields are still refused on a continuation.
      const persona = await rpc(s.gateway, "SendMessage", {
        message: message("six", { contextId, ...ext({ maxDepth: 3, persona: "p" }) }),
      });
      assert.equal(persona.error.code, -32602);
      assert.match(persona.error.message, /outputSchema, toolFilter, persona/);
      // Another context takes the only slot; the first context's follow-up starts
      // afresh under the cap it carries.
      await rpc(s.gateway, "SendMessage", { message: message("elsewhere") });
      const runs = provider.runs.length;
      const fresh = await rpc(s.gateway, "SendMessage", {
        message: message("seven", { contextId, ...ext({ depth: 1, maxDepth: 3 }) }),
      });
      assert.equal(fresh.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
      assert.equal(provider.runs.length, runs + 1);
      const run = provider.runs[runs];
      assert.equal(run.request.maxDepth, 3);
      assert.deepEqual({ ...run.delegation }, { depth: 1, maxDepth: 3 });
    });
  });

  await t.step("a continuation on a run that started uncapped cannot add a cap", async () => {
    const provider = controlledProvider({ auto: true, resume: true });
    await withSetup([provider], {}, async (s) => {
      const first = await rpc(s.gateway, "SendMessage", { message: message("one") });
      const contextId = first.result.task.contextId;
      const capped = await rpc(s.gateway, "SendMessage", {
        message: message("two", {
          contextId,
          metadata: { [SEAM_EXTENSION_URI]: { maxDepth: 4 } },
        }),
      });
      assert.equal(capped.error.code, -32602);
      assert.match(capped.error.message, /started with no depth cap/);
      assert.deepEqual(provider.runs[0].resumedWith, []);
    });
  });

  await t.step("another principal's context is never resumed", async () => {
    const provider = controlledProvider({ auto: true, resume: true });
    await withSetup([provider], { auth: { tokens: { a: "token-a", b: "token-b" } } }, async (s) => {
      const first = await rpc(s.gateway, "SendMessage", { message: message("one") }, {
        authorization: "Bearer token-a",
      });
      const contextId = first.result.task.contextId;
      const other = await rpc(
        s.gateway,
        "SendMessage",
        { message: message("two", { contextId }) },
        {
          authorization: "Bearer token-b",
        },
      );
      assert.equal(other.result.task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
      assert.deepEqual(provider.runs[0].resumedWith, []);
    });
  });
});

Deno.test("the caller's depth reaches the providers as a DelegationContext", async (t) => {
  await t.step("default parent: the task scope provides depth and maxDepth", async () => {
    const provider = controlledProvider({ auto: true });
    await withSetup([provider], {}, async (s) => {
      await rpc(s.gateway, "SendMessage", {
        message: message("go", { metadata: { [SEAM_EXTENSION_URI]: { depth: 3, maxDepth: 7 } } }),
      });
      const request = provider.runs[0].request;
      assert.deepEqual({ ...provider.runs[0].delegation }, { depth: 3, maxDepth: 7 });
      assert.equal(request.maxDepth, 7);
      assert.equal(request.parent.id, "a2a-gateway");
    });
  });

  await t.step("a parent factory gets the task's context and its agent is the parent", async () => {
    const provider = controlledProvider({ auto: true });
    const seen: Record<string, unknown>[] = [];
    await withSetup([provider], {
      auth: { tokens: { alice: "token-alice" } },
      parent: (context) => {
        seen.push({ ...context, scope: context.scope.active });
        return { id: `parent-of-${context.taskId}`, scope: context.scope.child("agent") };
      },
    }, async (s) => {
      const answer = await rpc(s.gateway, "SendMessage", {
        message: message("go", { metadata: { [SEAM_EXTENSION_URI]: { depth: 2 } } }),
      }, { authorization: "Bearer token-alice" });
      const task = answer.result.task;
      assert.deepEqual(seen, [{
        taskId: task.id,
        contextId: task.contextId,
        provider: "ctl",
        principal: "alice",
        depth: 2,
        scope: true,
        message: task.history[0],
      }]);
      assert.equal(provider.runs[0].request.parent.id, `parent-of-${task.id}`);
      assert.equal(provider.runs[0].delegation?.depth, 2);
    });
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

Deno.test("ctx.waitUntil keeps a task that outlives its response alive", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    const handed: Promise<unknown>[] = [];
    const response = await s.gateway.fetch(
      rpcRequest("SendMessage", {
        message: message("go"),
        configuration: { returnImmediately: true },
      }),
      undefined,
      { waitUntil: (p: Promise<unknown>) => handed.push(p), passThroughOnException() {} },
    );
    await response.body?.cancel();
    assert.equal(handed.length, 1);
    let settled = false;
    handed[0].then(() => settled = true);
    await tick();
    assert.equal(settled, false);
    provider.runs[0].ready();
    provider.runs[0].finish({ output: "done", stopReason: "completed" });
    await handed[0];
  });
});

Deno.test("eviction keeps live tasks", async () => {
  const provider = controlledProvider();
  const store = createMemoryTaskStore({ maxTerminalTasks: 2 });
  await withSetup([provider], { taskStore: store }, async (s) => {
    const live = await rpc(s.gateway, "SendMessage", {
      message: message("long"),
      configuration: { returnImmediately: true },
    });
    provider.runs[0].ready();
    const done: string[] = [];
    for (let i = 0; i < 5; i++) {
      const pending = rpc(s.gateway, "SendMessage", { message: message(`n${i}`) });
      await tick();
      provider.runs.at(-1)!.ready();
      provider.runs.at(-1)!.finish({ output: `r${i}`, stopReason: "completed" });
      done.push((await pending).result.task.id);
    }
    assert.equal(store.size, 3, "two terminal tasks and the live one");
    const old = await rpc(s.gateway, "GetTask", { id: done[0] });
    assert.equal(old.error.code, -32001);
    const recent = await rpc(s.gateway, "GetTask", { id: done[4] });
    assert.equal(recent.result.status.state, "TASK_STATE_COMPLETED");
    const listed = await rpc(s.gateway, "ListTasks", { status: "TASK_STATE_WORKING" });
    assert.deepEqual(listed.result.tasks.map((t: { id: string }) => t.id), [live.result.task.id]);
    provider.runs[0].finish({ output: "finally", stopReason: "completed" });
  });
});

Deno.test("a run's result.error reaches the task: its status message and seam metadata", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {}, async (s) => {
    const sending = rpc(s.gateway, "SendMessage", { message: message("go") });
    await tick();
    provider.runs[0].ready();
    provider.runs[0].finish({
      output: "partial words",
      stopReason: "error",
      error: { code: "TIMEOUT", message: "the model did not answer in 30 s" },
    });
    const task = (await sending).result.task;
    assert.equal(task.status.state, "TASK_STATE_FAILED");
    assert.match(task.status.message.parts[0].text, /the model did not answer in 30 s \(TIMEOUT\)/);
    assert.deepEqual(task.metadata[SEAM_EXTENSION_URI].failure, {
      code: "TIMEOUT",
      message: "the model did not answer in 30 s",
    });
    assert.deepEqual(
      task.artifacts[0].parts,
      [{ text: "partial words" }],
      "output stays the child's",
    );
  });
});

Deno.test("getGatewayTask() shows providers the accepted message as it moves on", async () => {
  const provider = controlledProvider({ steer: true, resume: true });
  await withSetup([provider], {}, async (s) => {
    const first = await rpc(s.gateway, "SendMessage", {
      message: message("start", { messageId: "m-start", metadata: { k: "v" } }),
      configuration: { returnImmediately: true },
    });
    const taskId = first.result.task.id;
    const task = getGatewayTask(provider.runs[0].request.parent.scope)!;
    assert.equal(task.taskId, taskId);
    assert.equal(task.message.messageId, "m-start");
    assert.deepEqual(task.message.metadata, { k: "v" });
    assert.equal(task.principal, undefined);
    provider.runs[0].ready();
    await rpc(s.gateway, "SendMessage", {
      message: message("more", { messageId: "m-steer", taskId }),
      configuration: { returnImmediately: true },
    });
    assert.equal(task.message.messageId, "m-steer");
    assert.equal(task.taskId, taskId);
    provider.runs[0].finish({ output: "done", stopReason: "completed" });
    await untilEnded(s.gateway, taskId);
    const resumed = await rpc(s.gateway, "SendMessage", {
      message: message("again", { messageId: "m-resume", contextId: first.result.task.contextId }),
      configuration: { returnImmediately: true },
    });
    assert.equal(task.message.messageId, "m-resume");
    assert.equal(task.taskId, resumed.result.task.id);
    provider.runs[1].ready();
    provider.runs[1].finish({ output: "", stopReason: "completed" });
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

Deno.test("replyWithMessage(): the task answers with a direct Message, never stored", async (t) => {
  const replying: SubagentProvider = {
    name: "replies",
    capabilities: ALL,
    inheritsParentContext: false,
    start(request) {
      getGatewayTask(request.parent.scope)!.replyWithMessage();
      return {
        id: crypto.randomUUID(),
        started: Promise.resolve(),
        result: Promise.resolve({ output: "Direct answer", stopReason: "completed" as const }),
        cancel() {},
        dispose: () => Promise.resolve(),
      };
    },
  };
  await withSetup([replying], {}, async (s) => {
    await t.step("SendMessage answers {message}", async () => {
      const answer = await rpc(s.gateway, "SendMessage", { message: message("hi") });
      assert.equal(answer.result.task, undefined);
      assert.equal(answer.result.message.role, "ROLE_AGENT");
      assert.deepEqual(answer.result.message.parts, [{ text: "Direct answer" }]);
    });
    await t.step("a stream carries the message alone", async () => {
      const got = await frames(
        await s.gateway.fetch(rpcRequest("SendStreamingMessage", { message: message("hi") })),
      );
      assert.equal(got.length, 1);
      assert.deepEqual(got[0].result.message.parts, [{ text: "Direct answer" }]);
    });
    await t.step("no task is stored or listed", async () => {
      const listed = await rpc(s.gateway, "ListTasks", {});
      assert.deepEqual(listed.result.tasks, []);
    });
  });
});

Deno.test("GetExtendedAgentCard: the extended card behind auth, -32007 without one", async (t) => {
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
  await t.step("not configured: ExtendedAgentCardNotConfiguredError on both bindings", async () => {
    await withSetup([controlledProvider()], {}, async (s) => {
      const answer = await rpc(s.gateway, "GetExtendedAgentCard", {});
      assert.equal(answer.error.code, -32007);
      const rest = await s.gateway.fetch(new Request(`${BASE}/extendedAgentCard`));
      assert.equal(rest.status, 400);
      assert.equal(
        (await rest.json()).error.details[0].reason,
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
      );
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
