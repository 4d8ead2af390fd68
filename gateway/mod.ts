/**
 * `@seam/gateway`: a subagent service (`ctx.subagents`) behind an A2A v1.0
 * endpoint, so any A2A client, in any language, can delegate to any
 * registered provider. JSON-RPC and HTTP+JSON bindings, SSE streaming, agent
 * cards mirrored live from the provider registry, a bounded task store,
 * optional bearer-token auth. Runtime-neutral: `gateway.fetch` takes a
 * `Request` and answers a `Response` under `Deno.serve`, `deno serve`, Node,
 * Cloudflare Workers or Supabase (`@seam/gateway/serve` is the `Deno.serve`
 * entry).
 *
 * ## Endpoints
 *
 * | what | where |
 * | --- | --- |
 * | agent card (every provider a skill) | `GET /.well-known/agent-card.json` |
 * | one provider's card (interfaces carry `tenant`) | `GET /{provider}/.well-known/agent-card.json` |
 * | JSON-RPC | `POST /` |
 * | HTTP+JSON | `POST /message:send`, `POST /message:stream`, `GET /tasks/{id}`, `GET /tasks`, `POST /tasks/{id}:cancel`, `GET\|POST /tasks/{id}:subscribe`, each also under `/{provider}` |
 * | push configs (with `push`) | `POST\|GET /tasks/{id}/pushNotificationConfigs`, `GET\|DELETE /tasks/{id}/pushNotificationConfigs/{configId}`; JSON-RPC `Create`/`Get`/`List`/`DeleteTaskPushNotificationConfig` |
 *
 * ## Addressing a provider
 *
 * A request's `tenant` names the provider: the `tenant` field of JSON-RPC
 * params, or the `/{provider}` path prefix of HTTP+JSON. Without one the
 * default provider answers (`defaultProvider`, else the first registered).
 * An SDK client made from a provider's own card sets the tenant by itself.
 * Reading a task through another provider's tenant answers task-not-found.
 *
 * ## The seam extension
 *
 * Under {@linkcode SEAM_EXTENSION_URI} in `message.metadata`, a client may
 * send {@linkcode SeamMessageExtension}: `outputSchema`, `maxDepth`,
 * `toolFilter`, `persona`, `budget` (the caller's run's effective budget,
 * enforced here by the service: see `SubagentBudget`) and its own `depth`. A field the provider cannot
 * honour is `UnsupportedOperationError` (-32004); an unknown field or a bad
 * value is invalid params (-32602); a start above `maxDepth` (the child is at
 * `depth + 1`) is -32602 with `seamCode: MAX_DEPTH_EXCEEDED` in its
 * ErrorInfo. The providers below see the caller's place as a
 * `DelegationContext` in the parent's scope, so the cap holds through every
 * hop. The card's extension `params` list every provider's flags (`budget`
 * included) and
 * `inheritsParentContext`; the task's metadata carries
 * {@linkcode SeamTaskExtension} (`provider`, `runId`, the exact `stopReason`).
 *
 * ## Runs and tasks
 *
 * A message starts a run (`SUBMITTED`); `started` → `WORKING`; streamed text
 * (`subagent/progress`) → artifact updates; the result → `completed`:
 * COMPLETED, `aborted`: CANCELED, `error`, `max-tokens` and
 * `budget-exhausted`: FAILED (with the
 * partial output), `refusal`: REJECTED, with the output as the `output`
 * artifact (a structured value as a `data` part). `CancelTask` cancels the
 * run. A message with the `taskId` of a running task steers it
 * (`run.sendMessage`); a message in the `contextId` of a finished task
 * resumes its run (`run.resume`) as a new task. Runs are disposed when their
 * task ends, except a run that can `resume`, which is kept for its context
 * until `maxResumableRuns` newer ones push it out or the gateway closes.
 *
 * ## Push notifications
 *
 * Off unless `push` is given ({@linkcode GatewayPushOptions}); then the card
 * says `pushNotifications: true`, clients register webhooks per task, and
 * every status change (and the artifact, once whole) is POSTed to them as a
 * `StreamResponse`, at least once, with the config's authentication and an
 * `X-A2A-Notification-Id` to deduplicate. Webhooks pass a policy (http(s),
 * no private or loopback target unless `allowWebhook` allows it). Configs
 * live behind {@linkcode PushConfigStore}, delivery behind
 * {@linkcode PushOutbox}; both have in-memory defaults.
 *
 * ## Versions
 *
 * `A2A-Version: 1.0` (or no header: read as 1.0, the only version spoken);
 * any other version is `VersionNotSupportedError` (-32009). A v0.3 method name
 * is -32601 with a hint.
 *
 * @example Start the gateway over a service and read its card
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createGateway, SEAM_EXTENSION_URI } from "@seam/gateway";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * createSubagentService(root);
 * const gateway = createGateway({ scope: root });
 * const response = await gateway.fetch(
 *   new Request("http://localhost:8787/.well-known/agent-card.json"),
 * );
 * const card = await response.json();
 * assert.equal(card.supportedInterfaces[0].protocolBinding, "JSONRPC");
 * assert.equal(card.capabilities.extensions[0].uri, SEAM_EXTENSION_URI);
 * await gateway.close();
 * await root.dispose();
 * ```
 *
 * @module
 */
export * from "./gateway.ts";
export * from "./options.ts";
export * from "./progress.ts";
export * from "./push_memory_outbox.ts";
export * from "./push_outbox.ts";
export * from "./push_store.ts";
export * from "./task_context.ts";
export * from "./task_store.ts";
export * from "./memory/memory_task_store.ts";
export * from "./task_storage.ts";
export * from "./types.ts";
