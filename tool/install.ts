import { withUsageLine } from "./_usage_line.ts";
import {
  agentTurnStart,
  describe,
  describeError,
  type Host,
  hostKey,
  InactiveScopeError,
  type JsonSchema,
  type Scope,
  type Tool,
  type ToolCallContext,
  type ToolResult,
} from "@seam/host";
import {
  getSubagentService,
  type RegisteredSubagentProvider,
  startRunsUnder,
  subagentProviderAdded,
  subagentProviderRemoved,
  type SubagentResult,
  type SubagentRun,
  type SubagentService,
  subagentServiceKey,
  unsupportedStartFields,
} from "@seam/subagent";
import { endToolSpan, startToolSpan } from "./_trace.ts";
import { acceptConfig, type AcceptedConfig } from "./_config.ts";
import type { SubagentToolConfig } from "./types.ts";

export type { SubagentToolConfig } from "./types.ts";
import { subagentResultToToolResult } from "./result.ts";
import { subagentToolParameters, subagentToolWording } from "./wording.ts";

/** The arguments the model gives the tool. */
interface SubagentToolArgs {
  readonly description: string;
  readonly prompt: string;
}

/**
 * The tool names claimed per install scope (mounted or still waiting), so a
 * second load under the same name fails at install whatever the load order.
 */
const claims = new WeakMap<Scope, Set<string>>();

function claimedAbove(scope: Scope, name: string): boolean {
  for (let s: Scope | undefined = scope; s; s = s.parent) {
    if (claims.get(s)?.has(name)) return true;
  }
  return false;
}

/**
 * The scope the service was created in: the highest ancestor of `scope`
 * (itself included) from which `service` still resolves. The service emits
 * its provider events there, and events only travel up a scope tree.
 */
function serviceScopeOf(scope: Scope, service: SubagentService): Scope {
  let found = scope;
  for (let s = scope.parent; s && s.inject(subagentServiceKey) === service; s = s.parent) {
    found = s;
  }
  return found;
}

/**
 * Install the model-facing subagent tool in `scope`, bound to exactly one
 * provider of `ctx.subagents` by name.
 *
 * - **What the model sees**: a tool (named `config.toolName`, default
 *   `subagent`) whose only parameters are `description` (a short label) and
 *   `prompt` (the task), both required strings. There is no provider
 *   parameter: selection is config. The descriptions are derived from the
 *   provider's `inheritsParentContext` (see {@linkcode subagentToolWording}).
 * - **Lifecycle mirror**: the tool exists while the provider is registered.
 *   Installing before the provider is fine (a logger note records the wait;
 *   the tool appears when `subagent/provider-added` fires); when the
 *   provider goes away the tool goes too, and a re-registration mounts it
 *   again with wording re-derived from the new registration. The tool
 *   listens in the scope the service was created in, found from `scope`,
 *   which must therefore be that scope or a descendant of it (it always is:
 *   the service is looked up from `scope`).
 * - **A call** starts a run with `parent` set to the calling agent, the
 *   call's abort signal (the service cancels the run when it aborts, once,
 *   an already-aborted signal included) and the configured options; awaits
 *   its result and always disposes the run. Nothing escapes as an
 *   exception: a start-time refusal (no provider, a depth cap, an
 *   unsupported capability) or a non-completed run becomes an error result
 *   saying what happened (see {@linkcode subagentResultToToolResult}).
 * - **Questions and approvals**: the call keeps collecting synchronously
 *   (the parent model is not interrupted); a child's input request (a tool
 *   call needing approval) is announced in the calling agent's scope and
 *   travels up its scopes to a handler like any other (`handleSubagentInput`
 *   on the root answers for every descendant).
 *
 * The tool is registered in `scope` itself, so agents whose scope is `scope`
 * or below it see it (children delegate again through it, within
 * `maxDepth`).
 *
 * @param scope The scope that owns the install; the host (`hostKey`) and the
 * subagent service must be provided there or above.
 * @param config The binding (see {@linkcode SubagentToolConfig}).
 * @returns The disposer: unregisters the tool and stops listening. Disposing
 * `scope` does the same.
 * @throws {TypeError} naming the offending key for a bad config, when no host
 * or service is found, or when the tool name is already taken.
 * @throws {RangeError} for a `maxDepth` that is not a non-negative safe integer.
 *
 * @example Delegate through the tool on the scripted model
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createSpawnProvider } from "@seam/subagent-spawn";
 * import { installSubagentTool } from "@seam/tool-subagent";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * const subagents = createSubagentService(host.scope);
 * subagents.registerProvider(createSpawnProvider());
 * installSubagentTool(host.scope, { provider: "spawn", maxDepth: 1 });
 *
 * const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
 * main.send(
 *   '@call subagent {"description": "Say hello", "prompt": "@reply hello from the child"}\n' +
 *     "@reply The child said: {{results}}",
 * );
 * const end = await main.whenIdle();
 * assert.deepEqual(end.output, [{ type: "text", text: "The child said: hello from the child" }]);
 * await host.scope.dispose();
 * ```
 */
