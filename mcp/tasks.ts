/**
 * {@linkcode createMcpTasksHandler}: an {@linkcode McpServer}'s tools on the
 * MCP 2026-07-28 line over HTTP (the official `@modelcontextprotocol/server`
 * 2.x, stateless), with the Tasks extension (`io.modelcontextprotocol/tasks`).
 */
import { createMcpHandler, ProtocolError, Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import { refuseUnknownOptions } from "@seam/host";
import { checkArguments } from "./_arguments.ts";
import { refusal, runCall, type ToolCallResult } from "./_call.ts";
import type { ServerCore } from "./_core.ts";
import { McpTask } from "./_task.ts";
import { traceContextOf } from "./_trace.ts";
import { coreOf } from "./server.ts";
import type { McpEndpoint, McpServer } from "./types.ts";

/** Options of {@linkcode createMcpTasksHandler}. */
export interface McpTasksOptions {
  /** How long an ended task stays readable with `tasks/get`, in ms (10 min). */
  readonly ttlMs?: number;
  /** The poll interval suggested to clients, in ms (250). */
  readonly pollIntervalMs?: number;
}

/**
 * An MCP 2026-07-28 endpoint with Tasks: `fetch` answers one request (each
 * is self-contained on this line: no session); `close` cancels every task
 * (their runs and subtrees end) and stops. Tasks belong to `principal`:
 * another principal naming one is told it does not exist.
 */
export interface McpTasksHandler extends McpEndpoint {
  /** Tasks kept now (running, waiting for input, or ended within their TTL). */
  readonly tasks: number;
}

const TASKS = "io.modelcontextprotocol/tasks";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const INVALID_PARAMS = -32602;
const TaskId = z.looseObject({ taskId: z.string() });

function positive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(
      `Cannot create the MCP tasks handler: ${name} must be a positive integer, got ${value}`,
    );
  }
  return value;
}

/** Whether a request's envelope declares the Tasks extension. */
function wantsTask(envelope: unknown): boolean {
  const caps = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return caps?.extensions?.[TASKS] !== undefined;
}

class TasksEndpoint implements McpTasksHandler {
  readonly #core: ServerCore;
  readonly #tasks = new Map<string, McpTask>();
  readonly #running = new Set<Promise<unknown>>();
  readonly #ttlMs: number;
  readonly #pollMs: number;
  readonly #handler: ReturnType<typeof createMcpHandler>;
  #state: "open" | "closed" = "open";

