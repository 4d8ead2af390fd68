/**
 * One MCP client connected to the server: an SDK `Server` (2025-11-25 line)
 * on its transport, answering `tools/list` and `tools/call`.
 */
import { Server } from "@modelcontextprotocol/sdk/server";
import type { SubagentInputAnswer, SubagentInputRequest } from "@seam/subagent";
import { checkArguments } from "./_arguments.ts";
import { refusal, runCall, type ToolCallResult } from "./_call.ts";
import { answerOf, elicitFormOf } from "./_elicit.ts";
import type { ServerCore } from "./_core.ts";
import { CallToolRequest, INVALID_PARAMS, ListToolsRequest, ProtocolError } from "./_schemas.ts";
import { traceContextOf } from "./_trace.ts";
import type { McpTransport } from "./types.ts";

/** A `tools/call` request, as the handler reads it. */
interface CallRequest {
  readonly params: { readonly name: string; readonly arguments?: unknown };
}

/** What the SDK passes a request handler, as far as it is used here. */
interface HandlerExtra {
  readonly signal: AbortSignal;
  readonly _meta?: { readonly progressToken?: string | number; readonly [key: string]: unknown };
  readonly requestId: string | number;
  readonly sendNotification: (notification: never) => Promise<void>;
}

/** A connected client. */
export class Connection {
  readonly principal: string;
  readonly #core: ServerCore;
  readonly #server: Server;
  readonly #calls = new Set<Promise<unknown>>();
  #state: "open" | "closing" | "closed" = "open";
  #closing: Promise<void> | undefined;
  readonly #closed: Promise<void>;

  constructor(core: ServerCore, principal: string) {
    this.principal = principal;
    this.#core = core;
    const server = this.#server = new Server(core.info, {
      capabilities: { tools: { listChanged: true } },
    });
    this.#closed = new Promise((resolve) => {
      server.onclose = () => {
        this.#state = "closed";
        resolve();
      };
    });
    server.setRequestHandler(ListToolsRequest, () => ({
      tools: [...core.tools().values()].map((entry) => entry.listing),
    }));
    const onCall = (request: CallRequest, extra: HandlerExtra) => {
      const call = this.#call(
        request.params.name,
        request.params.arguments,
        extra,
      );
      this.#calls.add(call);
      call.finally(() => this.#calls.delete(call)).catch(() => {});
      return call;
    };
    server.setRequestHandler(CallToolRequest, onCall as never);
  }

  /** Resolves once the transport closed. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  /** Serve on `transport`. */
  async connect(transport: McpTransport): Promise<void> {
    await this.#server.connect(transport as never);
  }

  /** Tell the client its tool list changed (nothing once closed). */
  toolsChanged(): void {
    if (this.#state !== "open") return;
    this.#server.sendToolListChanged().catch(() => {});
  }

  /** Close the transport: every call still running is cancelled, and awaited. */
  close(): Promise<void> {
    return this.#closing ??= (async () => {
      if (this.#state === "open") this.#state = "closing";
      await this.#server.close();
      await Promise.allSettled([...this.#calls]);
    })();
  }

  async #call(name: string, rawArgs: unknown, extra: HandlerExtra): Promise<ToolCallResult> {
    const { signal, requestId } = extra;
    const progressToken = extra._meta?.progressToken;
    const send = extra.sendNotification as (notification: unknown) => Promise<void>;
    const core = this.#core;
    const tools = core.tools();
    const entry = tools.get(name);
    if (!entry) {
      throw new ProtocolError(
        INVALID_PARAMS,
        `Unknown tool "${name}" (known: ${[...tools.keys()].join(", ") || "none"})`,
      );
    }
    const args = checkArguments(rawArgs, entry.outputSchema, core.limits.maxPromptBytes);
    if (typeof args === "string") return refusal("INVALID_ARGUMENTS", args);
    const release = core.acquire(this.principal);
    if (!release) {
      return refusal(
        "TOO_MANY_RUNS",
        `Cannot start the subagent: ${core.limits.maxRunsPerPrincipal} runs of this client are already running (wait for one to end)`,
      );
    }
    try {
      return await runCall(entry, args, {
        subagents: core.subagents,
        scope: core.scope,
        parentId: core.parentId,
        agentOptions: core.agentOptions,
        signal,
        trace: traceContextOf(extra._meta),
        maxProgressChars: core.limits.maxProgressChars,
        progress: progressToken === undefined ? undefined : (progress, message) =>
          send({
            method: "notifications/progress",
            params: { progressToken, progress, message },
          }),
        elicit: this.#canElicit()
          ? (request, signal) => this.#elicit(request, signal, requestId)
          : undefined,
      });
    } finally {
      release();
    }
  }

  #canElicit(): boolean {
    const elicitation = this.#server.getClientCapabilities()?.elicitation as
      | { form?: unknown; url?: unknown }
      | undefined;
    if (!elicitation) return false;
    // An empty `elicitation: {}` means form mode (2025-06-18 clients).
    return elicitation.form !== undefined || elicitation.url === undefined;
  }

  async #elicit(
    request: SubagentInputRequest,
    signal: AbortSignal,
    relatedRequestId: string | number,
  ): Promise<SubagentInputAnswer> {
    try {
      const result = await this.#server.elicitInput(elicitFormOf(request) as never, {
        signal,
        relatedRequestId,
        timeout: this.#core.limits.inputTimeoutMs,
      });
      return answerOf(request, result);
    } catch (error) {
      return {
        outcome: "refused",
        reason: `the MCP client gave no answer (${(error as Error)?.message ?? error})`,
      };
    }
  }
}