export function installSubagentTool(
  scope: Scope,
  config: SubagentToolConfig,
): () => Promise<void> {
  if (!scope || typeof scope.inject !== "function") {
    throw new TypeError(
      `Cannot install the subagent tool: scope must be a Scope, got ${describe(scope)}`,
    );
  }
  const accepted = acceptConfig(config);
  if (!scope.active) {
    throw new InactiveScopeError("install the subagent tool", scope.label, scope.state);
  }
  const host = scope.inject(hostKey);
  if (!host) {
    throw new TypeError(
      `Cannot install the subagent tool: no host is provided in scope "${scope.label}" or its ancestors (see hostKey)`,
    );
  }
  let service: SubagentService;
  try {
    service = getSubagentService(scope);
  } catch (error) {
    throw new TypeError(`Cannot install the subagent tool: ${describeError(error)}`, {
      cause: error,
    });
  }
  const { toolName } = accepted;
  if (claimedAbove(scope, toolName) || host.tools.visible(scope).some((t) => t.name === toolName)) {
    throw new TypeError(
      `Cannot install the subagent tool: a tool named "${toolName}" is already installed in scope "${scope.label}" or above; give this load its own config.toolName`,
    );
  }
  return mount(scope, host, service, accepted);
}

function mount(
  scope: Scope,
  host: Host,
  service: SubagentService,
  config: AcceptedConfig,
): () => Promise<void> {
  const { provider: providerName, toolName } = config;
  const logger = scope.logger;
  let mounted:
    | { snapshot: RegisteredSubagentProvider; unregister: () => Promise<void> }
    | undefined;
  let closed = false;

  const unmount = (): void => {
    const current = mounted;
    if (!current) return;
    mounted = undefined;
    current.unregister().catch((error) =>
      logger.error(`Unregistering tool "${toolName}" failed`, error)
    );
  };

  const registered = (): string => service.list().join(", ") || "none";
  const waiting = (why: string): void => {
    warned = false;
    logger.info(
      `Tool "${toolName}" waits for subagent provider "${providerName}" (${why}; registered: ${registered()}); it appears once the provider is registered`,
    );
  };
  // A turn that runs while the tool waits is the silence that matters: the model
  // sees no such tool. Said once per wait, at warn (the default threshold).
  let warned = false;
  const onTurn = (info: { readonly agentId: string; readonly turn: number }): void => {
    if (mounted !== undefined || warned || closed) return;
    warned = true;
    logger.warn(
      `Tool "${toolName}" is not offered to agent "${info.agentId}" (turn ${info.turn}): subagent provider "${providerName}" is not registered (registered: ${registered()}); register it on the subagent service (subagents.registerProvider) or name a registered one in config.provider`,
    );
  };

  /** Make the tool mirror the registry: mounted for the current snapshot, or absent. */
  const sync = (): void => {
    if (closed || !scope.active) return;
    const current = service.getProvider(providerName);
    if (mounted !== undefined && mounted.snapshot === current) return;
    const hadOne = mounted !== undefined;
    unmount();
    if (!current) {
      waiting(hadOne ? "the provider was removed" : "not registered yet");
      return;
    }
    const tool = createTool(service, config, current, logger);
    mounted = { snapshot: current, unregister: host.tools.register(scope, tool) };
    const unsupported = unsupportedOptions(current, config);
    if (unsupported.length > 0) {
      logger.warn(
        `Tool "${toolName}": subagent provider "${providerName}" does not support config.${
          unsupported.join(", config.")
        }; every call will be refused (UNSUPPORTED_CAPABILITY)`,
      );
    }
    logger.debug(
      `Tool "${toolName}" is mounted on subagent provider "${providerName}" (${
        current.inheritsParentContext ? "inherits the parent's context" : "fresh context"
      })`,
    );
  };

  const onChange = (name: string): void => {
    if (name !== providerName) return;
    try {
      sync();
    } catch (error) {
      logger.error(
        `Cannot mount tool "${toolName}" on subagent provider "${providerName}": ${
          describeError(error)
        }`,
        error,
      );
    }
  };

  const serviceScope = serviceScopeOf(scope, service);
  const listeners: (() => Promise<void>)[] = [];
  const claimed = claims.get(scope) ?? new Set<string>();
  claims.set(scope, claimed);
  claimed.add(toolName);

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    claimed.delete(toolName);
    unmount();
    await Promise.all(listeners.map((off) => off()));
  };

  try {
    listeners.push(
      serviceScope.on(subagentProviderAdded, (snapshot) => onChange(snapshot.name)),
      serviceScope.on(subagentProviderRemoved, (info) => onChange(info.name)),
      scope.on(agentTurnStart, onTurn),
    );
    sync();
  } catch (error) {
    close().catch((e) => logger.error(`Rolling back tool "${toolName}" failed`, e));
    throw error;
  }
  return scope.onDispose(close);
}