  constructor(server: McpServer, options: McpTasksOptions) {
    refuseUnknownOptions("create the MCP tasks handler", options, ["ttlMs", "pollIntervalMs"]);
    this.#core = coreOf(server);
    this.#ttlMs = positive(options.ttlMs, "ttlMs", 10 * 60_000);
    this.#pollMs = positive(options.pollIntervalMs, "pollIntervalMs", 250);
    this.#handler = createMcpHandler(
      (context) => this.#serverFor(context.authInfo?.clientId ?? "anonymous"),
      // The SDK's default response mode ("auto"): one JSON body unless a handler sends a
      // message before its result. Ours send none (a task's progress and input requests
      // are read with tasks/get), so it answers as "json" did, without "json"'s warning at
      // start-up, and a message a later handler sends would upgrade to SSE, not be dropped.
      { legacy: "reject" },
    );
  }

  get tasks(): number {
    return this.#tasks.size;
  }

  fetch(request: Request, principal = "anonymous"): Promise<Response> {
    if (this.#state !== "open") {
      return Promise.resolve(
        Response.json({ error: "The MCP endpoint is closed" }, { status: 503 }),
      );
    }
    this.#sweep();
    return this.#handler.fetch(request, {
      authInfo: { token: "", clientId: principal, scopes: [] },
    });
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    for (const task of this.#tasks.values()) task.cancel();
    await Promise.allSettled([...this.#running]);
    this.#tasks.clear();
    await this.#handler.close();
  }

  /** The server answering one request of `principal`. */
  #serverFor(principal: string): Server {
    const core = this.#core;
    const server = new Server(core.info, {
      capabilities: { tools: {}, extensions: { [TASKS]: {} } } as never,
    });
    server.setRequestHandler(
      "tools/list",
      () => ({ tools: [...core.tools().values()].map((entry) => entry.listing) }) as never,
    );
    server.setRequestHandler("tools/call", (request, context) =>
      this.#call(
        principal,
        request.params as { name: string; arguments?: unknown },
        context.mcpReq,
      ) as never);
    server.setRequestHandler(
      "tasks/get",
      { params: TaskId },
      (params) =>
        ({ resultType: "complete", ...this.#task(principal, params.taskId).snapshot() }) as never,
    );
    server.setRequestHandler("tasks/update", { params: TaskId }, (params, context) => {
      const task = this.#task(principal, params.taskId);
      // The SDK lifts `inputResponses` out of the params, and drops the malformed ones.
      const { inputResponses, droppedInputResponseKeys } = context.mcpReq;
      try {
        if (droppedInputResponseKeys && droppedInputResponseKeys.length > 0) {
          throw new TypeError(
            `the response for input key "${
              droppedInputResponseKeys[0]
            }" must be an elicitation result (action accept, decline or cancel)`,
          );
        }
        task.update(inputResponses);
      } catch (error) {
        throw new ProtocolError(
          INVALID_PARAMS,
          `Cannot update task ${params.taskId}: ${(error as Error).message}`,
        );
      }
      return { resultType: "complete" } as never;
    });
    server.setRequestHandler("tasks/cancel", { params: TaskId }, (params) => {
      this.#task(principal, params.taskId).cancel();
      return { resultType: "complete" } as never;
    });
    return server;
  }

  #task(principal: string, id: string): McpTask {
    const task = this.#tasks.get(id);
    // Another principal's task is answered as one that does not exist.
    if (!task || task.principal !== principal) {
      throw new ProtocolError(INVALID_PARAMS, `Unknown task "${id}"`);
    }
    return task;
  }

  async #call(
    principal: string,
    params: { name: string; arguments?: unknown },
    request: { signal: AbortSignal; envelope?: unknown; _meta?: unknown },
  ): Promise<Record<string, unknown>> {
    const core = this.#core;
    const tools = core.tools();
    const entry = tools.get(params.name);
    if (!entry) {
      throw new ProtocolError(
        INVALID_PARAMS,
        `Unknown tool "${params.name}" (known: ${[...tools.keys()].join(", ") || "none"})`,
      );
    }
    const args = checkArguments(params.arguments, entry.outputSchema, core.limits.maxPromptBytes);
    if (typeof args === "string") return refusal("INVALID_ARGUMENTS", args);
    const release = core.acquire(principal);
    if (!release) {
      return refusal(
        "TOO_MANY_RUNS",
        `Cannot start the subagent: ${core.limits.maxRunsPerPrincipal} runs of this client are already running (wait for one to end)`,
      );
    }
    const trace = traceContextOf({
      ...(request._meta as object | undefined),
      ...(request.envelope as object | undefined),
    });
    const base = {
      subagents: core.subagents,
      scope: core.scope,
      parentId: core.parentId,
      agentOptions: core.agentOptions,
      maxProgressChars: core.limits.maxProgressChars,
      trace,
    };
    if (!wantsTask(request.envelope)) {
      // Without Tasks the call runs inline; its input requests cannot be asked.
      try {
        return await runCall(entry, args, { ...base, signal: request.signal });
      } finally {
        release();
      }
    }
    const task = new McpTask(principal, this.#ttlMs, this.#pollMs);
    this.#tasks.set(task.id, task);
    const running = runCall(entry, args, {
      ...base,
      signal: task.signal,
      elicit: (input, signal) => task.ask(input, signal),
      // The modern line has no stream to send progress on: `tasks/get` shows it.
      progress: (_n, message) => {
        task.progress(message);
        return Promise.resolve();
      },
    }).then(
      (result: ToolCallResult) => task.complete(result),
      (error) => task.fail(`The call failed: ${(error as Error)?.message ?? error}`),
    ).finally(() => {
      release();
      this.#running.delete(running);
    });
    this.#running.add(running);
    // `content: []` too: the SDK checks a tools/call result for it whatever its resultType.
    return { resultType: "task", content: [], ...task.snapshot() };
  }

  /** Forget ended tasks past their TTL. */
  #sweep(): void {
    const now = Date.now();
    for (const [id, task] of this.#tasks) if (task.expired(now)) this.#tasks.delete(id);
  }
}

/**
 * Serve `server`'s tools to MCP 2026-07-28 clients over HTTP (stateless:
 * every request carries its version and capabilities), with the Tasks
 * extension: a `tools/call` from a client that declares it answers a task
 * handle at once; `tasks/get` polls it (the result inline once it ends); a
 * child's input request (from any depth) shows as `input_required` with an
 * elicitation form, answered with `tasks/update` (a stale or mistyped key is
 * an error naming it, and nothing is applied); `tasks/cancel` ends the run
 * and its whole subtree. A client without Tasks gets the result inline.
 * `traceparent` in a request's `_meta` continues the caller's trace. 2025-era
 * requests are refused: serve them with `createMcpHttpHandler`.
 *
 * @param server The server whose tools, service and limits to serve.
 * @param options Task TTL and poll interval.
 * @returns The handler.
 */
export function createMcpTasksHandler(
  server: McpServer,
  options: McpTasksOptions = {},
): McpTasksHandler {
  return new TasksEndpoint(server, options);
}
