/** {@linkcode createMcpServer}: a subagent service as an MCP server. */
import { refuseUnknownOptions, type Scope, SEAM_VERSION } from "@seam/host";
import {
  getSubagentService,
  subagentProviderAdded,
  subagentProviderRemoved,
  type SubagentService,
} from "@seam/subagent";
import { Connection } from "./_connection.ts";
import type { ResolvedLimits, ServerCore } from "./_core.ts";
import { defaultToolName, isToolName, type ToolEntry, toolsOf } from "./_tools.ts";
import type {
  McpConnection,
  McpConnectOptions,
  McpServer,
  McpServerOptions,
  McpTransport,
} from "./types.ts";

const KNOWN_OPTIONS = [
  "scope",
  "subagents",
  "parent",
  "agentOptions",
  "providers",
  "toolName",
  "info",
  "limits",
] satisfies (keyof McpServerOptions)[];
const KNOWN_LIMITS = [
  "maxPromptBytes",
  "maxRunsPerPrincipal",
  "maxProgressChars",
  "inputTimeoutMs",
] satisfies (keyof NonNullable<McpServerOptions["limits"]>)[];
const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  maxPromptBytes: 1024 * 1024,
  maxRunsPerPrincipal: 8,
  maxProgressChars: 64 * 1024,
  inputTimeoutMs: 15 * 60_000,
});

const ACTION = "create the MCP server";

function refuse(state: string): never {
  throw new TypeError(`Cannot ${ACTION}: ${state}`);
}

function resolveLimits(limits: McpServerOptions["limits"]): ResolvedLimits {
  if (limits === undefined) return DEFAULT_LIMITS;
  refuseUnknownOptions(ACTION, limits, KNOWN_LIMITS, { under: "limits" });
  const resolved: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(limits)) {
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) {
      refuse(`limits.${key} must be a positive integer, got ${String(value)}`);
    }
    resolved[key] = value;
  }
  return resolved as unknown as ResolvedLimits;
}

class SubagentMcpServer implements McpServer, ServerCore {
  readonly info: { readonly name: string; readonly version: string };
  readonly subagents: SubagentService;
  readonly scope: Scope;
  readonly parentId: string;
  readonly agentOptions: McpServerOptions["agentOptions"];
  readonly limits: ResolvedLimits;
  readonly #chosen: readonly string[] | undefined;
  readonly #nameOf: (provider: string) => string;
  readonly #connections = new Set<Connection>();
  readonly #runs = new Map<string, number>();
  readonly #unlisten: (() => Promise<void>)[];
  #tools: Map<string, ToolEntry> | undefined;
  #live = 0;
  #state: "open" | "closed" = "open";

