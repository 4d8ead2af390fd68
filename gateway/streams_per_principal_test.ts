// limits.maxStreamsPerPrincipal over HTTP on loopback, in both bindings: a
// principal's streams over all its tasks are bounded, each slot comes back
// however its stream ends, and one principal's streams never count against
// another's.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService, type SubagentProvider } from "@seam/subagent";
import { createGateway, type Gateway, getGatewayTask } from "./mod.ts";
import { type Controlled, controlledProvider, message, type Wire } from "./_test_support.ts";

interface Served {
  readonly base: string;
  readonly gateway: Gateway;
  readonly provider: Controlled;
  readonly errors: () => string[];
}

/**
 * A gateway that takes `limit` streams per principal, on loopback: alice's
 * and bob's with `auth`, else the anonymous callers' (who share one). Its
 * provider is a controlled one, or `other`.
 */
async function withServed(
  limit: number,
  fn: (served: Served) => Promise<void>,
  auth = true,
  other?: SubagentProvider,
): Promise<void> {
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  const provider = controlledProvider();
  createSubagentService(root).registerProvider(other ?? provider);
  const gateway = createGateway({
    scope: root,
    auth: auth ? { tokens: { alice: "a-token", bob: "b-token" } } : undefined,
    limits: { maxStreamsPerPrincipal: limit },
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => gateway.fetch(request),
  );
  try {
    await fn({
      base: `http://127.0.0.1:${server.addr.port}`,
      gateway,
      provider,
      errors: () => records.filter((r) => r.level === "error").map((r) => r.message),
    });
  } finally {
    for (const run of provider.runs) run.finish({ output: "", stopReason: "completed" });
    await gateway.close();
    await server.shutdown();
    await root.dispose();
  }
}

/** A stream the test holds open: its first frame read, the rest unread. */
interface Held {
  readonly taskId: string;
  /** The client goes away. */
  cancel(): Promise<void>;
  /** Every frame to the stream's end. */
  rest(): Promise<Wire[]>;
}

/** One binding's way to open a stream and to read its refusal. */
interface Binding {
  readonly name: string;
  send(base: string, token: string): Promise<Response>;
  subscribe(base: string, token: string, id: string): Promise<Response>;
  /** The refusal's HTTP status, error text and ErrorInfo reason. */
  refusal(response: Response): Promise<{ status: number; text: string; reason: string }>;
}

const headers = (token: string): Record<string, string> => ({
  "content-type": "application/json",
  "a2a-version": "1.0",
  authorization: `Bearer ${token}`,
});

const rpcCall = (base: string, token: string, method: string, params: unknown) =>
  fetch(`${base}/`, {
    method: "POST",
    headers: headers(token),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });

const BINDINGS: readonly Binding[] = [
  {
    name: "JSON-RPC",
    send: (base, token) => rpcCall(base, token, "SendStreamingMessage", { message: message("go") }),
    subscribe: (base, token, id) => rpcCall(base, token, "SubscribeToTask", { id }),
    async refusal(response) {
      const body = await response.json();
      assert.equal(body.error.code, -32600);
      return {
        status: response.status,
        text: body.error.message,
        reason: body.error.data[0].reason,
      };
    },
  },
  {
    name: "HTTP+JSON",
    send: (base, token) =>
      fetch(`${base}/message:stream`, {
        method: "POST",
        headers: headers(token),
        body: JSON.stringify({ message: message("go") }),
      }),
    subscribe: (base, token, id) =>
      fetch(`${base}/tasks/${id}:subscribe`, { method: "POST", headers: headers(token) }),
    async refusal(response) {
      const body = await response.json();
      assert.equal(body.error.status, "RESOURCE_EXHAUSTED");
      return {
        status: response.status,
        text: body.error.message,
        reason: body.error.details[0].reason,
      };
    },
  },
];

/** The data of each SSE frame in `text` (a JSON-RPC result unwrapped). */
function parse(text: string): Wire[] {
  return text.split("\n\n").filter((f) => f.startsWith("data: ")).map((f) => {
    const data = JSON.parse(f.slice(6));
    return data.result ?? data;
  });
}

/** A stream opened (it must be one), held after its first frame. */
async function hold(response: Response): Promise<Held> {
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (!buffer.includes("\n\n")) {
    const { value, done } = await reader.read();
    assert.ok(!done, "the stream ended before its first frame");
    buffer += value;
  }
  const first = parse(buffer)[0];
  const taskId: string = first.task?.id ?? first.statusUpdate?.taskId;
  return {
    taskId,
    cancel: () => reader.cancel(),
    async rest() {
      for (let r = await reader.read(); !r.done; r = await reader.read()) buffer += r.value;
      return parse(buffer);
    },
  };
}

/** Try `open` until it is not refused (the server hears a client go on its own time). */
async function untilAllowed(open: () => Promise<Response>): Promise<Response> {
  for (let i = 0; i < 200; i++) {
    const response = await open();
    if (response.status !== 429) return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("still refused: the slot was never given back");
}

for (const binding of BINDINGS) {
  Deno.test(`limits.maxStreamsPerPrincipal refuses one stream more, before a task exists (${binding.name})`, async () => {
    await withServed(2, async ({ base, provider, errors }) => {
      const first = await hold(await binding.send(base, "a-token"));
      const second = await hold(await binding.subscribe(base, "a-token", first.taskId));
      assert.equal(provider.runs.length, 1);

      const sent = await binding.send(base, "a-token");
      assert.equal(sent.status, 429);
      const refused = await binding.refusal(sent);
      assert.match(
        refused.text,
        /^Too many streams: 2 are open for principal "alice" \(limits\.maxStreamsPerPrincipal is 2\)/,
      );
      assert.equal(refused.reason, "TOO_MANY_STREAMS_PER_PRINCIPAL");
      assert.equal(provider.runs.length, 1, "the refused SendStreamingMessage started no task");

      const subscribed = await binding.subscribe(base, "a-token", first.taskId);
      assert.equal(subscribed.status, 429);
      assert.match((await binding.refusal(subscribed)).text, /maxStreamsPerPrincipal is 2\)/);

      // Another principal counts its own.
      const bobs = await hold(await binding.send(base, "b-token"));
      assert.equal(provider.runs.length, 2);
      for (const held of [first, second, bobs]) await held.cancel();
      assert.deepEqual(errors(), []);
    });
  });

  Deno.test(`limits.maxStreamsPerPrincipal gives a slot back when its client goes (${binding.name})`, async () => {
    await withServed(1, async ({ base, provider }) => {
      const held = await hold(await binding.send(base, "a-token"));
      const refused = await binding.subscribe(base, "a-token", held.taskId);
      assert.equal(refused.status, 429);
      await refused.body?.cancel();
      await held.cancel();
      // The task goes on; its stream's slot is free again.
      const again = await hold(
        await untilAllowed(() => binding.subscribe(base, "a-token", held.taskId)),
      );
      assert.equal(provider.runs.length, 1);
      await again.cancel();
      const sent = await hold(await untilAllowed(() => binding.send(base, "a-token")));
      assert.equal(provider.runs.length, 2);
      await sent.cancel();
    });
  });

  Deno.test(`limits.maxStreamsPerPrincipal gives a slot back when its task ends (${binding.name})`, async () => {
    await withServed(1, async ({ base, provider }) => {
      const held = await hold(await binding.send(base, "a-token"));
      const refused = await binding.send(base, "a-token");
      assert.equal(refused.status, 429);
      await refused.body?.cancel();
      provider.runs[0].ready();
      provider.runs[0].finish({ output: "done", stopReason: "completed" });
      const rest = await held.rest();
      assert.equal(rest.at(-1)?.statusUpdate?.status.state, "TASK_STATE_COMPLETED");
      // Taken again at once: the slot came back as the stream ended.
      const next = await hold(await binding.send(base, "a-token"));
      assert.equal(provider.runs.length, 2);
      await next.cancel();
    });
  });

  Deno.test(`limits.maxStreamsPerPrincipal gives a slot back when a stream is refused for another reason (${binding.name})`, async () => {
    await withServed(1, async ({ base }) => {
      for (let i = 0; i < 3; i++) {
        const missing = await binding.subscribe(base, "a-token", "no-such-task");
        assert.equal(missing.status, binding.name === "JSON-RPC" ? 200 : 404);
        const body = await missing.json();
        assert.match(body.error.message, /Task not found/);
      }
      // None of those kept its slot; the one slot still bounds.
      const held = await hold(await binding.send(base, "a-token"));
      const refused = await binding.send(base, "a-token");
      assert.equal(refused.status, 429);
      await refused.body?.cancel();
      await held.cancel();
    });
  });
}

Deno.test("limits.maxStreamsPerPrincipal counts every unauthenticated caller as one principal", async () => {
  await withServed(1, async ({ base, provider }) => {
    const held = await hold(await BINDINGS[0].send(base, "none"));
    const other = await BINDINGS[1].send(base, "none");
    assert.equal(other.status, 429);
    assert.match(
      (await BINDINGS[1].refusal(other)).text,
      /^Too many streams: 1 are open for unauthenticated callers \(limits\.maxStreamsPerPrincipal is 1\)/,
    );
    assert.equal(provider.runs.length, 1);
    await held.cancel();
  }, false);
});

Deno.test("limits.maxStreamsPerPrincipal holds a direct reply's stream until it is answered or dropped", async () => {
  let answer!: () => void;
  const replying: SubagentProvider = {
    name: "replies",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      getGatewayTask(request.parent.scope)!.replyWithMessage();
      return {
        id: crypto.randomUUID(),
        started: Promise.resolve(),
        result: new Promise((resolve) =>
          answer = () => resolve({ output: "Direct answer", stopReason: "completed" })
        ),
        cancel() {},
        dispose: () => Promise.resolve(),
      };
    },
  };
  await withServed(
    1,
    async ({ base }) => {
      for (const binding of BINDINGS) {
        const waiting = await binding.send(base, "a-token");
        assert.equal(waiting.status, 200);
        const refused = await binding.send(base, "a-token");
        assert.equal(refused.status, 429, binding.name);
        await refused.body?.cancel();
        answer();
        const [reply] = parse(await waiting.text());
        assert.deepEqual(reply.message.parts, [{ text: "Direct answer" }]);
        // Answered: the slot is free at once.
        const dropped = await binding.send(base, "a-token");
        assert.equal(dropped.status, 200);
        await dropped.body!.cancel();
        const next = await untilAllowed(() => binding.send(base, "a-token"));
        answer();
        await next.body!.cancel();
      }
    },
    true,
    replying,
  );
});
