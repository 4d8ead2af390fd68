// The gateway's cost per request in process, no socket: `gateway.fetch` on
// a JSON-RPC `SendMessage` (an echo provider that completes at once) against
// a bare Hono route that reads the same body and answers the same JSON.
import { Hono } from "hono";
import { createLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway } from "../gateway/mod.ts";
import { createGateway as createLiteGateway } from "../gateway/lite.ts";
import { isoNow } from "../gateway/core/_task_view.ts";
import { V03_BINDINGS } from "../gateway/a2a03/_v03.ts";
import { parseSendParams, parseSendParamsWithSchema } from "../gateway/http/_validate.ts";
import { echo } from "./_echo_provider.ts";

const BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: {
    message: { messageId: "bench-1", role: "ROLE_USER", parts: [{ text: "hello from the bench" }] },
  },
});
const HEADERS = {
  "content-type": "application/json",
  "a2a-version": "1.0",
  "content-length": String(new TextEncoder().encode(BODY).length),
};
const request = () =>
  new Request("http://127.0.0.1/", { method: "POST", headers: HEADERS, body: BODY });

const root = createRootScope({ logger: createLogger({ level: "silent" }) });
createSubagentService(root).registerProvider(echo);
const gateway = createGateway({ scope: root });
const sample = await (await gateway.fetch(request())).json();
const app = new Hono();
app.post("/", async (c) => {
  await c.req.raw.text();
  return c.json(sample);
});

Deno.bench({
  name: "bare Hono route (reads the body, answers the same JSON)",
  group: "SendMessage in process",
  baseline: true,
  async fn() {
    await (await app.fetch(request())).text();
  },
});

Deno.bench({
  name: "gateway.fetch SendMessage (blocking, echo provider)",
  group: "SendMessage in process",
  async fn() {
    await (await gateway.fetch(request())).text();
  },
});

// Push configured but the task has no webhook: what every state change pays
// for push (an event built, one config lookup) when nobody registered one.
const pushing = createGateway({ scope: root, push: {} });
Deno.bench({
  name: "gateway.fetch SendMessage, push on, no webhook",
  group: "SendMessage in process",
  async fn() {
    await (await pushing.fetch(request())).text();
  },
});

// The fast paths, each against the slow path it stands in for (the rows the
// source's comments name).
const PARAMS = JSON.parse(BODY).params;

Deno.bench({
  name: "zod schema (parseSendParamsWithSchema)",
  group: "SendMessage params",
  baseline: true,
  fn() {
    parseSendParamsWithSchema(structuredClone(PARAMS));
  },
});

Deno.bench({
  name: "quick check (parseSendParams)",
  group: "SendMessage params",
  fn() {
    parseSendParams(structuredClone(PARAMS));
  },
});

Deno.bench({
  name: "new Date().toISOString()",
  group: "status timestamp",
  baseline: true,
  fn() {
    new Date(Date.now()).toISOString();
  },
});

Deno.bench({
  name: "isoNow(Date.now())",
  group: "status timestamp",
  fn() {
    isoNow(Date.now());
  },
});

const cors = createGateway({ scope: root, cors: { origin: "*" } });
Deno.bench({
  name: "through the Hono router (CORS on)",
  group: "JSON-RPC dispatch",
  baseline: true,
  async fn() {
    await (await cors.fetch(request())).text();
  },
});

Deno.bench({
  name: "JSON-RPC fast path (isPath, no router)",
  group: "JSON-RPC dispatch",
  async fn() {
    await (await gateway.fetch(request())).text();
  },
});

// A2A 0.3 beside 1.0 (gateway/_v03.ts): what serving 0.3 costs a 1.0
// `SendMessage` (the hook reads the version header and looks the method up),
// and a 0.3 `message/send` through the same operations and its wire forms.
const v03 = createGateway({ scope: root, a2a03: true });
const BODY_03 = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "message/send",
  params: {
    message: {
      kind: "message",
      messageId: "bench-1",
      role: "user",
      parts: [{ kind: "text", text: "hello from the bench" }],
    },
  },
});
const request03 = () =>
  new Request("http://127.0.0.1/", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: BODY_03,
  });

Deno.bench({
  name: "v03 SendMessage, a2a03 off",
  group: "A2A 0.3 beside 1.0",
  baseline: true,
  async fn() {
    await (await gateway.fetch(request())).text();
  },
});

Deno.bench({
  name: "v03 SendMessage, a2a03 on",
  group: "A2A 0.3 beside 1.0",
  async fn() {
    await (await v03.fetch(request())).text();
  },
});

Deno.bench({
  name: "v03 message/send (0.3), a2a03 on",
  group: "A2A 0.3 beside 1.0",
  async fn() {
    await (await v03.fetch(request03())).text();
  },
});

// The 0.3 hook alone on a 1.0 request (what a2a03 adds to every 1.0
// JSON-RPC call), against the header read the 1.0 path does anyway.
const hookRequest = request();
const hookCall = { method: "SendMessage", params: {}, id: 1, v1: true, ctx: undefined };
Deno.bench({
  name: "v03 hook: the A2A-Version read alone",
  group: "A2A 0.3 hook on a 1.0 request",
  baseline: true,
  fn() {
    hookRequest.headers.get("a2a-version");
  },
});
Deno.bench({
  name: "v03 hook: V03_BINDINGS.jsonRpc (answers undefined)",
  group: "A2A 0.3 hook on a 1.0 request",
  fn() {
    V03_BINDINGS.jsonRpc(undefined as never, hookRequest, hookCall);
  },
});

// A task's descendants (gateway/tree/, issue 38): what following a task's
// tree costs a SendMessage that carries the seam extension (six listeners on
// the task's scope, taken off at its end), against the lite gateway, which
// follows none, on the same message.
const SEAM_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: {
    message: {
      messageId: "bench-1",
      role: "ROLE_USER",
      parts: [{ text: "hello from the bench" }],
      metadata: { "https://jsr.io/@seam/gateway/extensions/subagent/v1": { depth: 0 } },
    },
  },
});
const seamRequest = () =>
  new Request("http://127.0.0.1/", {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: SEAM_BODY,
  });
const lite = createLiteGateway({ scope: root });
Deno.bench({
  name: "SendMessage with the seam extension, lite (no tree)",
  group: "a task's descendants",
  baseline: true,
  async fn() {
    await (await lite.fetch(seamRequest())).text();
  },
});
Deno.bench({
  name: "SendMessage with the seam extension, the tree followed",
  group: "a task's descendants",
  async fn() {
    await (await gateway.fetch(seamRequest())).text();
  },
});
Deno.bench({
  name: "SendMessage without the extension (no tree)",
  group: "a task's descendants",
  async fn() {
    await (await gateway.fetch(request())).text();
  },
});