  constructor(options: McpServerOptions) {
    if (options === null || typeof options !== "object") refuse("options must be an object");
    refuseUnknownOptions(ACTION, options, KNOWN_OPTIONS);
    const scope = options.scope;
    if (!scope || typeof scope.child !== "function") refuse("scope must be a Scope");
    this.scope = options.parent?.scope ?? scope;
    this.parentId = options.parent?.id ?? "mcp-client";
    this.subagents = options.subagents ?? getSubagentService(scope);
    this.agentOptions = options.agentOptions;
    this.limits = resolveLimits(options.limits);
    this.info = options.info ?? { name: "seam", version: SEAM_VERSION };
    if (options.providers !== undefined && !Array.isArray(options.providers)) {
      refuse("providers must be an array of provider names");
    }
    this.#chosen = options.providers ? [...options.providers] : undefined;
    const toolName = options.toolName;
    this.#nameOf = (provider) => {
      const name = toolName ? toolName(provider) : defaultToolName(provider);
      if (typeof name !== "string" || !isToolName(name)) {
        throw new TypeError(
          `Cannot name the MCP tool of provider "${provider}": ${
            JSON.stringify(name)
          } is not a valid MCP tool name (1-128 of A-Z a-z 0-9 _ . -)`,
        );
      }
      return name;
    };
    const changed = () => this.#providersChanged();
    this.#unlisten = [
      scope.on(subagentProviderAdded, changed),
      scope.on(subagentProviderRemoved, changed),
    ];
  }

  get liveRuns(): number {
    return this.#live;
  }

  tools(): Map<string, ToolEntry> {
    return this.#tools ??= toolsOf(this.subagents, this.#chosen, this.#nameOf);
  }

  acquire(principal: string): (() => void) | undefined {
    const count = this.#runs.get(principal) ?? 0;
    if (count >= this.limits.maxRunsPerPrincipal) return undefined;
    this.#runs.set(principal, count + 1);
    this.#live++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#live--;
      const left = (this.#runs.get(principal) ?? 1) - 1;
      if (left === 0) this.#runs.delete(principal);
      else this.#runs.set(principal, left);
    };
  }

  async connect(transport: McpTransport, options: McpConnectOptions = {}): Promise<McpConnection> {
    if (this.#state !== "open") throw new Error("Cannot connect: the MCP server is closed");
    const principal = options.principal ?? "local";
    if (typeof principal !== "string" || principal === "") {
      throw new TypeError("Cannot connect: principal must be a non-empty string");
    }
    const connection = new Connection(this, principal);
    this.#connections.add(connection);
    connection.closed.then(() => this.#connections.delete(connection));
    await connection.connect(transport);
    return connection;
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "closed";
    await Promise.all([...this.#connections].map((c) => c.close()));
    await Promise.all(this.#unlisten.map((off) => off().catch(() => {})));
  }

  #providersChanged(): void {
    const before = this.#tools;
    this.#tools = undefined;
    const after = this.tools();
    if (before && sameTools(before, after)) return;
    for (const connection of this.#connections) connection.toolsChanged();
  }
}

function sameTools(a: Map<string, ToolEntry>, b: Map<string, ToolEntry>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, entry] of a) {
    const other = b.get(name);
    if (!other || JSON.stringify(other.listing) !== JSON.stringify(entry.listing)) return false;
  }
  return true;
}

/** The server's shared state, for the other endpoints of this package. */
export function coreOf(server: McpServer): ServerCore {
  if (!(server instanceof SubagentMcpServer)) {
    throw new TypeError("Cannot serve it: not a server made by createMcpServer");
  }
  return server;
}

/**
 * Serve a subagent service over MCP (the 2025-11-25 protocol line, with the
 * official SDK): every chosen provider is a tool with the `subagent` tool's
 * schema and wording; `tools/call` runs a child, streams its text as
 * `notifications/progress` (when the client sent a progress token), asks
 * the child's input requests as `elicitation/create` (refused with a note
 * when the client did not declare elicitation), and ends the run and its
 * subtree on `notifications/cancelled`. Connect it to a transport per
 * client (see `serveMcpStdio` from `@seam/mcp/stdio`).
 *
 * @example In memory, with the official client
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createSpawnProvider } from "@seam/subagent-spawn";
 * import { createMcpServer } from "@seam/mcp";
 * import { Client } from "@modelcontextprotocol/sdk/client";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * createSubagentService(host.scope).registerProvider(createSpawnProvider());
 * const parent = await host.agents.create({ id: "mcp", options: { model: "scripted" } });
 * const server = createMcpServer({ scope: host.scope, parent });
 * const [ours, theirs] = InMemoryTransport.createLinkedPair();
 * await server.connect(ours);
 * const client = new Client({ name: "example", version: "1.0.0" });
 * await client.connect(theirs);
 * const { tools } = await client.listTools();
 * assert.deepEqual(tools.map((t) => t.name), ["subagent_spawn"]);
 * const result = await client.callTool({
 *   name: "subagent_spawn",
 *   arguments: { description: "Say hello", prompt: "Say hello" },
 * });
 * assert.equal(result.isError, undefined);
 * await client.close();
 * await server.close();
 * await host.scope.dispose();
 * ```
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  return new SubagentMcpServer(options);
}
