/**
 * The provider's side of the 2026-07-28 line with Tasks: the official client
 * (`@modelcontextprotocol/client` 2.4, pinned to 2026-07-28) and the Tasks
 * extension's requester session (`@modelcontextprotocol/ext-tasks` 0.2). The
 * session's `rawDispatch` posts each framed request as the 2026-07-28 HTTP
 * binding wants it (`Mcp-Method`, `Mcp-Name`, a JSON-RPC id).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type ApplicationInputRequest,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type TaskEnabledSession,
} from "@modelcontextprotocol/ext-tasks/client";
import { type JsonValue, SEAM_VERSION } from "@seam/host";

/** The line's version. */
export const MODERN = "2026-07-28";

/** The protocol lines the provider speaks. */
export type ProtocolLine = "2025-11-25" | "2026-07-28";

/**
 * Which line the server at `url` speaks, as the official client's `auto`
 * negotiation finds it: `server/discover` first, a modern answer offering
 * 2026-07-28 is that line; anything else (the legacy refusal of a request
 * before `initialize`) falls back to `initialize`, the 2025-11-25 line. A
 * session that fallback opened is ended (`DELETE`), so nothing is left
 * open on the server. Rejects when the server cannot be reached.
 */
export async function detectProtocol(
  url: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<ProtocolLine> {
  const client = new Client({ name: "seam", version: SEAM_VERSION }, {
    versionNegotiation: { mode: "auto" },
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...headers } },
  });
  try {
    await client.connect(transport, { timeout: timeoutMs });
    return client.getProtocolEra() === "modern" && client.getNegotiatedProtocolVersion() === MODERN
      ? MODERN
      : "2025-11-25";
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
}

/** What one call needs. */
export interface TasksCallOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  /** Answer an elicitation the task asks for. */
  readonly elicit: (params: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

let nextId = 0;

/** A connection to a 2026-07-28 server, for one run. */
export class TasksConnection {
  readonly #options: TasksCallOptions;
  #client: Client | undefined;
  #session: TaskEnabledSession | undefined;

  constructor(options: TasksCallOptions) {
    this.#options = options;
  }

  /** Connect; the server's tools (name and input schema). */
  async connect(): Promise<{ name: string; inputSchema?: { properties?: object } }[]> {
    const { url, headers } = this.#options;
    const client = this.#client = new Client({ name: "seam", version: SEAM_VERSION }, {
      versionNegotiation: { mode: { pin: MODERN } },
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { ...headers } } }),
    );
    this.#session = createTaskSessionFromClient(client, {
      endpointId: url,
      rawDispatch: (request) => this.#dispatch(request as Record<string, unknown>) as never,
      v2RequestFraming: {
        protocolVersion: MODERN,
        clientInfo: { name: "seam", version: SEAM_VERSION },
        clientCapabilities: {},
      },
      onInputRequest: (request: ApplicationInputRequest) => this.#input(request) as never,
    });
    const { tools } = await client.listTools();
    return tools as { name: string; inputSchema?: { properties?: object } }[];
  }

  /** Call `tool` (task-augmented when the server offers Tasks); its result, or `undefined` when cancelled. */
  async call(tool: string, args: Record<string, JsonValue>): Promise<unknown> {
    const { signal } = this.#options;
    const execution = await this.#session!.callTool(tool, args);
    const cancel = () => void execution.cancel().catch(() => {});
    if (signal.aborted) cancel();
    else signal.addEventListener("abort", cancel, { once: true });
    try {
      const { outcome } = await execution.settle();
      return outcome.status === "cancelled" ? undefined : resultFromTaskOutcome(outcome);
    } finally {
      signal.removeEventListener("abort", cancel);
    }
  }

  async close(): Promise<void> {
    await this.#session?.close().catch(() => {});
    await this.#client?.close().catch(() => {});
  }

  async #input(request: ApplicationInputRequest): Promise<Record<string, unknown>> {
    if (request.kind !== "elicitation") {
      throw new Error(`Cannot answer a ${request.kind} request: seam children ask by elicitation`);
    }
    return await this.#options.elicit(request.params as Record<string, unknown>);
  }

  async #dispatch(body: Record<string, unknown>): Promise<unknown> {
    const params = (body.params ?? {}) as Record<string, unknown>;
    const name = params.name ?? params.taskId ?? params.uri;
    const response = await fetch(this.#options.url, {
      method: "POST",
      headers: {
        ...this.#options.headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": String(body.method),
        ...(typeof name === "string" ? { "mcp-name": name } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: `seam-${++nextId}`, ...body }),
    });
    return await response.json();
  }
}
