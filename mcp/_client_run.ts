/**
 * One run of the MCP provider: a client connected to the server (a process
 * of its own, or a URL), one `tools/call` carrying the prompt, its progress
 * as `subagent/progress`, the server's elicitations as input requests up the
 * tree, cancel as `notifications/cancelled`, the tool's result as the run's.
 */
import { Client } from "@modelcontextprotocol/sdk/client";
// The SDK's subpath export maps `*.js` to `*.js.d.ts`; its declarations are found without `.js`.
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type JsonValue, SEAM_VERSION, textOf } from "@seam/host";
import {
  type SubagentInputAnswer,
  SubagentInputs,
  subagentProgress,
  type SubagentRequest,
  type SubagentResultInput,
  type SubagentRunHandle,
  type SubagentUsageInput,
} from "@seam/subagent";
import { askOf, elicitAnswerOf, type ElicitParams } from "./_ask.ts";
import { ServerProcess } from "./_child_process.ts";
import { fromMcpBlocks } from "./_content.ts";
import { ElicitRequest } from "./_schemas.ts";
import { MODERN, type ProtocolLine, TasksConnection } from "./_tasks_client.ts";
import { StreamTransport } from "./_stream_transport.ts";
import type { ResolvedProviderConfig } from "./_provider_config.ts";
import { traceMetaOf } from "./_trace.ts";

/** SDK error codes (`ErrorCode` in the SDK's types). */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

let sequence = 0;

/** What a failure before the call says. */
class StartFailure extends Error {}

/** A run against one MCP tool. */
export class McpRun implements SubagentRunHandle {
  readonly id: string;
  readonly started: Promise<void>;
  readonly result: Promise<SubagentResultInput>;
  readonly #config: ResolvedProviderConfig;
  readonly #request: SubagentRequest;
  readonly #line: () => Promise<ProtocolLine>;
  readonly #controller = new AbortController();
  readonly #inputs: SubagentInputs;
  #state: "starting" | "running" | "ended" = "starting";
  #client: Client | undefined;
  #process: ServerProcess | undefined;
  #http: StreamableHTTPClientTransport | undefined;
  #modern: TasksConnection | undefined;
  #markStarted!: (error?: unknown) => void;
  #disposing: Promise<void> | undefined;

  constructor(
    config: ResolvedProviderConfig,
    request: SubagentRequest,
    line: () => Promise<ProtocolLine>,
  ) {
    this.#config = config;
    this.#request = request;
    this.#line = line;
    this.id = `${config.name}-${Date.now().toString(36)}-${++sequence}`;
    this.#inputs = new SubagentInputs(request.parent.scope, this.id);
    this.started = new Promise<void>((resolve, reject) => {
      this.#markStarted = (error) => error === undefined ? resolve() : reject(error);
    });
    // Awaited by whoever waits for the run; a rejection without a reader is fine.
    this.started.catch(() => {});
    if (request.signal?.aborted) this.#controller.abort();
    else {
      request.signal?.addEventListener("abort", () => this.cancel(), { once: true });
    }
    this.result = this.#run();
  }

