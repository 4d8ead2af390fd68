/**
 * Test support for the A2A provider: a seam gateway in front of `spawn` on
 * the scripted model, reached over real loopback HTTP or through the
 * gateway's fetch handler directly, and small raw servers for faults.
 */
import {
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  type LogRecord,
} from "@seam/host";
import { createSubagentService, type SubagentService } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { createGateway, type Gateway, type GatewayOptions } from "../gateway/mod.ts";

/** How the provider reaches the gateway. */
export type Reach = "loopback" | "fetch";

/** A gateway over spawn, and how to reach it. */
export interface SpawnGateway {
  readonly host: Host;
  readonly subagents: SubagentService;
  readonly gateway: Gateway;
  /** The gateway's base URL (`http://127.0.0.1:<port>`, or a fake origin for `fetch`). */
  readonly url: string;
  /** For `fetch`: the gateway's handler as a `fetch`; `undefined` over loopback. */
  readonly fetch: typeof fetch | undefined;
  /** Every request the gateway saw, as `METHOD /path`. */
  readonly requests: string[];
  readonly logs: LogRecord[];
  /** Children alive in the gateway's host (waits up to 2 s for teardown to settle). */
  liveChildren(): Promise<number>;
  /** Stop the server, close the gateway, dispose the host. Memoized. */
  close(): Promise<void>;
}

/** Start a gateway over `spawn` (scripted model) reached by `reach`. */
export function startSpawnGateway(
  reach: Reach,
  options: Partial<GatewayOptions> & { setup?: (host: Host, subagents: SubagentService) => void } =
    {},
): SpawnGateway {
  const { logger, records } = createMemoryLogger();
  const host = createHost({ logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  const { setup, ...gatewayOptions } = options;
  setup?.(host, subagents);
  const gateway = createGateway({
    scope: host.scope,
    agentOptions: { model: "scripted" },
    ...gatewayOptions,
  });
  const requests: string[] = [];
  const handle = (request: Request): Promise<Response> => {
    requests.push(`${request.method} ${new URL(request.url).pathname}`);
    return gateway.fetch(request);
  };
  let server: Deno.HttpServer<Deno.NetAddr> | undefined;
  let url: string;
  let fetchImpl: typeof fetch | undefined;
  if (reach === "loopback") {
    server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handle);
    url = `http://127.0.0.1:${server.addr.port}`;
  } else {
    url = "http://gateway.test";
    fetchImpl = (input, init) => handle(new Request(input, init));
  }
  let closing: Promise<void> | undefined;
  return {
    host,
    subagents,
    gateway,
    url,
    fetch: fetchImpl,
    requests,
    logs: records,
    async liveChildren() {
      const deadline = Date.now() + 2_000;
      while (
        (host.agents.list().length > 0 || gateway.liveTasks > 0) && Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return host.agents.list().length;
    },
    close() {
      return closing ??= (async () => {
        await gateway.close();
        await server?.shutdown();
        await host.scope.dispose();
      })();
    },
  };
}

/** Wait until `predicate` holds (polling every few ms), or fail after `ms`. */
export async function until(predicate: () => boolean, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("Timed out waiting for a condition");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A raw loopback server for fault tests; shut it down with `close()`. */
export function serveRaw(
  handler: (request: Request) => Response | Promise<Response>,
): { url: string; close(): Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}
