import { hostKey, isRecord } from "@seam/host";
import {
  delegationContextKey,
  type SubagentCapabilities,
  SubagentDepthError,
  type SubagentRequest,
  type SubagentRunHandle,
  tighterDepthCap,
} from "@seam/subagent";
import { cardUrlOf, fetchCard } from "./_card.ts";
import { addressedProvider, clientFor } from "./_connect.ts";
import { bearerFetch, guardFetch, policyFetch } from "./_fetch.ts";
import { resolveOptions } from "./_options.ts";
import { traceHeaders } from "./_trace.ts";
import { SEAM_EXTENSION_URI, type SeamMessageFields } from "./_extension.ts";
import type { RemoteContext } from "./_remote.ts";
import { A2ARun } from "./_run.ts";
import type { A2ABinding, A2AProvider, A2AProviderOptions, A2ARemoteInfo } from "./types.ts";

const NO_CAPABILITIES: SubagentCapabilities = Object.freeze({
  outputSchema: false,
  depthLimit: false,
  toolFilter: false,
  persona: false,
  budget: false,
});

/**
 * Create a provider whose children run on a remote A2A v1.0 agent: another
 * seam gateway (which makes the gateway a remote provider), or anyone's A2A
 * agent (the `@a2a-js/sdk` servers, Google ADK, LangGraph, …; v0.3 agents
 * through the SDK client's compatibility layer).
 *
 * Discovery happens here, once: the agent card is read (or given), the
 * binding chosen (JSON-RPC or HTTP+JSON; `binding` picks one when both are
 * offered), and the capabilities fixed, so `start` stays synchronous.
 *
 * Capabilities: a seam gateway's card declares, in its seam extension, each
 * provider's flags and `inheritsParentContext`; the provider declares
 * those of the remote provider it addresses, and forwards `outputSchema`,
 * `maxDepth`, `toolFilter`, `persona` and `budget` in the extension of the
 * message. Any other agent: no start-time capability,
 * `inheritsParentContext: false`.
 *
 * Budget: declared only when the card's seam extension says the remote
 * provider honours one (`budget: true`; a gateway from before budgets says
 * nothing, so a budget is refused at start, as for any other agent). The
 * run's effective budget travels in the message's seam extension and the
 * gateway's service enforces it over there; the remote run's usage, which
 * the gateway reports in the task's metadata, counts against the budgets
 * above here when the run settles, and the service keeps the wall time
 * here too.
 *
 * Depth: the caller's depth (its host agent's `subagentDepth`, else the
 * scope's `DelegationContext`) and the tighter of `request.maxDepth` and an
 * inherited cap travel to a seam gateway, so a cap set at the top holds
 * through every hop; a start that would exceed a cap throws
 * `SubagentDepthError` before any request. `agentOptions.model` does not
 * travel: the remote agent runs on its own model.
 *
 * A run sends `SendStreamingMessage` (or `SendMessage` and polls `GetTask`
 * when the card says the agent does not stream). `started` fulfils when the
 * remote task exists; streamed text is emitted as `subagent/progress`
 * (kind `text`) in the parent's scope while someone listens. The task's end
 * maps to the result: the exact `stopReason` a seam gateway reports in the
 * task's metadata, otherwise `COMPLETED` → `completed`, `FAILED` → `error`,
 * `REJECTED` → `refusal`. A task in `INPUT_REQUIRED` / `AUTH_REQUIRED` asks
 * the run's parent: an input request (`SubagentInputs`, announced as
 * `subagent/input-required` in the parent's scope, offered to the handlers
 * up its scopes, answerable with `run.respond`), from a seam gateway its
 * structured request (kind, message, tool call, options; `path` from this
 * tree's root to the run that asks, since every message carries the run's
 * path in the seam extension), from another agent a question in its words.
 * The answer goes back as a message on the same task (the seam extension's
 * exact `answer` for a seam gateway, text otherwise) and the run goes on;
 * the wait counts against neither `idleTimeoutMs` nor `deadlineMs`. A
 * refused request reaches a seam gateway as its answer; for another agent
 * the run ends `error` (code `INPUT_REQUIRED` / `AUTH_REQUIRED`; the task is
 * left open: `resume(answer)` continues it; disposing the run cancels it).
 * Cancel and dispose refuse pending requests. The output
 * is the agent's own words only: the task's artifacts (text → text blocks,
 * images → image blocks, URLs → resource blocks), or the agent's status
 * message when there are none; with an `outputSchema`, the last `data` part
 * is the `structured` value (a completed task without one, or with one that
 * does not match, ends `error`). Elsewhere a `data` part is its JSON text.
 * A run ends `aborted` only when it was cancelled here (`cancel`, the
 * request's `signal`, `dispose`): a task cancelled over there (`CANCELED`, or
 * a seam gateway's `aborted`, e.g. "Canceled: the gateway shut down.") ends
 * `error` (code `REMOTE_CANCELED`) with the remote's reason, so it cannot be
 * taken for the caller's own cancel.
 *
 * What went wrong is `result.error`, `{code, message, data}`, never text in
 * the output: `data` holds the request under way (`call`), the HTTP
 * `status` it was answered with, the remote's `reason`, the option a bound
 * ran out on (`option`, `ms`), the task's `state` and ids. Failures
 * (refused connection `START_FAILED`, an HTTP error, a malformed event
 * `PROTOCOL_ERROR`, no answer within `timeoutMs` `TIMEOUT`, a stream that
 * ends early and cannot be re-attached `CONNECTION_LOST`) end the run
 * `error` with the partial output; `result` never rejects for them. Every
 * run ends, bounded: a task that brings nothing new for `idleTimeoutMs` (a
 * silent stream, keep-alive comments only, `WORKING` on every poll), a run
 * past `deadlineMs` (both `TIMEOUT`), and output past `maxOutputChars`
 * (`OUTPUT_LIMIT`) each end it `error`, naming the option, the remote task
 * cancelled. A 401 or 403 is `AUTH_REQUIRED`, saying authentication failed,
 * with the status and the remote's reason.
 *
 * On the wire, nothing goes where the card did not say: a redirect is not
 * followed (`REDIRECT_REFUSED`; `redirects: "same-origin"` follows one
 * within the origin), and only `http:`/`https:` interface URLs of the card
 * are used (with `sameOriginInterfaces`, only those on the card's own
 * origin).
 *
 * A dropped stream is re-attached with `SubscribeToTask` (`reconnect`:
 * bounded retries with backoff, reset only by progress, a state or word or
 * output not seen before in the run; at most `reconnect.maxReattaches`, 100
 * by default, a run in all). `cancel` ends the run `aborted` at once and
 * sends `CancelTask`; `dispose` closes the stream, cancels a task that is
 * still live and waits for that answer (bounded by `timeoutMs`). `resume`
 * sends a follow-up message in the task's context as a new run (to a seam
 * gateway with the caller's depth and the depth cap the first run was sent,
 * so the cap holds even where the gateway kept no run to continue);
 * `sendMessage` (seam gateways by default) sends a message to the running
 * task.
 *
 * Runtime-neutral: `fetch` and web streams only.
 *
 * @param options Where the agent is and how to talk to it.
 * @returns The provider, once the agent card was read. Register it with
 *   `ctx.subagents.registerProvider`, and dispose it when done.
 * @throws {TypeError | RangeError} for a bad option, naming it.
 * @throws {Error} when the card cannot be read or offers nothing this client
 *   speaks, or `provider` names no provider of the gateway.
 *
 * @example Delegate to a seam gateway through its fetch handler (no socket)
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createSpawnProvider } from "@seam/subagent-spawn";
 * import { createGateway } from "@seam/gateway";
 * import { createA2AProvider } from "@seam/subagent-a2a";
 * import assert from "node:assert/strict";
 *
 * // The remote side: a gateway in front of spawn, on the scripted model.
 * const remote = createHost({ logger: createMemoryLogger().logger });
 * remote.models.register(remote.scope, "scripted", createScriptedModel());
 * createSubagentService(remote.scope).registerProvider(createSpawnProvider());
 * const gateway = createGateway({ scope: remote.scope, agentOptions: { model: "scripted" } });
 *
 * // The local side: the gateway as a provider.
 * const local = createHost({ logger: createMemoryLogger().logger });
 * const subagents = createSubagentService(local.scope);
 * const a2a = await createA2AProvider({
 *   url: "http://gateway.example",
 *   fetch: (input, init) => gateway.fetch(new Request(input, init)),
 * });
 * assert.equal(a2a.capabilities.persona, true); // spawn's flags, from the card
 * subagents.registerProvider(a2a);
 *
 * const run = subagents.start("a2a", {
 *   prompt: "@reply hello over A2A",
 *   parent: { id: "main", scope: local.scope },
 * });
 * try {
 *   const result = await run.result;
 *   assert.equal(result.stopReason, "completed");
 *   assert.deepEqual(result.output, [{ type: "text", text: "hello over A2A" }]);
 * } finally {
 *   await run.dispose();
 * }
 * await a2a.dispose();
 * await local.scope.dispose();
 * await gateway.close();
 * await remote.scope.dispose();
 * ```
 */
