/**
 * Mastra's side for the interop tests: Mastra agents on Mastra's own mock
 * model (`MastraLanguageModelV2Mock`) with Mastra's in-memory storage and
 * mock memory, served by Mastra's own server (`MastraServer` from
 * `@mastra/hono`, its A2A routes under `/api`) on loopback with `Deno.serve`.
 *
 * The agent `echo` reads the last user message; its first word decides:
 *
 * - anything else: replies `heard: <each user message it remembers in the
 *   thread, joined by " | ">` (A2A's context is Mastra's memory thread, so a
 *   follow-up in the same context shows the earlier turns);
 * - `words a b c`: streams the words, one delta each;
 * - `hang`: streams nothing until the run is aborted;
 * - `hold`: answers `held, then done` once the test releases it;
 * - `fail`: the model throws "the model is down";
 * - `approve <command>`: calls the tool `run`, which needs approval (Mastra
 *   suspends the run: the task's `input-required`), then says what it ran;
 * - `pick`: calls the tool `pick`, which suspends itself asking "Which
 *   file?" and, resumed with `{file}`, picks it.
 */
import { Hono } from "hono";
import { MastraServer } from "@mastra/hono";
import { InMemoryTaskStore } from "@mastra/server/a2a/store";
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { MockMemory } from "@mastra/core/memory";
import { SimpleAuth } from "@mastra/core/server";
import { InMemoryStore } from "@mastra/core/storage";
import { createTool } from "@mastra/core/tools";
import { MastraLanguageModelV2Mock } from "@mastra/core/test-utils/llm-mock";

type Part = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Prompt = { role: string; content: any }[];

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

function streamOf(parts: Part[]): ReadableStream<Part> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

function text(reply: string): Part[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...reply.split(/(?= )/).map((delta) => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: "stop", usage },
  ];
}

const said = (message: { content: unknown }): string =>
  typeof message.content === "string"
    ? message.content
    : (message.content as { text?: string }[]).map((c) => c.text ?? "").join("");

let calls = 0;

/** What the model's calls are doing, for the test to see and steer. */
class ModelState {
  /** Model calls streaming nothing until aborted (`hang`). */
  hanging = 0;
  readonly #held: (() => void)[] = [];

  /** Model calls waiting for {@linkcode release} (`hold`). */
  get held(): number {
    return this.#held.length;
  }

