/**
 * Test support for the gateway: a gateway over a subagent service with the
 * reference provider, served on real loopback HTTP, `@a2a-js/sdk` 1.3
 * clients for either binding, and the SDK's A2A 0.3 compatibility client with
 * raw 0.3 requests on both bindings.
 */
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, type LogRecord, type Scope } from "@seam/host";
import { createSubagentService, type SubagentService } from "@seam/subagent";
import {
  type AgentCard,
  type Message,
  Role,
  type SendMessageRequest,
  type Task,
} from "@a2a-js/sdk";
import {
  Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import {
  LegacyJsonRpcTransport,
  LegacyRestTransport,
  parseLegacyAgentCard,
} from "@a2a-js/sdk/compat/v0_3/client";
import { createGateway, type Gateway, type GatewayOptions } from "../gateway/mod.ts";
import { createReferenceProvider, type ReferenceProvider } from "./reference_provider.ts";

/** The two bindings the SDK client can use against the gateway. */
export const BINDINGS = ["JSONRPC", "HTTP+JSON"] as const;
/** One binding. */
export type Binding = (typeof BINDINGS)[number];

/** A served gateway and what it runs on. */
export interface Served {
  readonly root: Scope;
  readonly subagents: SubagentService;
  /** The reference provider with every capability (the default provider). */
  readonly reference: ReferenceProvider;
  /** A reference provider with no capability, registered as `bare`. */
  readonly bare: ReferenceProvider;
  readonly gateway: Gateway;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly logs: LogRecord[];
  /** Every request the server saw, as `METHOD /path`. */
  readonly requests: string[];
  /** An SDK client preferring `binding`, made from the card at `cardPath`. */
  client(binding: Binding, options?: { token?: string; cardPath?: string }): Promise<Client>;
}

/**
 * Serve a gateway over the reference providers for the duration of `fn`,
 * then shut everything down (server, gateway, scopes), whatever happens.
 */
export async function withGateway(
  options: Partial<GatewayOptions>,
  fn: (served: Served) => Promise<void>,
): Promise<void> {
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  const subagents = createSubagentService(root);
  const reference = createReferenceProvider();
  const bare = createReferenceProvider({
    name: "bare",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
  });
  subagents.registerProvider(reference);
  subagents.registerProvider(bare);
  const gateway = createGateway({ scope: root, ...options });
  const requests: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => {
      requests.push(`${request.method} ${new URL(request.url).pathname}`);
      return gateway.fetch(request);
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const served: Served = {
    root,
    subagents,
    reference,
    bare,
    gateway,
    url,
    logs: records,
    requests,
    client: (binding, clientOptions = {}) => makeClient(url, binding, clientOptions),
  };
  try {
    await fn(served);
  } finally {
    await gateway.close();
    await server.shutdown();
    await root.dispose();
  }
}

/** An SDK client for the gateway at `url`, preferring `binding`. */
export function makeClient(
  url: string,
  binding: Binding,
  options: { token?: string; cardPath?: string } = {},
): Promise<Client> {
  const fetchImpl: typeof fetch = options.token
    ? (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${options.token}`);
      return fetch(input, { ...init, headers });
    }
    : fetch;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl }),
        new RestTransportFactory({ fetchImpl }),
      ],
      preferredTransports: [binding],
    }),
  );
  return options.cardPath === undefined
    ? factory.createFromUrl(url)
    : factory.createFromUrl(`${url}${options.cardPath}`, "");
}

/** A user message with one text part, in the SDK's shape. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{
      content: { $case: "text", value: text },
      metadata: undefined,
      filename: "",
      mediaType: "",
    }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

/** A `SendMessageRequest` for `message`. */
export function sendRequest(
  message: Message,
  options: { returnImmediately?: boolean; historyLength?: number; tenant?: string } = {},
): SendMessageRequest {
  return {
    tenant: options.tenant ?? "",
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      historyLength: options.historyLength,
      returnImmediately: options.returnImmediately ?? false,
    },
    metadata: undefined,
  };
}

/** POST a JSON-RPC request with `fetch`; answers the status and the parsed body. */
export async function rawRpc(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return { status: response.status, body: await response.json() };
}

/** Wait until `predicate` holds (polling every few ms), or fail after `ms`. */
export async function until(predicate: () => boolean, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("Timed out waiting for a condition");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The card as a 0.3 client fetches it (no A2A-Version header). */
export async function card03(served: Served, path = "/.well-known/agent-card.json"): Promise<
  Record<string, unknown>
> {
  const response = await fetch(`${served.url}${path}`);
  assert.equal(response.status, 200);
  return await response.json();
}

/**
 * A 0.3 client made the way a 0.3 client reads the card: its 0.3 fields
 * (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`)
 * only, through the SDK's own 0.3 card parser and its 0.3 transport for
 * `binding`.
 */
export async function client03(served: Served, binding: Binding, path?: string): Promise<Client> {
  const raw = await card03(served, path);
  const { supportedInterfaces: _v1, ...fields03 } = raw;
  const card: AgentCard = parseLegacyAgentCard(fields03);
  const iface = card.supportedInterfaces.find((i) => i.protocolBinding === binding);
  assert.ok(iface, `the 0.3 card lists ${binding}`);
  assert.equal(iface.protocolVersion, "0.3");
  const transport = binding === "JSONRPC"
    ? new LegacyJsonRpcTransport({ endpoint: iface.url })
    : new LegacyRestTransport({ endpoint: iface.url });
  return new Client(transport, card);
}

/** `result` as a task, failing when it is not one (a direct Message, say). */
export function asTask(result: unknown): Task {
  assert.ok(result && typeof result === "object" && "status" in result, "expected a task");
  return result as Task;
}

/** The text of a task's artifacts, joined. */
export function textOf(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts).map((p) =>
    p.content?.$case === "text" ? p.content.value : ""
  ).join("");
}

/** POST a JSON-RPC request as a 0.3 client does (no A2A-Version unless given). */
export async function rpc(
  served: Served,
  method: string,
  params: unknown,
  options: { headers?: Record<string, string>; path?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${served.url}${options.path ?? "/"}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...options.headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
  });
  return { status: response.status, body: await response.json() };
}

/** An HTTP+JSON request as a 0.3 client does. */
export async function rest(
  served: Served,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${served.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** The JSON-RPC error in a 0.3 answer's `body`, failing when it holds none. */
export function error(body: Record<string, unknown>): { code: number; message: string } {
  const e = body.error as { code: number; message: string } | undefined;
  assert.ok(e, `expected an error, got ${JSON.stringify(body).slice(0, 300)}`);
  return e;
}

/** A 0.3 JSON-RPC user message holding `parts`, with `extra` fields over it. */
export function message03(
  parts: unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { kind: "message", messageId: crypto.randomUUID(), role: "user", parts, ...extra };
}