export async function createA2AProvider(options: A2AProviderOptions): Promise<A2AProvider> {
  const resolved = resolveOptions(options);
  const { url, card, name, token, redirects, maxOutputChars, timeoutMs } = resolved;
  const baseFetch: typeof fetch = resolved.fetch
    ? guardFetch(resolved.fetch)
    : (input, init) => fetch(input, init);
  const wireFetch = policyFetch(baseFetch, { redirects, maxBodyBytes: maxOutputChars * 4 });
  const fetchImpl = token ? bearerFetch(wireFetch, token) : wireFetch;

  const cardUrl = url === undefined ? undefined : cardUrlOf(url);
  const where = cardUrl ? `at ${cardUrl}` : `"${String(card?.name ?? "(unnamed)")}"`;
  const raw: Record<string, unknown> = cardUrl
    ? await fetchCard(cardUrl, fetchImpl, timeoutMs)
    : JSON.parse(JSON.stringify(card)) as Record<string, unknown>;
  const seam = addressedProvider(raw, resolved.wanted, where);
  const origin = resolved.sameOriginInterfaces ? new URL(cardUrl!).origin : undefined;
  const client = await clientFor(
    raw,
    fetchImpl,
    resolved.binding,
    where,
    origin,
    (message) => (resolved.logger ?? console).warn(message),
  );
  const capabilities = raw.capabilities;
  const streaming = isRecord(capabilities) && capabilities.streaming === true;

  const agentName = typeof raw.name === "string" ? raw.name : "";
  const remote: RemoteContext = {
    client,
    providerName: name,
    hop: cardUrl === undefined ? { agentName } : { url: cardUrl, agentName },
    tenant: seam?.name ?? "",
    seam,
    streaming,
    timeoutMs,
    idleTimeoutMs: resolved.idleTimeoutMs,
    deadlineMs: resolved.deadlineMs,
    maxOutputChars,
    pollIntervalMs: resolved.reconnect.pollIntervalMs,
    reconnect: resolved.reconnect,
    serviceParameters: seam ? { "A2A-Extensions": SEAM_EXTENSION_URI } : undefined,
    logger: resolved.logger,
    offerResume: resolved.resume,
    offerSendMessage: resolved.sendMessage ?? seam !== undefined,
    refreshOnEnd: client.transport.protocolName === "HTTP+JSON" &&
      client.protocolVersion.startsWith("0."),
    live: new Set(),
  };
  const info: A2ARemoteInfo = Object.freeze({
    cardUrl,
    name: agentName,
    binding: client.transport.protocolName as A2ABinding,
    protocolVersion: client.protocolVersion,
    streaming,
    seam: seam !== undefined,
    provider: seam?.name,
  });

  let disposal: Promise<void> | undefined;
  const provider: A2AProvider = {
    name,
    capabilities: seam?.capabilities ?? NO_CAPABILITIES,
    inheritsParentContext: seam?.inheritsParentContext ?? false,
    remote: info,
    start(request: SubagentRequest): SubagentRunHandle {
      if (disposal) {
        throw new TypeError(`Cannot start an A2A run: provider "${name}" was disposed`);
      }
      return startRun(remote, request);
    },
    dispose(): Promise<void> {
      return disposal ??= Promise.all([...remote.live].map((run) => run.dispose())).then(
        () => {},
      );
    },
  };
  return provider;
}

