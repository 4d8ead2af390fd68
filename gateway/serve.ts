/**
 * Serve a gateway with `Deno.serve`: the only part of `@seam/gateway` that
 * touches the runtime. Listens on `HOST`/`PORT` from the environment when
 * set (default `127.0.0.1:8787`) and prints the card URL and a request to
 * paste into a terminal.
 *
 * @example Serve a host's providers on an ephemeral port, then stop
 * ```ts ignore
 * import { createHost } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { serveGateway } from "@seam/gateway/serve";
 *
 * const host = createHost();
 * createSubagentService(host.scope);
 * const served = serveGateway({ scope: host.scope }, { port: 0, quiet: true });
 * console.log(served.url);
 * await served.shutdown();
 * ```
 *
 * @module
 */
import { createGateway, type Gateway, type GatewayOptions } from "./gateway.ts";

/** Where and how {@linkcode serveGateway} listens. */
export interface ServeOptions {
  /** The interface to listen on. Default: `HOST` from the environment, else `127.0.0.1`. */
  readonly hostname?: string;
  /** The port (0: any free port). Default: `PORT` from the environment, else 8787. */
  readonly port?: number;
  /** Aborting it shuts the server and the gateway down. */
  readonly signal?: AbortSignal;
  /** Print nothing. */
  readonly quiet?: boolean;
  /** Where the banner goes. Default `console.log`. */
  readonly log?: (line: string) => void;
}

/** A running gateway server. */
export interface ServedGateway {
  /** The gateway behind the server. */
  readonly gateway: Gateway;
  /** The base URL it answers on (`http://127.0.0.1:8787`). */
  readonly url: string;
  /** The agent card's URL. */
  readonly cardUrl: string;
  /** Stop accepting connections, close the gateway (cancelling live tasks), wait for both. */
  shutdown(): Promise<void>;
  /** Settles once the server stopped. */
  readonly finished: Promise<void>;
}

function envOf(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // no --allow-env: use the defaults
  }
}

/** The banner printed at start: the card URL and a ready-to-paste request. */
export function banner(url: string): string[] {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: {
      message: { messageId: "hello-1", role: "ROLE_USER", parts: [{ text: "@reply Hello!" }] },
    },
  });
  return [
    `seam gateway listening on ${url}`,
    `agent card: ${url}/.well-known/agent-card.json`,
    "try:",
    `curl -s ${url}/ -H 'content-type: application/json' -H 'A2A-Version: 1.0' -d '${body}'`,
  ];
}

/**
 * Create a gateway from `options` and serve it with `Deno.serve`.
 *
 * @throws {RangeError} for a port outside 0-65535.
 */
export function serveGateway(options: GatewayOptions, serve: ServeOptions = {}): ServedGateway {
  const hostname = serve.hostname ?? envOf("HOST") ?? "127.0.0.1";
  const port = serve.port ?? Number(envOf("PORT") ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`Cannot serve the gateway: port must be 0-65535, got ${port}`);
  }
  const gateway = createGateway(options);
  const controller = new AbortController();
  serve.signal?.addEventListener("abort", () => void shutdown(), { once: true });
  const server = Deno.serve({
    hostname,
    port,
    signal: controller.signal,
    onListen: () => {},
  }, (request) => gateway.fetch(request));
  const addr = server.addr as Deno.NetAddr;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const url = `http://${host}:${addr.port}`;
  if (!serve.quiet) { for (const line of banner(url)) (serve.log ?? console.log)(line); }
  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> =>
    stopping ??= (async () => {
      await gateway.close();
      controller.abort();
      await server.finished;
    })();
  return {
    gateway,
    url,
    cardUrl: `${url}/.well-known/agent-card.json`,
    shutdown,
    finished: server.finished,
  };
}
