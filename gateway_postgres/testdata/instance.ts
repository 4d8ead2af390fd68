// One gateway instance on PostgreSQL, for the many-instance tests and the
// benchmarks: a "streamer" provider whose run streams "chunk N " every
// STREAM_MS (20) until it has streamed the count in its prompt ("stream 5"),
// or until cancelled ("stream forever"); a steering message makes its next
// chunk "heard: <text> ". With PUSH set, push notifications go out from the
// PostgreSQL outbox (loopback webhooks allowed; PUSH_TIMEOUT_MS, PUSH_POLL_MS
// and PUSH_ATTEMPTS set it up). Prints "listening <url>" once ready.
import { type ContentBlock, createRootScope } from "@seam/host";
import {
  createSubagentService,
  subagentProgress,
  type SubagentProvider,
  type SubagentResultInput,
} from "@seam/subagent";
import { createGateway } from "@seam/gateway";
import {
  createPostgresPushConfigStore,
  createPostgresPushOutbox,
  createPostgresTaskStore,
} from "../mod.ts";

const env = (name: string) => Deno.env.get(name);
const store = await createPostgresTaskStore({
  url: env("DATABASE_URL")!,
  schema: env("SEAM_SCHEMA")!,
  leaseTtlMs: Number(env("LEASE_TTL_MS") ?? 1_000),
});
const every = Number(env("STREAM_MS") ?? 20);
const root = createRootScope();
const streamer: SubagentProvider = {
  name: "streamer",
  capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
  inheritsParentContext: false,
  start: (request) => {
    const id = crypto.randomUUID();
    const prompt = (request.prompt as ContentBlock[]).map((b) => b.type === "text" ? b.text : "")
      .join("");
    const count = /stream (\d+)/.exec(prompt)?.[1];
    const limit = count === undefined ? Infinity : Number(count);
    const heard: string[] = [];
    let out = "";
    let n = 0;
    let finish!: (r: SubagentResultInput) => void;
    const result = new Promise<SubagentResultInput>((resolve) => finish = resolve);
    const timer = setInterval(() => {
      const said = heard.length ? `heard: ${heard.shift()} ` : `chunk ${++n} `;
      out += said;
      request.parent.scope.emit(subagentProgress, { runId: id, kind: "text", text: said });
      if (n >= limit) {
        clearInterval(timer);
        finish({ output: [{ type: "text", text: out }], stopReason: "completed" });
      }
    }, every);
    return {
      id,
      started: Promise.resolve(),
      result,
      cancel: () => {
        clearInterval(timer);
        finish({ output: [{ type: "text", text: out }], stopReason: "aborted" });
      },
      sendMessage: (content: ContentBlock[]) => {
        heard.push(content.map((b) => b.type === "text" ? b.text : "").join(""));
        return Promise.resolve();
      },
      dispose: () => {
        clearInterval(timer);
        return Promise.resolve();
      },
    };
  },
};
createSubagentService(root).registerProvider(streamer);
const push = env("PUSH")
  ? {
    allowWebhook: (url: URL) => url.hostname === "127.0.0.1",
    configStore: createPostgresPushConfigStore(store),
    outbox: createPostgresPushOutbox(store, {
      timeoutMs: Number(env("PUSH_TIMEOUT_MS") ?? 2_000),
      leaseMarginMs: 500,
      pollIntervalMs: Number(env("PUSH_POLL_MS") ?? 100),
      maxAttempts: Number(env("PUSH_ATTEMPTS") ?? 50),
      baseDelayMs: 50,
      maxDelayMs: 200,
    }),
  }
  : undefined;
const gateway = createGateway({ scope: root, taskStore: store, ...(push ? { push } : {}) });
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  (request) => gateway.fetch(request),
);
console.log(`listening http://127.0.0.1:${server.addr.port}`);
const stop = async () => {
  await gateway.close();
  await server.shutdown();
  await root.dispose();
  await store.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
