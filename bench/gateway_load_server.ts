// One server of the gateway load benchmark (started by bench/gateway_load.ts):
//
//   deno run -A --v8-flags=--expose-gc bench/gateway_load_server.ts <kind> <port>
//
// kind: `gateway` (the seam gateway over an echo provider, Deno.serve),
// `sdk` (the @a2a-js/sdk 1.3 request handler on Express with an echo
// executor), `sdk-hono` (the same request handler and executor behind the
// SDK's JsonRpcTransportHandler on Hono under Deno.serve: the fairest peer,
// same runtime and HTTP layer as the gateway), `hono` (a bare Hono route
// answering the gateway's JSON), `gateway-pg` (the seam gateway on
// @seam/gateway-postgres at DATABASE_URL, in a schema of its own dropped at
// exit), `gateway-pg-nosync` (the same with `synchronousCommit: false`),
// `gateway-inspector` (the seam gateway with the run inspector on, no
// page open), `gateway-inspector-page` (the same with one page's event stream
// open, read and dropped in this process, so every event is built and sent).
// Every kind answers `GET /__rss` with its memory after a full GC, and
// prints `ready <port>` once it listens (port 0: any free port).
import express from "express";
import { Hono } from "hono";
import { type AgentCard, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  validateVersion,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { createLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway, type TaskStore } from "../gateway/mod.ts";
import { createPostgresTaskStore } from "../gateway_postgres/mod.ts";
import postgres from "postgres";
import { echo } from "./_echo_provider.ts";

const [kind, portText] = Deno.args;
const port = Number(portText);

function memory(): { rss: number; heapUsed: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = Deno.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
}

const RSS_PATH = "/__rss";

function ready(addr: { port: number }): void {
  console.log(`ready ${addr.port}`);
}

/** The load request's body; the same for every kind. */
export const LOAD_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: {
    message: { messageId: "load-1", role: "ROLE_USER", parts: [{ text: "hello from the load" }] },
  },
});

function serveGateway(taskStore?: TaskStore, inspector: "off" | "on" | "page" = "off"): void {
  const root = createRootScope({ logger: createLogger({ level: "silent" }) });
  createSubagentService(root).registerProvider(echo);
  const gateway = createGateway({ scope: root, taskStore, inspector: inspector !== "off" });
  if (inspector === "page") {
    // One page watching: its stream read as fast as it comes, and dropped.
    gateway.fetch(new Request("http://127.0.0.1/_inspect/events")).then((r) =>
      r.body!.pipeTo(new WritableStream())
    );
  }
  Deno.serve({ hostname: "127.0.0.1", port, onListen: ready }, (request) => {
    if (request.method === "GET" && new URL(request.url).pathname === RSS_PATH) {
      return Response.json(memory());
    }
    return gateway.fetch(request);
  });
}

async function serveHono(): Promise<void> {
  // The ceiling: what the gateway answers, as a constant.
  const root = createRootScope({ logger: createLogger({ level: "silent" }) });
  createSubagentService(root).registerProvider(echo);
  const gateway = createGateway({ scope: root });
  const sample = await (await gateway.fetch(
    new Request("http://127.0.0.1/", {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: LOAD_BODY,
    }),
  )).json();
  await gateway.close();
  await root.dispose();
  const app = new Hono();
  app.get(RSS_PATH, (c) => c.json(memory()));
  app.post("/", (c) => c.json(sample));
  Deno.serve({ hostname: "127.0.0.1", port, onListen: ready }, app.fetch);
}

function sdkCard(): AgentCard {
  return {
    name: "sdk echo",
    description: "The @a2a-js/sdk reference server with an echo executor",
    supportedInterfaces: [{
      url: `http://127.0.0.1:${port}/`,
      protocolBinding: "JSONRPC",
      tenant: "",
      protocolVersion: "1.0",
    }],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
}

function sdkHandler(card: AgentCard): DefaultRequestHandler {
  // The same lifecycle the gateway publishes for a run: the task, WORKING,
  // the output artifact, COMPLETED.
  const executor: AgentExecutor = {
    execute(context, bus) {
      const { taskId, contextId } = context;
      const now = () => new Date().toISOString();
      const message = context.userMessage;
      bus.publish(AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [message],
        metadata: undefined,
      }));
      bus.publish(AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
        metadata: undefined,
      }));
      bus.publish(AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: "output",
          name: "output",
          description: "",
          parts: message.parts,
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }));
      bus.publish(AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() },
        metadata: undefined,
      }));
      bus.finished();
      return Promise.resolve();
    },
    cancelTask: () => Promise.resolve(),
  };
  return new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
}

function serveSdk(): void {
  const card = sdkCard();
  const handler = sdkHandler(card);
  const app = express();
  app.get(RSS_PATH, (_req: unknown, res: { json(body: unknown): void }) => res.json(memory()));
  app.use(
    "/.well-known/agent-card.json",
    agentCardHandler({ agentCardProvider: () => Promise.resolve(card) }),
  );
  app.use(
    "/",
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  const server = app.listen(port, "127.0.0.1", () => ready(server.address() as { port: number }));
}

function serveSdkHono(): void {
  const card = sdkCard();
  const transport = new JsonRpcTransportHandler(sdkHandler(card));
  const encoder = new TextEncoder();
  const app = new Hono();
  app.get(RSS_PATH, (c) => c.json(memory()));
  app.post("/", async (c) => {
    const body = await c.req.json();
    const context = defaultServerCallContextBuilder({
      extensions: undefined,
      user: new UnauthenticatedUser(),
      headers: Object.fromEntries(c.req.raw.headers),
      requestedVersion: c.req.header("a2a-version") || undefined,
    });
    validateVersion(context.requestedVersion ?? "0.3", card, "JSONRPC");
    const answer = await transport.handle(body, context);
    if (typeof (answer as AsyncIterable<unknown>)[Symbol.asyncIterator] !== "function") {
      return c.json(answer);
    }
    const events = answer as AsyncGenerator<unknown>;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await events.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
      },
      async cancel() {
        await events.return(undefined);
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  });
  Deno.serve({ hostname: "127.0.0.1", port, onListen: ready }, app.fetch);
}

if (import.meta.main) {
  // Exit cleanly on SIGTERM, so `--cpu-prof` can write its profile.
  if (!kind.startsWith("gateway-pg")) Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
  if (kind === "gateway") serveGateway();
  else if (kind === "gateway-inspector") serveGateway(undefined, "on");
  else if (kind === "gateway-inspector-page") serveGateway(undefined, "page");
  else if (kind === "gateway-pg") await serveGatewayOnPostgres();
  else if (kind === "gateway-pg-nosync") await serveGatewayOnPostgres(false);
  else if (kind === "hono") await serveHono();
  else if (kind === "sdk") serveSdk();
  else if (kind === "sdk-hono") serveSdkHono();
  else {
    console.error(
      `unknown kind "${kind}" (gateway, gateway-inspector, gateway-inspector-page, gateway-pg, gateway-pg-nosync, sdk, sdk-hono, hono)`,
    );
    Deno.exit(2);
  }
}

/** The gateway on PostgreSQL, in a schema of its own that SIGTERM drops. */
async function serveGatewayOnPostgres(synchronousCommit?: boolean): Promise<void> {
  const url = Deno.env.get("DATABASE_URL");
  if (!url) throw new Error("gateway-pg needs DATABASE_URL");
  const schema = `bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const store = await createPostgresTaskStore({ url, schema, synchronousCommit });
  Deno.addSignalListener("SIGTERM", async () => {
    await store.close();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await sql.end();
    Deno.exit(0);
  });
  serveGateway(store);
}