/** The configured options the provider's start-time capabilities do not cover. */
function unsupportedOptions(
  provider: RegisteredSubagentProvider,
  config: AcceptedConfig,
): string[] {
  return unsupportedStartFields(provider.capabilities, config.options).map((spec) => spec.field);
}

function createTool(
  service: SubagentService,
  config: AcceptedConfig,
  provider: RegisteredSubagentProvider,
  logger: Scope["logger"],
): Tool<SubagentToolArgs> {
  const wording = subagentToolWording(provider.inheritsParentContext);
  const { provider: providerName, toolName, options } = config;
  const parameters: JsonSchema = subagentToolParameters(wording);
  return {
    name: toolName,
    description: wording.description,
    parameters,
    async execute(args: SubagentToolArgs, call: ToolCallContext): Promise<ToolResult> {
      const traced = call?.agent &&
        startToolSpan(call.agent.scope, toolName, call.callId, providerName);
      if (!traced) return await delegate(args, call);
      let result: ToolResult | undefined;
      try {
        result = await delegate(args, call, traced.context);
        return result;
      } finally {
        // A delegation that threw still ends its span, as an error.
        endToolSpan(traced, result ?? { content: "the delegation threw", isError: true });
      }
    },
  };

  async function delegate(
    args: SubagentToolArgs,
    call: ToolCallContext,
    traceContext?: unknown,
  ): Promise<ToolResult> {
    const agent = call?.agent;
    if (!agent) {
      return {
        content:
          `Cannot delegate: the "${toolName}" tool must be called by an agent (no calling agent)`,
        isError: true,
      };
    }
    let run: SubagentRun;
    try {
      // The service cancels the run when `signal` aborts (once, an
      // already-aborted signal included); a second bridge here would
      // cancel twice.
      run = startRunsUnder(traceContext, () =>
        service.start(providerName, {
          prompt: args.prompt,
          parent: agent,
          // The call's short label rides on the run's events (nothing checks it there).
          ...(typeof args.description === "string" && args.description !== ""
            ? { label: args.description.slice(0, 200) }
            : {}),
          signal: call.signal,
          ...options,
        }));
    } catch (error) {
      return {
        content: `The subagent could not be started: ${describeError(error)}`,
        isError: true,
      };
    }
    try {
      let result: SubagentResult;
      try {
        result = await run.result;
      } catch (error) {
        return {
          content: `The subagent run broke down (provider "${providerName}"): ${
            describeError(error)
          }`,
          isError: true,
        };
      }
      const toolResult = subagentResultToToolResult(result);
      return config.reportUsage && result.usage
        ? withUsageLine(toolResult, result.usage)
        : toolResult;
    } finally {
      try {
        await run.dispose();
      } catch (error) {
        logger.error(`Disposing subagent run "${run.id}" of "${providerName}" failed`, error);
      }
    }
  }
}
