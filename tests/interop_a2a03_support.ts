/**
 * An agent written against `@a2a-js/sdk` 0.3.14's own server (its
 * `DefaultRequestHandler` behind its Express JSON-RPC handler on loopback),
 * no model. The first word of a message decides:
 *
 * - anything else: completes saying `echo: <text>`, adding
 *   ` (after: <earlier> | …)` when earlier messages of the same context came
 *   (how it sees a follow-up as a continuation);
 * - `words a b c`: streams the words as artifact chunks, then completes;
 * - `slow`: works until the task was read once with `tasks/get`, then completes;
 * - `hang`: works until cancelled;
 * - `ask <question>`: stops in `input-required` asking it; the next message
 *   on that task completes it saying `got: <answer>`;
 * - `throw`: throws once its task exists.
 */
import express, { type Request, type Response } from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from "@a2a-js/sdk-03/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk-03/server/express";
import type { Message, Task, TaskState } from "@a2a-js/sdk-03";

/** A JSON-RPC call the server answered. */
export interface Call {
  readonly method: string;
  readonly taskId?: string;
  readonly state?: string;
}

/** The served agent and what it saw. */
export interface Sdk03Server {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every message the executor got: its text and its ids. */
  readonly received: readonly { text: string; taskId: string; contextId: string }[];
  /**
   * The JSON-RPC methods called, in order, with the task they name (if any)
   * and the state of the task they answered (if one).
   */
  readonly calls: readonly Call[];
  /** Task ids the executor was asked to cancel. */
  readonly cancelled: readonly string[];
  /** Executions still running. */
  running(): number;
  /** The task as the SDK's own store holds it. */
  task(id: string): Promise<Task | undefined>;
  close(): Promise<void>;
}

const now = () => new Date().toISOString();

function agentMessage(context: RequestContext, text: string): Message {
  const { taskId, contextId } = context;
  return {
    kind: "message",
    role: "agent",
    messageId: crypto.randomUUID(),
    parts: [{ kind: "text", text }],
    taskId,
    contextId,
  };
}

class TestExecutor implements AgentExecutor {
  readonly received: { text: string; taskId: string; contextId: string }[] = [];
  readonly cancelled: string[] = [];
  readonly #cancels = new Map<string, () => void>();
  readonly #reads = new Map<string, () => void>();
  #running = 0;

  get running(): number {
    return this.#running;
  }

  /** The server saw `tasks/get` for `taskId`: a `slow` task may finish. */
  read(taskId: string): void {
    this.#reads.get(taskId)?.();
  }

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.#running++;
    try {
      await this.#execute(context, bus);
    } finally {
      this.#running--;
    }
  }

  cancelTask(taskId: string): Promise<void> {
    this.cancelled.push(taskId);
    this.#cancels.get(taskId)?.();
    return Promise.resolve();
  }

  async #execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = context;
    const text = userMessage.parts.map((p) => p.kind === "text" ? p.text : "").join("");
    const earlier = this.received.filter((m) => m.contextId === contextId).map((m) => m.text);
    this.received.push({ text, taskId, contextId });
    const status = (state: TaskState, note?: string, final = false) =>
      bus.publish({
        kind: "status-update",
        taskId,
        contextId,
        status: {
          state,
          timestamp: now(),
          message: note === undefined ? undefined : agentMessage(context, note),
        },
        final,
      });
    const end = (state: TaskState, note?: string) => {
      status(state, note, true);
      bus.finished();
    };
    if (!context.task) {
      bus.publish({
        kind: "task",
        id: taskId,
        contextId,
        status: { state: "submitted", timestamp: now() },
        history: [userMessage],
      });
    }
    await Promise.resolve();
    if (context.task?.status.state === "input-required") return end("completed", `got: ${text}`);
    const [verb, ...rest] = text.trim().split(/\s+/);
    switch (verb) {
      case "throw":
        throw new Error("no model is configured");
      case "ask":
        return end("input-required", rest.join(" "));
      case "words":
        status("working");
        rest.forEach((word, i) =>
          bus.publish({
            kind: "artifact-update",
            taskId,
            contextId,
            artifact: {
              artifactId: "answer",
              parts: [{ kind: "text", text: i === 0 ? word : ` ${word}` }],
            },
            append: i > 0,
            lastChunk: i === rest.length - 1,
          })
        );
        return end("completed");
      case "slow":
        status("working");
        await new Promise<void>((resolve) => this.#reads.set(taskId, resolve));
        this.#reads.delete(taskId);
        return end("completed", "done slowly");
      case "hang":
        status("working");
        await new Promise<void>((resolve) => this.#cancels.set(taskId, resolve));
        this.#cancels.delete(taskId);
        return end("canceled", "stopped on request");
      default: {
        const after = earlier.length > 0 ? ` (after: ${earlier.join(" | ")})` : "";
        return end("completed", `echo: ${text}${after}`);
      }
    }
  }
}

/** The SDK's request handler, noting each call and the state of the task it answered. */
class RecordingHandler extends DefaultRequestHandler {
  readonly calls: Call[] = [];

  override async getTask(...args: Parameters<DefaultRequestHandler["getTask"]>): Promise<Task> {
    return this.#noted("tasks/get", args[0].id, await super.getTask(...args));
  }

  override async cancelTask(
    ...args: Parameters<DefaultRequestHandler["cancelTask"]>
  ): Promise<Task> {
    this.calls.push({ method: "tasks/cancel", taskId: args[0].id });
    return this.#noted("tasks/cancel", args[0].id, await super.cancelTask(...args));
  }

  override sendMessage(
    ...args: Parameters<DefaultRequestHandler["sendMessage"]>
  ): ReturnType<DefaultRequestHandler["sendMessage"]> {
    this.calls.push({ method: "message/send", taskId: args[0].message.taskId });
    return super.sendMessage(...args);
  }

  override sendMessageStream(
    ...args: Parameters<DefaultRequestHandler["sendMessageStream"]>
  ): ReturnType<DefaultRequestHandler["sendMessageStream"]> {
    this.calls.push({ method: "message/stream", taskId: args[0].message.taskId });
    return super.sendMessageStream(...args);
  }

  #noted(method: string, taskId: string, task: Task): Task {
    this.calls.push({ method, taskId, state: task.status.state });
    return task;
  }
}

/**
 * Serve the test agent on loopback through the SDK's own Express handlers
 * (JSON-RPC at `/`, the card at `/.well-known/agent-card.json`); `streaming`
 * is what its card says.
 */
export async function serveSdk03(options: { streaming?: boolean } = {}): Promise<Sdk03Server> {
  const executor = new TestExecutor();
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = new InMemoryTaskStore();
  const handler = new RecordingHandler(
    {
      name: "sdk03 echo",
      description: "an agent on @a2a-js/sdk 0.3.14",
      url: `${url}/`,
      version: "1.0.0",
      protocolVersion: "0.3.0",
      preferredTransport: "JSONRPC",
      capabilities: { streaming: options.streaming ?? true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
    },
    store,
    executor,
  );
  // After the answer went out: the first read of a `slow` task sees it still working.
  app.use((req: Request, res: Response, next: () => void) => {
    res.on("finish", () => {
      const call = req.body as { method?: string; params?: { id?: string } } | undefined;
      if (call?.method === "tasks/get" && call.params?.id) executor.read(call.params.id);
    });
    next();
  });
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use(
    "/",
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  return {
    url,
    received: executor.received,
    calls: handler.calls,
    cancelled: executor.cancelled,
    running: () => executor.running,
    task: (id) => store.load(id),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