/** Plan a run (depth first: a start above a cap throws before any request) and start it. */
function startRun(remote: RemoteContext, request: SubagentRequest): SubagentRunHandle {
  const parent = request.parent;
  const scope = parent?.scope;
  if (!scope || typeof scope.inject !== "function") {
    throw new TypeError("Cannot start an A2A run: request.parent.scope must be a Scope");
  }
  if (!Array.isArray(request.prompt) || request.prompt.length === 0) {
    throw new TypeError(
      "Cannot start an A2A run: request.prompt must be a non-empty list of blocks",
    );
  }
  const inherited = scope.inject(delegationContextKey);
  const agent = scope.inject(hostKey)?.agents.get(parent.id);
  const depth = agent?.options.subagentDepth ?? inherited?.depth ?? 0;
  const cap = tighterDepthCap(request.maxDepth, inherited?.maxDepth);
  if (cap !== undefined && depth + 1 > cap) throw new SubagentDepthError(depth + 1, cap);
  let extension: SeamMessageFields | undefined;
  const seam = remote.seam;
  if (seam) {
    extension = { depth };
    if (cap !== undefined && seam.capabilities.depthLimit) extension.maxDepth = cap;
    if (request.outputSchema !== undefined) extension.outputSchema = request.outputSchema;
    if (request.toolFilter !== undefined) {
      extension.toolFilter = request.toolFilter as unknown as SeamMessageFields;
    }
    if (request.persona !== undefined) extension.persona = request.persona;
    // The effective budget: the gateway's service enforces it over there.
    if (request.budget !== undefined) {
      extension.budget = request.budget as unknown as SeamMessageFields;
    }
  }
  const run = new A2ARun(remote, {
    prompt: request.prompt,
    parent,
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.outputSchema ? { outputSchema: request.outputSchema } : {}),
    depth,
    extension,
    resumed: false,
    ...(request.place ? { place: request.place } : {}),
    traceHeaders: traceHeaders(request.traceContext),
  });
  return run.handle;
}
