/**
 * Serve a gateway with `Deno.serve`: the only part of `@seam/gateway` that
 * touches the runtime. Listens on `HOST`/`PORT` from the environment when
 * set (default `127.0.0.1:8787`: loopback only), its public URL from
 * `SEAM_PUBLIC_URL`, answers A2A 0.3 clients beside 1.0, and prints the card URL and a
 * request to paste into a terminal. Serving on any other address without
 * `auth` prints a warning first (see {@linkcode exposureWarning}): anyone who
 * reaches that address could run agents on your model keys.
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
import { refuseUnknownOptions } from "@seam/host";
import { createGateway } from "./gateway.ts";
import type { Gateway, GatewayOptions } from "./options.ts";
import { stringify } from "./core/_builtins.ts";

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
  /**
   * Where the warning about serving without auth beyond loopback goes
   * (`quiet` does not silence it). Default `console.error`.
   */
  readonly warn?: (line: string) => void;
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

/** Every option of {@linkcode ServeOptions}. */
const SERVE_OPTIONS = [
  "hostname",
  "port",
  "signal",
  "quiet",
  "log",
  "warn",
] satisfies (keyof ServeOptions)[];

function envOf(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined; // no --allow-env: use the defaults
  }
}

/** The banner printed at start: the card URL and a ready-to-paste request. */
export function banner(url: string): string[] {
  const body = stringify({
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

/** Whether `hostname` names a loopback interface (`127.0.0.0/8`, `::1`, `localhost`). */
function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return name === "localhost" || name.endsWith(".localhost") || name === "::1" ||
    /^127(\.\d{1,3}){3}$/.test(name) || /^::ffff:127(\.\d{1,3}){3}$/.test(name);
}

/**
 * The warning {@linkcode serveGateway} prints before it serves a gateway
 * without `auth` on `hostname`, or `undefined` when there is nothing to warn
 * about (a loopback address, or auth is on).
 *
 * @example
 * ```ts
 * import { exposureWarning } from "@seam/gateway/serve";
 * import assert from "node:assert/strict";
 *
 * assert.equal(exposureWarning("127.0.0.1", false), undefined);
 * assert.equal(exposureWarning("0.0.0.0", true), undefined);
 * assert.match(exposureWarning("0.0.0.0", false)!, /WARNING: .* without auth/);
 * ```
 */
export function exposureWarning(hostname: string, auth: boolean): string | undefined {
  if (auth || isLoopback(hostname)) return undefined;
  return `WARNING: serving the seam gateway on ${hostname} without auth: anyone who can reach this address can run agents (and spend your model's keys). Pass auth ({ tokens } or { verify }) to createGateway/serveGateway, or serve on 127.0.0.1.`;
}

/**
 * Create a gateway from `options` and serve it with `Deno.serve`, on
 * `127.0.0.1` unless told otherwise. Serving without `options.auth` on any
 * non-loopback address prints {@linkcode exposureWarning} to `serve.warn`
 * before it listens. Unlike `createGateway`, it answers A2A 0.3 clients
 * beside 1.0 unless `options.a2a03` is `false` (ADK's, Mastra's and the 0.3
 * SDK's clients speak 0.3), and takes `publicUrl` from `SEAM_PUBLIC_URL`
 * in the environment when `options` gives none.
 *
 * @throws {RangeError} for a port outside 0-65535.
 * @throws {TypeError} for an unknown option (of `options` or `serve`), naming it and the known ones.
 */
export function serveGateway(options: GatewayOptions, serve: ServeOptions = {}): ServedGateway {
  refuseUnknownOptions("serve the gateway", serve, SERVE_OPTIONS);
  const hostname = serve.hostname ?? envOf("HOST") ?? "127.0.0.1";
  const port = serve.port ?? Number(envOf("PORT") ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`Cannot serve the gateway: port must be 0-65535, got ${port}`);
  }
  const warning = exposureWarning(hostname, options.auth !== undefined);
  if (warning !== undefined) (serve.warn ?? console.error)(warning);
  // A2A 0.3 clients (ADK's, Mastra's, the 0.3 SDK's) are answered unless told otherwise;
  // the public URL may come from the environment (behind a proxy, on a platform).
  const gateway = createGateway({
    ...options,
    a2a03: options.a2a03 ?? true,
    publicUrl: options.publicUrl ?? (envOf("SEAM_PUBLIC_URL") || undefined),
  });
  const controller = new AbortController();
  serve.signal?.addEventListener("abort", () => void shutdown(), { once: true });
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname,
      port,
      signal: controller.signal,
      onListen: () => {},
    }, (request) => gateway.fetch(request));
  } catch (error) {
    gateway.close().catch(() => {}); // nothing was served: only the gateway to undo
    throw error;
  }
  const addr = server.addr;
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
