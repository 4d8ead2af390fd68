/**
 * A hand-written A2A v1.0 JSON-RPC agent on loopback that misbehaves on
 * purpose, and helpers to run the A2A provider against it (fault and
 * hostile-remote tests).
 */
import assert from "node:assert/strict";
import { type ContentBlock, createMemoryLogger, createRootScope, textOf } from "@seam/host";
import type { SubagentResultInput, SubagentRunHandle } from "@seam/subagent";
import { type A2AProvider, type A2AProviderOptions, createA2AProvider } from "@seam/subagent-a2a";
import { serveRaw } from "./a2a_support.ts";

/** A JSON-RPC `result` (a stream frame or an answer). */
export type Frame = Record<string, unknown>;
/** Send one frame as an SSE event. */
export type Send = (result: Frame) => void;

/** What a stream script may do besides sending frames. */
export interface StreamContext {
  readonly request: Request;
  /** End the stream (the connection closes cleanly). */
  close(): void;
  /** Write raw SSE text (a comment, a broken event). */
  raw(text: string): void;
  /** Call `fn` every `ms` until the stream ends (either side). */
  every(ms: number, fn: () => void): void;
}

/** What a fake agent does with a streaming request (or a resubscription). */
export type StreamScript = (send: Send, ctx: StreamContext) => void | Promise<void>;

/** A fake agent: its base URL, the methods it was called with, its open streams. */
export interface FakeAgent {
  readonly url: string;
  readonly calls: string[];
  /** Streams neither side has ended yet. */
  readonly openStreams: number;
  close(): Promise<void>;
}

export const TASK = "task-1";
export const CONTEXT = "ctx-1";

/** A task frame in `state`. */
export const task = (state: string, extra: Frame = {}): Frame => ({
  task: { id: TASK, contextId: CONTEXT, status: { state }, ...extra },
});
/** A status update frame, with the agent's word when `text` is given. */
export const status = (state: string, text?: string): Frame => ({
  statusUpdate: {
    taskId: TASK,
    contextId: CONTEXT,
    status: text === undefined
      ? { state }
      : { state, message: { messageId: "s", role: "ROLE_AGENT", parts: [{ text }] } },
  },
});
/** An artifact update frame of artifact `out`. */
export const words = (text: string, append: boolean): Frame => ({
  artifactUpdate: {
    taskId: TASK,
    contextId: CONTEXT,
    artifact: { artifactId: "out", parts: [{ text }] },
    append,
    lastChunk: false,
  },
});

export interface FakeAgentOptions {
  stream?: StreamScript;
  /** Answer SendStreamingMessage with this response instead; `hang()` never answers (until close). */
  raw?: (request: Request, hang: () => Promise<Response>) => Response | Promise<Response>;
  resubscribe?: StreamScript | "refuse" | "fail";
  getTask?: () => Frame;
  /** Answer GetTask with this response as is (garbage), instead of `getTask`'s task. */
  getTaskResponse?: (id: unknown) => Response;
  /** The answer to SendMessage (for a card that does not stream). Default: a WORKING task. */
  sendMessage?: () => Frame;
  /** The card's `capabilities.streaming`. Default `true`. */
  streaming?: boolean;
  /** The card to serve instead of the usual one (given the agent's base URL). */
  card?: (url: string) => Frame;
  /** Refuse CancelTask (-32603), as an agent that cannot cancel does; `"hang"`: never answer it. */
  refuseCancel?: boolean | "hang";
  /** Answer any request before the agent looks at it (a 401, a redirect); `undefined` passes. */
  intercept?: (request: Request, url: string) => Response | undefined;
}

/**
 * A hand-written A2A v1.0 JSON-RPC agent on loopback. `stream` answers
 * SendStreamingMessage, `resubscribe` SubscribeToTask; CancelTask answers a
 * CANCELED task; every method is recorded in `calls`.
 */