  cancel(): void {
    if (this.#state === "ended") return;
    this.#controller.abort();
    this.#inputs.cancelAll("cancelled");
  }

  respond(requestId: string, answer: SubagentInputAnswer): void {
    this.#inputs.respond(requestId, answer);
  }

  dispose(): Promise<void> {
    return this.#disposing ??= (async () => {
      this.cancel();
      await this.result;
      // The run's session ends with it (a cancel notification still in flight need not arrive).
      await this.#http?.terminateSession().catch(() => {});
      await this.#client?.close().catch(() => {});
      await this.#modern?.close();
      await this.#process?.stop(this.#config.teardownGraceMs);
    })();
  }

  async #run(): Promise<SubagentResultInput> {
    const signal = this.#controller.signal;
    try {
      const args = await this.#connect(signal);
      if (signal.aborted) throw new StartFailure("cancelled before it started");
      this.#state = "running";
      this.#markStarted();
      if (this.#modern) {
        const result = await this.#modern.call(this.#config.tool, args);
        if (result === undefined) return { output: "", stopReason: "aborted" };
        return resultOf(result as ToolResult);
      }
      const meta = traceMetaOf(this.#request.traceContext);
      const result = await this.#client!.callTool(
        {
          name: this.#config.tool,
          arguments: args,
          ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
        },
        undefined,
        {
          signal,
          timeout: this.#config.callTimeoutMs,
          resetTimeoutOnProgress: true,
          onprogress: (progress: { message?: string }) => this.#progress(progress.message),
        },
      );
      return resultOf(result as ToolResult);
    } catch (error) {
      if (this.#state === "starting") this.#markStarted(error);
      if (signal.aborted) return { output: "", stopReason: "aborted" };
      return { output: "", stopReason: "error", error: failureOf(error, this.#state) };
    } finally {
      this.#state = "ended";
      this.#inputs.cancelAll("the run ended");
    }
  }

  /** Connect, find the tool; the tool call's arguments. */
  async #connect(signal: AbortSignal): Promise<Record<string, JsonValue>> {
    const config = this.#config;
    if (signal.aborted) throw new StartFailure("cancelled before it started");
    let protocol: ProtocolLine;
    try {
      protocol = await this.#line();
    } catch (error) {
      throw new StartFailure(
        `Cannot start the MCP server: ${(error as Error)?.message ?? String(error)}`,
      );
    }
    if (signal.aborted) throw new StartFailure("cancelled before it started");
    if (protocol === MODERN) {
      const modern = this.#modern = new TasksConnection({
        url: config.url!,
        headers: config.headers,
        signal,
        elicit: async (params) =>
          elicitAnswerOf(
            params as ElicitParams,
            await this.#inputs.ask(askOf(params as ElicitParams, config.tool)),
          ),
      });
      let tools;
      try {
        tools = await modern.connect();
      } catch (error) {
        throw new StartFailure(
          `Cannot start the MCP server: ${(error as Error)?.message ?? String(error)}`,
        );
      }
      return this.#argumentsFor(tools);
    }
    const client = this.#client = new Client(
      { name: "seam", version: SEAM_VERSION },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    client.setRequestHandler(
      ElicitRequest,
      (request, extra) => this.#elicit(request.params as ElicitParams, extra.signal) as never,
    );
    let transport;
    if (config.url !== undefined) {
      transport = this.#http = new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: { ...config.headers } },
      });
    } else {
      const process = this.#process = new ServerProcess(config.spawn!);
      transport = new StreamTransport(process.input, process.output);
    }
    try {
      await client.connect(transport as never, { signal, timeout: config.startTimeoutMs });
    } catch (error) {
      throw new StartFailure(
        `Cannot start the MCP server: ${(error as Error)?.message ?? String(error)}`,
      );
    }
    const { tools } = await client.listTools(undefined, { signal, timeout: config.startTimeoutMs });
    return this.#argumentsFor(tools as { name: string; inputSchema?: { properties?: object } }[]);
  }

  /** The call's arguments, once the server's tools are known. */
  #argumentsFor(
    tools: { name: string; inputSchema?: { properties?: object } }[],
  ): Record<string, JsonValue> {
    const config = this.#config;
    const tool = tools.find((t) => t.name === config.tool);
    if (!tool) {
      throw new StartFailure(
        `Cannot start the MCP tool: the server has no tool "${config.tool}" (it has: ${
          tools.map((t) => t.name).join(", ") || "none"
        })`,
      );
    }
    const prompt = textOf(this.#request.prompt);
    if (config.arguments) return config.arguments(prompt, this.#request);
    const args: Record<string, JsonValue> = { prompt };
    if (tool.inputSchema?.properties && "description" in tool.inputSchema.properties) {
      args.description = this.#request.label ?? clip(prompt, 60);
    }
    return args;
  }

  #progress(message: string | undefined): void {
    if (typeof message !== "string" || message === "" || this.#state !== "running") return;
    this.#request.parent.scope.emit(subagentProgress, {
      ...this.#request.place,
      runId: this.id,
      kind: "text",
      text: message,
    });
  }

  async #elicit(params: ElicitParams, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (this.#state !== "running") return { action: "cancel" };
    const asked = this.#inputs.ask(askOf(params, this.#config.tool));
    signal.addEventListener("abort", () => this.#inputs.cancelAll("the server withdrew it"), {
      once: true,
    });
    return elicitAnswerOf(params, await asked);
  }
}

interface ToolResult {
  readonly content?: unknown;
  readonly isError?: boolean;
  readonly _meta?: Record<string, unknown>;
}

const STOP_REASONS = ["max-tokens", "refusal", "budget-exhausted", "aborted"];

/** The tool's result as the run's. A seam server's `_meta` says more (its stop reason, usage). */
function resultOf(result: ToolResult): SubagentResultInput {
  const output = fromMcpBlocks(result.content);
  const meta = result._meta ?? {};
  const usage = usageOf(meta["seam/usage"]);
  const stop = meta["seam/stopReason"];
  const base = usage ? { usage } : {};
  if (typeof stop === "string" && STOP_REASONS.includes(stop)) {
    return { ...base, output, stopReason: stop as "max-tokens" };
  }
  if (result.isError) {
    const seamError = meta["seam/error"] as { code?: unknown; message?: unknown } | undefined;
    const code =
      typeof seamError?.code === "string" && /^[A-Z][A-Z0-9_]{0,63}$/.test(seamError.code)
        ? seamError.code
        : "CHILD_FAILED";
    const message = textOf(output).trim() || "the MCP tool reported an error without saying what";
    return {
      ...base,
      output: "",
      stopReason: "error",
      error: { code, message: clip(message, 4000) },
    };
  }
  // No output schema can be asked of an MCP tool (the provider declares no such capability):
  // a tool's own structuredContent (codex's {threadId, content}) is not a requested result.
  return { ...base, output, stopReason: "completed" };
}

function usageOf(value: unknown): SubagentUsageInput | undefined {
  const figures = (v: unknown) => {
    if (v === null || typeof v !== "object") return undefined;
    const out: Record<string, number> = {};
    for (
      const key of ["inputTokens", "outputTokens", "cachedInputTokens", "modelCalls", "toolCalls"]
    ) {
      const n = (v as Record<string, unknown>)[key];
      if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) out[key] = n;
    }
    return out;
  };
  if (value === null || typeof value !== "object") return undefined;
  const u = value as { self?: unknown; total?: unknown; partial?: unknown };
  const self = figures(u.self);
  if (!self) return undefined;
  return { self, total: figures(u.total) ?? self, partial: u.partial === true };
}

function failureOf(
  error: unknown,
  state: string,
): { code: string; message: string; data?: JsonValue } {
  const message = (error as Error)?.message ?? String(error);
  if (error instanceof StartFailure || state === "starting") {
    return { code: "START_FAILED", message };
  }
  const code = (error as { code?: unknown })?.code;
  if (code === CONNECTION_CLOSED) return { code: "CONNECTION_LOST", message };
  if (code === REQUEST_TIMEOUT) return { code: "TIMEOUT", message };
  if (typeof code === "number") return { code: "PROTOCOL_ERROR", message, data: { code } };
  return { code: "CONNECTION_LOST", message };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
