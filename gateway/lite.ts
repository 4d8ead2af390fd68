/**
 * The gateway for small bundles: {@linkcode createGateway} as
 * `@seam/gateway` exports it, but without A2A 0.3 (`a2a03`), push
 * notifications (`push`), the run inspector (`inspector`) and shared task
 * stores (the instances' cluster), which are then left out of a bundle of the entry
 * (on an edge host, whose bundles are measured: bench/README.md, "Edge
 * bundle"). Everything else (both A2A 1.0 bindings, streaming, auth, CORS,
 * limits, task stores) is the same gateway.
 *
 * @example An edge entry
 * ```ts
 * import { createHost, createScriptedModel } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createSpawnProvider } from "@seam/subagent-spawn";
 * import { createGateway } from "@seam/gateway/lite";
 * import assert from "node:assert/strict";
 *
 * const host = createHost();
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * createSubagentService(host.scope).registerProvider(createSpawnProvider());
 * const gateway = createGateway({ scope: host.scope, agentOptions: { model: "scripted" } });
 *
 * const card = await gateway.fetch(new Request("http://127.0.0.1/.well-known/agent-card.json"));
 * assert.equal((await card.json()).capabilities.pushNotifications, false);
 * assert.throws(
 *   () => createGateway({ scope: host.scope, a2a03: true }),
 *   /a2a03 needs createGateway from @seam\/gateway/,
 * );
 * await host.scope.dispose();
 * ```
 *
 * @module
 */
import { buildGateway } from "./http/_gateway.ts";
import { refuseUnknownGatewayOptions } from "./http/_options.ts";
import type { Gateway, GatewayOptions } from "./options.ts";

/**
 * Create an A2A v1.0 gateway over a subagent service, as `@seam/gateway`'s
 * `createGateway` does, without A2A 0.3, push notifications, the run
 * inspector and shared task stores.
 *
 * @throws {TypeError} for a bad or unknown option, as `@seam/gateway`'s
 *   does, and for `a2a03: true`, `push`, `inspector` or a shared
 *   `taskStore`, naming the option and the entry that has it.
 */
export function createGateway(options: GatewayOptions): Gateway {
  refuseUnknownGatewayOptions(options);
  return buildGateway(options, {});
}
