/**
 * The task a run serves, for the providers below the gateway: the accepted
 * A2A message, ids, principal and depth, found in the parent's scope.
 *
 * @module
 */
import { defineService, type Scope, type ServiceKey } from "@seam/host";
import type { GatewayTaskContext } from "./options.ts";

/** Where a task's scope provides its {@linkcode GatewayTaskContext}. */
export const gatewayTaskKey: ServiceKey<GatewayTaskContext> = defineService<GatewayTaskContext>(
  "@seam/gateway/task",
);

/**
 * The gateway task a run serves, from its parent's scope (or any scope
 * below it): `undefined` when the run was not started by a gateway.
 *
 * @example A provider that reads the message id of the task it serves
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService, type SubagentProvider } from "@seam/subagent";
 * import { createGateway, getGatewayTask } from "@seam/gateway";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const seen: string[] = [];
 * const provider: SubagentProvider = {
 *   name: "echo",
 *   capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
 *   inheritsParentContext: false,
 *   start: (request) => {
 *     seen.push(getGatewayTask(request.parent.scope)?.message.messageId ?? "none");
 *     return {
 *       id: crypto.randomUUID(),
 *       started: Promise.resolve(),
 *       result: Promise.resolve({ output: "ok", stopReason: "completed" as const }),
 *       cancel() {},
 *       dispose: () => Promise.resolve(),
 *     };
 *   },
 * };
 * createSubagentService(root).registerProvider(provider);
 * const gateway = createGateway({ scope: root });
 * await gateway.fetch(
 *   new Request("http://localhost/", {
 *     method: "POST",
 *     headers: { "content-type": "application/json" },
 *     body: JSON.stringify({
 *       jsonrpc: "2.0",
 *       id: 1,
 *       method: "SendMessage",
 *       params: { message: { messageId: "m-42", role: "ROLE_USER", parts: [{ text: "hi" }] } },
 *     }),
 *   }),
 * );
 * assert.deepEqual(seen, ["m-42"]);
 * await gateway.close();
 * await root.dispose();
 * ```
 */
export function getGatewayTask(scope: Scope): GatewayTaskContext | undefined {
  return scope.inject(gatewayTaskKey);
}
