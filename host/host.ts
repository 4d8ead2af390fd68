import type { AgentRegistry } from "./agent.ts";
import type { Logger } from "./logger.ts";
import type { ModelRegistry } from "./model.ts";
import type { PromptRegistry } from "./prompts.ts";
import { createRootScope, defineService, type Scope, type ServiceKey } from "./scope.ts";
import type { ToolRegistry } from "./tools.ts";
import { AgentRegistryImpl } from "./_agent_registry.ts";
import { ModelRegistryImpl } from "./_model_registry.ts";
import { PromptRegistryImpl } from "./_prompt_registry.ts";
import { ToolRegistryImpl } from "./_tool_registry.ts";
import { freeze } from "./_builtins.ts";
import { refuseUnknownOptions } from "./unknown_options.ts";

/**
 * An agent runtime: a root scope and the host-wide registries. Registry
 * operations take the scope that owns the registration; lookups resolve
 * through a scope's ancestry.
 */
export interface Host {
  /** The root scope; disposing it tears everything down. */
  readonly scope: Scope;
  /** The host's logger. */
  readonly logger: Logger;
  /** Agents: creation, lookup, lifecycle events. */
  readonly agents: AgentRegistry;
  /** Tools, restrictions and guards. */
  readonly tools: ToolRegistry;
  /** System-prompt sections. */
  readonly prompts: PromptRegistry;
  /** Model adapters. */
  readonly models: ModelRegistry;
}

/** Options of {@linkcode createHost}. */
export interface HostOptions {
  /** The host's logger. Default: the given scope's, else a console logger (`warn` and up). */
  readonly logger?: Logger;
  /**
   * Use this (active) scope as the host's root instead of a new one; the
   * host is provided in it under {@linkcode hostKey}.
   */
  readonly scope?: Scope;
}

const HOST_OPTIONS = ["logger", "scope"] satisfies (keyof HostOptions)[];

/** The service key the host is provided under in its root scope. */
export const hostKey: ServiceKey<Host> = defineService<Host>("host");

/**
 * Create an agent runtime.
 *
 * @example One agent, one tool, the scripted model
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel, hostKey } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * assert.equal(host.scope.inject(hostKey), host);
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * host.prompts.register(host.scope, { name: "persona", text: "You are {{agentId}}." });
 * host.tools.register(host.scope, {
 *   name: "add",
 *   description: "Add two numbers",
 *   parameters: {
 *     type: "object",
 *     properties: { a: { type: "number" }, b: { type: "number" } },
 *     required: ["a", "b"],
 *   },
 *   execute: ({ a, b }: { a: number; b: number }) => ({ content: String(a + b) }),
 * });
 *
 * const agent = await host.agents.create({ id: "calc", options: { model: "scripted" } });
 * agent.send('@call add {"a": 2, "b": 3}\n@reply The sum is {{results}}.');
 * const end = await agent.whenIdle();
 * assert.equal(end.reason, "completed");
 * assert.deepEqual(end.output, [{ type: "text", text: "The sum is 5." }]);
 *
 * agent.send("@reply {{system}}");
 * assert.equal((await agent.whenIdle()).output[0].type, "text");
 * await host.scope.dispose();
 * assert.equal(agent.state, "disposed");
 * ```
 */
export function createHost(options: HostOptions = {}): Host {
  refuseUnknownOptions("create the host", options, HOST_OPTIONS);
  const scope = options.scope ?? createRootScope({ logger: options.logger });
  const logger = options.logger ?? scope.logger;
  const tools = new ToolRegistryImpl();
  const prompts = new PromptRegistryImpl();
  const models = new ModelRegistryImpl();
  const host: Host = {
    scope,
    logger,
    tools,
    prompts,
    models,
    agents: undefined as unknown as AgentRegistry,
  };
  (host as { agents: AgentRegistry }).agents = new AgentRegistryImpl(host);
  freeze(host);
  scope.provide(hostKey, host);
  return host;
}
