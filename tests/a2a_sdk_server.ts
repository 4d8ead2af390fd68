/**
 * A server nobody here wrote: the `@a2a-js/sdk` 1.3 reference request
 * handler on Express (JSON-RPC at `/a2a/jsonrpc`, HTTP+JSON at `/a2a/rest`,
 * both with the SDK's v0.3 compatibility on), with an executor written for
 * the tests. The card at `/.well-known/agent-card.json` is the v1.0 card;
 * `/v03/.well-known/agent-card.json` serves the same agent as a v0.3 card,
 * as a v0.3-only agent would.
 *
 * The executor reads the first word of the message:
 * `complete a b c` streams the words as artifact updates and completes;
 * `hang` works until cancelled; `fail why` fails with its status message;
 * `reject why` rejects; `ask what?` asks for input (the answer completes
 * the task); `direct text` replies with a message, no task; `data` completes
 * with a data part `{"answer": "42"}`.
 */
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { type AgentCard, type Message, type Part, Role, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from "@a2a-js/sdk/server";
import {
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
  UserBuilder,
} from "@a2a-js/sdk/server/express";

/** The served reference agent. */
export interface SdkServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Each message the executor received: its text and its metadata. */
  readonly received: { text: string; metadata: unknown; taskId: string; contextId: string }[];
  /** Task ids the executor was asked to cancel. */
  readonly cancelled: string[];
  /** Executions still running. */
  readonly running: () => number;
  close(): Promise<void>;
}

const text = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

const now = () => new Date().toISOString();

function agentMessage(context: RequestContext, value: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: context.contextId,
    taskId: context.taskId,
    role: Role.ROLE_AGENT,
    parts: [text(value)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

class TestExecutor implements AgentExecutor {
  readonly received: SdkServer["received"] = [];
  readonly cancelled: string[] = [];
  readonly #waiting = new Map<string, () => void>();
  #running = 0;

  get running(): number {
    return this.#running;
  }

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.#running++;
    try {
      await this.#execute(context, bus);
    } finally {
      this.#running--;
    }
  }

  async #execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const message = context.userMessage;
    const said = message.parts.map((p) => p.content?.$case === "text" ? p.content.value : "")
      .join("");
    this.received.push({
      text: said,
      metadata: message.metadata,
      taskId: context.taskId,
      contextId: context.contextId,
    });
    const [verb, ...rest] = said.trim().split(/\s+/);
    const words = rest.join(" ");
    const { taskId, contextId } = context;
    const status = (state: TaskState, note?: string) =>
      bus.publish(AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state,
          message: note === undefined ? undefined : agentMessage(context, note),
          timestamp: now(),
        },
        metadata: undefined,
      }));
    const artifact = (parts: Part[], append: boolean, lastChunk: boolean) =>
      bus.publish(AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: "answer",
          name: "answer",
          description: "",
          parts,
          metadata: undefined,
          extensions: [],
        },
        append,
        lastChunk,
        metadata: undefined,
      }));

    if (verb === "direct") {
      bus.publish(AgentEvent.message({ ...agentMessage(context, words), taskId: "" }));
      return;
    }
    // Every call publishes the task first (a follow-up too).
    bus.publish(AgentEvent.task({
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
      artifacts: context.task?.artifacts ?? [],
      history: [message],
      metadata: undefined,
    }));
    if (context.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      status(TaskState.TASK_STATE_WORKING);
      artifact([text(`got: ${said}`)], false, true);
      status(TaskState.TASK_STATE_COMPLETED);
      return;
    }
    status(TaskState.TASK_STATE_WORKING);
    switch (verb) {
      case "complete": {
        const list = words.split(" ");
        for (let i = 0; i < list.length; i++) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          artifact([text(i === 0 ? list[i] : ` ${list[i]}`)], i > 0, i === list.length - 1);
        }
        return status(TaskState.TASK_STATE_COMPLETED);
      }
      case "hang":
        await new Promise<void>((resolve) => this.#waiting.set(taskId, resolve));
        return;
      case "fail":
        return status(TaskState.TASK_STATE_FAILED, words);
      case "reject":
        return status(TaskState.TASK_STATE_REJECTED, words);
      case "ask":
        return status(TaskState.TASK_STATE_INPUT_REQUIRED, words);
      case "data":
        artifact(
          [{
            content: { $case: "data", value: { answer: "42" } },
            metadata: undefined,
            filename: "",
            mediaType: "application/json",
          }],
          false,
          true,
        );
        return status(TaskState.TASK_STATE_COMPLETED);
      default:
        return status(TaskState.TASK_STATE_FAILED, `unknown verb "${verb}"`);
    }
  }

  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.cancelled.push(taskId);
    bus.publish(AgentEvent.statusUpdate({
      taskId,
      contextId: "",
      status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() },
      metadata: undefined,
    }));
    this.#waiting.get(taskId)?.();
    this.#waiting.delete(taskId);
    return Promise.resolve();
  }

  release(): void {
    for (const resolve of this.#waiting.values()) resolve();
    this.#waiting.clear();
  }
}

/** Serve the reference agent on loopback; `streaming` is what its card says. */
export async function startSdkServer(options: { streaming: boolean }): Promise<SdkServer> {
  const executor = new TestExecutor();
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rpc = `${url}/a2a/jsonrpc`;
  const rest = `${url}/a2a/rest`;
  const card: AgentCard = {
    name: "sdk reference",
    description: "The @a2a-js/sdk reference request handler with a test executor",
    supportedInterfaces: [
      { url: rpc, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: rest, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
      { url: rpc, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
      { url: rest, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "0.3" },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: options.streaming, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [{
      id: "test",
      name: "test",
      description: "Scripted by the first word of the message",
      tags: [],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    }],
    signatures: [],
  };
  // What a v0.3-only agent serves: the 0.3 card shape.
  const v03Card = {
    protocolVersion: "0.3.0",
    name: "sdk reference (0.3)",
    description: card.description,
    url: rpc,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: rpc, transport: "JSONRPC" },
      { url: rest, transport: "HTTP+JSON" },
    ],
    version: "1.0.0",
    capabilities: { streaming: options.streaming, pushNotifications: false },
    defaultInputModes: ["text"],
    defaultOutputModes: ["text"],
    skills: [{ id: "test", name: "test", description: "Scripted", tags: [] }],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const userBuilder = UserBuilder.noAuthentication;
  app.get("/v03/.well-known/agent-card.json", (_req: unknown, res: { json(v: unknown): void }) => {
    res.json(v03Card);
  });
  app.use(
    "/.well-known/agent-card.json",
    agentCardHandler({ agentCardProvider: () => Promise.resolve(card) }),
  );
  app.use(
    "/a2a/jsonrpc",
    jsonRpcHandler({ requestHandler: handler, userBuilder, legacyCompat: { enabled: true } }),
  );
  app.use(
    "/a2a/rest",
    restHandler({ requestHandler: handler, userBuilder, legacyCompat: { enabled: true } }),
  );
  return {
    url,
    received: executor.received,
    cancelled: executor.cancelled,
    running: () => executor.running,
    async close() {
      executor.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