  hold(): Promise<void> {
    return new Promise((resolve) => this.#held.push(resolve));
  }

  release(): void {
    for (const resolve of this.#held.splice(0)) resolve();
  }
}

/** The model calls `tool` with `input`. */
function toolCall(tool: string, input: Record<string, unknown>): Part[] {
  return [
    { type: "stream-start", warnings: [] },
    {
      type: "tool-call",
      toolCallId: `call-${++calls}`,
      toolName: tool,
      input: JSON.stringify(input),
    },
    { type: "finish", finishReason: "tool-calls", usage },
  ];
}

// deno-lint-ignore no-explicit-any
async function respond(state: ModelState, options: any): Promise<Part[] | "hang"> {
  const prompt = options.prompt as Prompt;
  const last = prompt.at(-1)!;
  if (last.role === "tool") return text(`ran: ${JSON.stringify(last.content[0]?.output?.value)}`);
  const users = prompt.filter((m) => m.role === "user").map(said);
  const [verb, ...rest] = users.at(-1)!.trim().split(/\s+/);
  switch (verb) {
    case "words":
      return text(rest.join(" "));
    case "hang":
      return "hang";
    case "hold":
      await state.hold();
      return text("held, then done");
    case "fail":
      throw new Error("the model is down");
    case "approve":
      return toolCall("run", { command: rest.join(" ") });
    case "pick":
      return toolCall("pick", {});
    default:
      return text(`heard: ${users.map((u) => u.trim()).join(" | ")}`);
  }
}

/** A hanging stream: open until the call's signal aborts. */
function hanging(state: ModelState, signal: AbortSignal): ReadableStream<Part> {
  state.hanging++;
  return new ReadableStream({
    start(controller) {
      controller.enqueue({ type: "stream-start", warnings: [] });
      signal.addEventListener("abort", () => {
        state.hanging--;
        controller.error(signal.reason);
      }, { once: true });
    },
  });
}

/** The parts as one generated answer (what `generate` asks the model for). */
function generated(parts: Part[]): Record<string, unknown> {
  const finish = parts.find((p) => p.type === "finish")!;
  const reply = parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join("");
  const toolCalls = parts.filter((p) => p.type === "tool-call");
  return {
    content: [...(reply ? [{ type: "text", text: reply }] : []), ...toolCalls],
    finishReason: finish.finishReason,
    usage: finish.usage,
    warnings: [],
  };
}

/** A tool that needs approval: Mastra suspends the run until it is given. */
const run = createTool({
  id: "run",
  description: "Run a command",
  requireApproval: true,
  inputSchema: {
    type: "object",
    properties: { command: { type: "string" } },
    required: ["command"],
  } as never,
  execute: (input: unknown) => Promise.resolve({ ran: (input as { command: string }).command }),
});

/** A tool that suspends itself to ask which file, and picks the one it is resumed with. */
const pick = createTool({
  id: "pick",
  description: "Pick a file",
  inputSchema: { type: "object", properties: {} } as never,
  resumeSchema: {
    type: "object",
    properties: { file: { type: "string" } },
    required: ["file"],
  } as never,
  // deno-lint-ignore no-explicit-any
  execute: async (_input: unknown, context: any) => {
    const agent = context?.agent;
    if (agent?.resumeData === undefined) {
      await agent.suspend({ message: "Which file?" });
      return undefined;
    }
    return { picked: agent.resumeData.file };
  },
});

/** The `echo` agent on Mastra's mock model, with Mastra's mock memory. */
function echoAgent(state: ModelState): Agent {
  // deno-lint-ignore no-explicit-any
  const doStream = async (options: any) => {
    const parts = await respond(state, options);
    return { stream: parts === "hang" ? hanging(state, options.abortSignal) : streamOf(parts) };
  };
  // deno-lint-ignore no-explicit-any
  const doGenerate = async (options: any) => {
    const parts = await respond(state, options);
    if (parts === "hang") throw new Error("hang streams only");
    return generated(parts);
  };
  return new Agent({
    id: "echo",
    name: "echo",
    instructions: "Answer briefly.",
    model: new MastraLanguageModelV2Mock({
      doStream: doStream as never,
      doGenerate: doGenerate as never,
    }) as never,
    memory: new MockMemory(),
    tools: { run, pick },
  });
}

/** Mastra's server on loopback. */
export interface MastraServed {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The `echo` agent's card: `<url>/api/.well-known/echo/agent-card.json`. */
  readonly cardUrl: string;
  /** The A2A tasks Mastra's server holds, oldest first. */
  tasks(): { id: string; contextId: string; state: string }[];
  /** The JSON-RPC calls it answered, in order. */
  readonly calls: readonly MastraCall[];
  /** The model's calls. */
  readonly model: Pick<ModelState, "hanging" | "held" | "release">;
  close(): Promise<void>;
}

/** A JSON-RPC call Mastra's server answered. */
export interface MastraCall {
  readonly method: string;
  /** The task named (`params.id`, `params.message.taskId`). */
  readonly taskId?: string;
  /** The context a message named. */
  readonly contextId?: string;
  /** For a JSON answer: the state of the task it holds. */
  readonly state?: string;
  /** For a JSON answer: the error it holds. */
  readonly error?: { code: number; message: string };
  /** The parts of the message sent. */
  readonly parts?: readonly Record<string, unknown>[];
}

/** Note a JSON-RPC call and, for a JSON answer, what it answered. */
async function noted(request: Request, response: Response, calls: MastraCall[]): Promise<void> {
  if (request.method !== "POST") return;
  const body = await request.json().catch(() => undefined);
  if (typeof body?.method !== "string") return;
  const params = body.params ?? {};
  const call: MastraCall = {
    method: body.method,
    taskId: params.id ?? params.message?.taskId,
    contextId: params.message?.contextId,
    parts: params.message?.parts,
  };
  if (!response.headers.get("content-type")?.startsWith("application/json")) {
    calls.push(call);
    return;
  }
  const answer = await response.json().catch(() => undefined);
  calls.push({ ...call, state: answer?.result?.status?.state, error: answer?.error });
}

/** Serve the `echo` agent with Mastra's own server; with `token`, behind Mastra's `SimpleAuth`. */
export async function serveMastra(options: { token?: string } = {}): Promise<MastraServed> {
  const state = new ModelState();
  const auth = options.token === undefined
    ? undefined
    : new SimpleAuth({ tokens: { [options.token]: { id: "caller" } } });
  const mastra = new Mastra({
    agents: { echo: echoAgent(state) },
    storage: new InMemoryStore(),
    logger: false,
    ...(auth ? { server: { auth } } : {}),
  });
  const calls: MastraCall[] = [];
  const app = new Hono();
  const taskStore = new InMemoryTaskStore();
  await new MastraServer({ app: app as never, mastra, taskStore }).init();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const copy = request.clone();
      const response = await app.fetch(request);
      await noted(copy, response.clone(), calls);
      return response;
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  return {
    url,
    cardUrl: `${url}/api/.well-known/echo/agent-card.json`,
    tasks: () =>
      taskStore.list({ agentId: "echo" }).map(({ id, contextId, status }) => ({
        id,
        contextId,
        state: status.state,
      })),
    calls,
    model: state,
    close: () => server.shutdown(),
  };
}