export function fakeAgent(options: FakeAgentOptions): FakeAgent {
  const calls: string[] = [];
  const ends = new Set<() => void>();
  const hanging: ((response: Response) => void)[] = [];
  const hang = () => new Promise<Response>((resolve) => hanging.push(resolve));
  const encoder = new TextEncoder();
  let url = "";
  const sseResponse = (request: Request, id: unknown, script: StreamScript): Response => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    const timers = new Set<ReturnType<typeof setInterval>>();
    const end = () => {
      if (closed) return;
      closed = true;
      ends.delete(close);
      for (const timer of timers) clearInterval(timer);
      timers.clear();
    };
    const close = () => {
      if (closed) return;
      end();
      try {
        controller.close();
      } catch { /* already errored */ }
    };
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        ends.add(close);
      },
      cancel() {
        end();
      },
    });
    const raw = (text: string) => {
      if (closed) return;
      controller.enqueue(encoder.encode(text));
    };
    const send: Send = (result) =>
      raw(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`);
    const every = (ms: number, fn: () => void) => {
      if (closed) return;
      timers.add(setInterval(() => closed || fn(), ms));
    };
    Promise.resolve().then(() => script(send, { request, close, raw, every })).catch(close);
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
  const server = serveRaw(async (request) => {
    const intercepted = options.intercept?.(request, url);
    if (intercepted) {
      await request.body?.cancel();
      return intercepted;
    }
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/.well-known/agent-card.json") {
      return Response.json(
        options.card?.(url) ?? {
          name: "fake",
          supportedInterfaces: [{
            url: `${url}/`,
            protocolBinding: "JSONRPC",
            protocolVersion: "1.0",
          }],
          capabilities: { streaming: options.streaming ?? true },
        },
      );
    }
    const body = await request.json();
    calls.push(body.method);
    const reply = (result: unknown) => Response.json({ jsonrpc: "2.0", id: body.id, result });
    switch (body.method) {
      case "SendStreamingMessage": {
        if (options.raw) return options.raw(request, hang);
        return sseResponse(request, body.id, options.stream!);
      }
      case "SendMessage":
        return reply(options.sendMessage?.() ?? task("TASK_STATE_WORKING"));
      case "SubscribeToTask": {
        const r = options.resubscribe;
        if (r === "refuse" || r === undefined) {
          return Response.json({
            jsonrpc: "2.0",
            id: body.id,
            error: { code: -32004, message: "Unsupported operation: not streaming this task" },
          });
        }
        if (r === "fail") return new Response("bad gateway", { status: 502 });
        return sseResponse(request, body.id, r);
      }
      case "GetTask":
        if (options.getTaskResponse) return options.getTaskResponse(body.id);
        return reply((options.getTask?.() ?? task("TASK_STATE_WORKING")).task);
      case "CancelTask":
        if (options.refuseCancel === "hang") return hang();
        if (options.refuseCancel) {
          // As ADK's server answers it: the task goes on.
          return Response.json({
            jsonrpc: "2.0",
            id: body.id,
            error: { code: -32603, message: "Internal error: cancel is not supported yet" },
          });
        }
        return reply((task("TASK_STATE_CANCELED")).task);
      default:
        return Response.json({
          jsonrpc: "2.0",
          id: body.id,
          error: { code: -32601, message: "Method not found" },
        });
    }
  });
  url = server.url;
  return {
    url,
    calls,
    get openStreams() {
      return ends.size;
    },
    async close() {
      for (const resolve of hanging) resolve(new Response("closing", { status: 503 }));
      for (const end of [...ends]) end();
      await server.close();
    },
  };
}

/** A root scope and a parent agent on a child scope. */
export const parentScope = () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  return { root, parent: { id: "main", scope: root.child("main") } };
};

/** A one-word prompt. */
export const prompt = [{ type: "text" as const, text: "go" }];

/** A result with its output's text and what went wrong (`""` for nothing). */
export type Settled = SubagentResultInput & { text: string; why: string };

/** The run's result, with its output's text and its error's message. */
export async function settle(run: SubagentRunHandle): Promise<Settled> {
  const result = await run.result;
  return {
    ...result,
    text: textOf(result.output as ContentBlock[]),
    why: result.error?.message ?? "",
  };
}

/**
 * The run's result, as {@linkcode settle}, or a failure when it has not
 * ended within `ms` (the run is then cancelled): a broken bound fails the
 * test instead of hanging it. Not a timing assertion: `ms` is far above
 * any bound under test.
 */
export async function settleWithin(
  run: SubagentRunHandle,
  ms = 5_000,
): Promise<Settled> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.cancel();
      reject(new Error(`the run did not end within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([settle(run), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Run `fn` with a provider for `agent` (short timeouts, quick reconnects), then clean up. */
export async function withProvider(
  agent: FakeAgent,
  fn: (
    provider: A2AProvider,
    parent: { id: string; scope: ReturnType<typeof createRootScope> },
  ) => Promise<void>,
  extra: Partial<A2AProviderOptions> = {},
): Promise<void> {
  const { root, parent } = parentScope();
  try {
    const provider = await createA2AProvider({
      url: agent.url,
      timeoutMs: 300,
      reconnect: { retries: 2, delayMs: 5 },
      ...extra,
    });
    try {
      await fn(provider, parent);
    } finally {
      await provider.dispose();
    }
  } finally {
    await root.dispose();
    await agent.close();
  }
}

/**
 * Run a provider for `agent` (two re-attach retries, 5 ms apart) and check
 * that its run ends `CONNECTION_LOST` once both failed, the re-attached
 * stream's end described as `ending`, and that the remote task was
 * cancelled: the first drop counts as one failure, then two re-attachments.
 */
export async function assertLostAfterTwoRetries(agent: FakeAgent, ending: string): Promise<void> {
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.error?.code, "CONNECTION_LOST", result.why);
    const why =
      `(SubscribeToTask): lost remote task "task-1" (the re-attached stream ended before the task did, ${ending}) and 2 attempt(s) to re-attach failed`;
    assert.ok(result.why.includes(why), result.why);
    assert.deepEqual(result.error?.data, { call: "SubscribeToTask", taskId: TASK, retries: 2 });
    await run.dispose();
    assert.deepEqual(agent.calls, [
      "SendStreamingMessage",
      "SubscribeToTask",
      "SubscribeToTask",
      "CancelTask",
    ]);
  }, { idleTimeoutMs: 60_000, reconnect: { retries: 2, delayMs: 5, maxDelayMs: 5 } });
}
