/**
 * Mounted endpoints (`GatewayOptions.mounts`): other fetch handlers served
 * under the gateway's `basePath`, behind its bearer auth (how `@seam/mcp`'s
 * Streamable HTTP endpoint sits at `{base}/mcp` without the gateway
 * importing it). A feature of `@seam/gateway`; the lite entry leaves it out.
 *
 * @module
 */
import type { BearerAuth } from "../http/_auth.ts";
import { refuse } from "../http/_options.ts";
import type { GatewayMount, GatewayOptions } from "../options.ts";

/** Where mounted endpoints answer: the dispatcher asks `owns` before routing A2A. */
export class MountRoutes {
  readonly #entries: readonly (readonly [prefix: string, handler: GatewayMount])[];
  readonly #auth: BearerAuth | undefined;

  constructor(
    mounts: NonNullable<GatewayOptions["mounts"]>,
    basePath: string,
    auth: BearerAuth | undefined,
  ) {
    if (mounts === null || typeof mounts !== "object") refuse("mounts must be an object");
    const entries: [string, GatewayMount][] = [];
    for (const [path, handler] of Object.entries(mounts)) {
      if (!/^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(path)) {
        refuse(`mounts: "${path}" must be a path like "/mcp"`);
      }
      if (typeof handler !== "function") refuse(`mounts["${path}"] must be a function`);
      entries.push([basePath + path, handler]);
    }
    this.#entries = entries;
    this.#auth = auth;
  }

  /** The handler `url`'s path falls under (the mount's path or below it), if any. */
  owner(url: string): GatewayMount | undefined {
    const path = new URL(url).pathname;
    for (const [prefix, handler] of this.#entries) {
      if (path === prefix || path.startsWith(`${prefix}/`)) return handler;
    }
    return undefined;
  }

  /** Answer a mounted endpoint's request, after the gateway's bearer auth when it has one. */
  async handle(mount: GatewayMount, request: Request): Promise<Response> {
    const principal = this.#auth ? await this.#auth.principalOf(request) : undefined;
    return await mount(request, principal);
  }
}
