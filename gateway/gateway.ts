import { createSharedHome } from "./cluster/_shared_home.ts";
import { buildGateway, type GatewayFeatures } from "./http/_gateway.ts";
import { InspectorRecord } from "./inspector/_inspector_record.ts";
import { InspectorRoutes } from "./inspector/_inspector_routes.ts";
import { MountRoutes } from "./mounts/_mounts.ts";
import { DescendantTrees } from "./tree/_trees.ts";
import { refuseUnknownGatewayOptions, resolveInspector, resolvePush } from "./http/_options.ts";
import { PushService } from "./push/_push.ts";
import { PUSH_BINDINGS } from "./push/_push_bindings.ts";
import { V03_BINDINGS } from "./a2a03/_v03.ts";
import { addV03ToCard } from "./a2a03/_v03_card.ts";
import { cardShapeOf, isV1Route, v1MethodOf } from "./a2a03/_v03_version.ts";
import { createMemoryPushOutbox } from "./push_memory_outbox.ts";
import { createMemoryPushConfigStore } from "./push_store.ts";
import type { Gateway, GatewayOptions } from "./options.ts";

const EVERY_FEATURE: GatewayFeatures = {
  v03: {
    bindings: V03_BINDINGS,
    card: { add: addV03ToCard, shapeOf: cardShapeOf },
    isV1Route,
    v1MethodOf,
  },
  push: {
    resolve: resolvePush,
    service: (options, logger) => {
      const store = options.store ?? createMemoryPushConfigStore();
      // The outbox made here reads the configs in that store before each
      // attempt: a config replaced in place is not sent what was queued for
      // its old target (the gateway does not discard on a replace).
      const outbox = options.outbox ?? createMemoryPushOutbox({ logger, configStore: store });
      return new PushService({ ...options, store, outbox }, logger);
    },
    bindings: PUSH_BINDINGS,
  },
  cluster: createSharedHome,
  inspector: { resolve: resolveInspector, Record: InspectorRecord, Routes: InspectorRoutes },
  mounts: MountRoutes,
  tree: DescendantTrees,
};

/**
 * Create an A2A v1.0 gateway over a subagent service: every registered
 * provider becomes a skill of the agent card and an address for messages.
 *
 * Addressing: a request goes to the provider named by its `tenant` (the
 * `tenant` field of a JSON-RPC request, or the `/{provider}` path prefix of
 * HTTP+JSON), and to the default provider without one. The card at
 * `/.well-known/agent-card.json` lists every provider; the card at
 * `/{provider}/.well-known/agent-card.json` sets the tenant in its
 * interfaces, so an SDK client made from it addresses that provider.
 *
 * Mounting: with `basePath` (`"/a2a"`) every route lives under that path,
 * the card's URLs included, so the gateway can sit inside an existing Hono
 * app: `app.all("/a2a/*", (c) => gateway.fetch(c.req.raw))`.
 *
 * Limits: bodies are bounded in bytes, read time and nesting depth; live
 * tasks overall and per principal, follow-up messages and open streams per
 * task, and the bytes a stream holds unread are all capped (see
 * {@linkcode GatewayLimits}), each refusal naming its limit.
 *
 * The seam extension ({@linkcode SEAM_EXTENSION_URI}) carries the start-time
 * request fields and the caller's depth in `message.metadata`; see
 * {@linkcode SeamMessageExtension}.
 *
 * Follow-ups: a message with the `taskId` of a running task steers its run
 * (`run.sendMessage`; only `depth` may ride along). A message with the
 * `contextId` of a finished task whose run is kept resumes that run with its
 * original settings; besides `depth` it may carry `maxDepth`, which must
 * repeat the cap the run started under or be looser (a tighter one, or one on
 * a run that started uncapped, is `-32602`, since the resumed run could not
 * honour it), and the other start-time fields are `-32602`. When no run is
 * kept for that context (pushed out by `maxResumableRuns`, another
 * principal's, not resumable, or the gateway restarted), the message starts a
 * fresh run with every field it carries, `maxDepth` included. So a caller
 * that sends its cap with every message (as `@seam/subagent-a2a` does) keeps
 * it whichever way the gateway answers.
 *
 * @example Serve the gateway and send it a message over JSON-RPC
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService, type SubagentProvider } from "@seam/subagent";
 * import { createGateway } from "@seam/gateway";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * const echo: SubagentProvider = {
 *   name: "echo",
 *   capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
 *   inheritsParentContext: false,
 *   start: (request) => ({
 *     id: crypto.randomUUID(),
 *     started: Promise.resolve(),
 *     result: Promise.resolve({ output: request.prompt, stopReason: "completed" as const }),
 *     cancel() {},
 *     dispose: () => Promise.resolve(),
 *   }),
 * };
 * subagents.registerProvider(echo);
 * const gateway = createGateway({ scope: root });
 *
 * const response = await gateway.fetch(
 *   new Request("http://localhost/", {
 *     method: "POST",
 *     headers: { "content-type": "application/json", "a2a-version": "1.0" },
 *     body: JSON.stringify({
 *       jsonrpc: "2.0",
 *       id: 1,
 *       method: "SendMessage",
 *       params: {
 *         message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] },
 *       },
 *     }),
 *   }),
 * );
 * const { result } = await response.json();
 * assert.equal(result.task.status.state, "TASK_STATE_COMPLETED");
 * assert.deepEqual(result.task.artifacts[0].parts, [{ text: "hello" }]);
 * await gateway.close();
 * await root.dispose();
 * ```
 */
export function createGateway(options: GatewayOptions): Gateway {
  refuseUnknownGatewayOptions(options);
  return buildGateway(options, EVERY_FEATURE);
}
