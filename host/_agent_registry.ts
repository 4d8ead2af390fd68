import type {
  Agent,
  AgentOptions,
  AgentRegistry,
  CreateAgentOptions,
  ResolvedAgentOptions,
} from "./agent.ts";
import { agentCreated } from "./agent.ts";
import { describe } from "./content.ts";
import type { Host } from "./host.ts";
import { jsonCopy, type JsonValue } from "./json.ts";
import { InactiveScopeError, Scope } from "./scope.ts";
import { abortError, AgentImpl } from "./_agent.ts";
import { OWN_EVENTS } from "./_session.ts";
import { readSeed } from "./_session_seed.ts";
import { isRecord } from "./unknown.ts";
import { refuseUnknownOptions } from "./unknown_options.ts";
import { cannot, invalid } from "./_invalid.ts";
import { freeze } from "./_builtins.ts";

const OPTION_KEYS = ["model", "subagentDepth", "maxTokens"] satisfies (keyof AgentOptions)[];
const CREATE_KEYS = [
  "parentScope",
  "options",
  "setup",
  "session",
  "id",
  "signal",
] satisfies (keyof CreateAgentOptions)[];
// Made once: every agent's creation passes it.
const UNDER_OPTIONS = { under: "options" } as const;

/** Why an aborted creation fails: the signal's reason, or an AbortError saying so. */
function creationCancelled(signal: AbortSignal): unknown {
  return signal.reason ?? abortError("The creation was cancelled");
}

function readOptions(options: AgentOptions): ResolvedAgentOptions {
  const copy = jsonCopy(options, "options");
  if (!isRecord(copy)) {
    invalid(`options: expected an object, got ${describe(options)}`);
  }
  refuseUnknownOptions("create an agent", copy, OPTION_KEYS, UNDER_OPTIONS);
  const { model, subagentDepth = 0, maxTokens } = copy as Record<string, JsonValue>;
  if (typeof model !== "string" || model === "") {
    invalid(`options.model: expected a non-empty string, got ${describe(model)}`);
  }
  checkCount(subagentDepth, "subagentDepth", 0);
  if (maxTokens !== undefined) {
    checkCount(maxTokens, "maxTokens", 1);
    return freeze({ model, subagentDepth, maxTokens });
  }
  return freeze({ model, subagentDepth });
}

/** Refuse `options.<key>` unless it is a safe integer of at least `min`. */
function checkCount(value: JsonValue, key: string, min: 0 | 1): asserts value is number {
  if (typeof value !== "number") {
    invalid(`options.${key}: expected a number, got ${describe(value)}`);
  }
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(
      `Invalid options.${key}: expected a ${
        min === 0 ? "non-negative" : "positive"
      } safe integer, got ${value}`,
    );
  }
}

/** The host's agent registry. */
export class AgentRegistryImpl implements AgentRegistry {
  readonly host: Host;
  #agents = new Map<string, AgentImpl>();
  #reserved = new Set<string>();
  #counter = 0;

  constructor(host: Host) {
    this.host = host;
  }

  get(id: string): Agent | undefined {
    return this.#agents.get(id);
  }

  list(): Agent[] {
    return [...this.#agents.values()];
  }

  /** Called by an agent's teardown. */
  unpublish(agent: AgentImpl): void {
    if (this.#agents.get(agent.id) === agent) this.#agents.delete(agent.id);
  }

  async create(init: CreateAgentOptions): Promise<Agent> {
    if (init === null || typeof init !== "object") {
      cannot("create an agent", `expected an options object, got ${describe(init)}`);
    }
    refuseUnknownOptions("create an agent", init, CREATE_KEYS);
    const { parentScope, options, setup, session, id, signal } = init;
    if (parentScope !== undefined && !(parentScope instanceof Scope)) {
      cannot("create an agent", `parentScope must be a Scope, got ${describe(parentScope)}`);
    }
    if (setup !== undefined && typeof setup !== "function") {
      cannot("create an agent", `setup must be a function, got ${describe(setup)}`);
    }
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      cannot("create an agent", `signal must be an AbortSignal, got ${describe(signal)}`);
    }
    if (id !== undefined && (typeof id !== "string" || id === "")) {
      cannot("create an agent", `id must be a non-empty string, got ${describe(id)}`);
    }
    const accepted = readOptions(options);
    const seed = session === undefined ? { events: [], turns: 0 } : readSeed(session, OWN_EVENTS);
    let agentId: string;
    if (id !== undefined) {
      if (this.#agents.has(id) || this.#reserved.has(id)) {
        cannot(`create agent "${id}"`, "an agent with that id already exists");
      }
      agentId = id;
    } else {
      do agentId = `agent-${++this.#counter}`; while (
        this.#agents.has(agentId) || this.#reserved.has(agentId)
      );
    }
    if (signal?.aborted) throw creationCancelled(signal);
    const parent = parentScope ?? this.host.scope;
    const scope = parent.child(`agent:${agentId}`);
    const agent = new AgentImpl(this, agentId, scope, accepted, seed.events, seed.turns);
    this.#reserved.add(agentId);
    try {
      if (setup) {
        const returned = setup(agent);
        if (returned && typeof (returned as Promise<void>).then === "function") {
          await untilCancelled(returned as Promise<void>, scope, signal);
        }
      }
      if (signal?.aborted) throw creationCancelled(signal);
      if (!scope.active) {
        throw new InactiveScopeError(`create agent "${agentId}"`, scope.label, scope.state);
      }
      this.host.models.resolve(scope, accepted.model);
    } catch (error) {
      this.#reserved.delete(agentId);
      await scope.dispose();
      throw error;
    }
    this.#reserved.delete(agentId);
    agent.publish();
    this.#agents.set(agentId, agent);
    if (scope.hasListeners(agentCreated)) scope.emit(agentCreated, { agent });
    return agent;
  }
}

/**
 * Wait for an asynchronous setup, but give up as soon as the creation is
 * cancelled or the agent's scope starts disposing.
 */
function untilCancelled(
  setup: Promise<void>,
  scope: Scope,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const scopeSignal = scope.signal;
    const onAbort = () => {
      cleanup();
      setup.catch(() => {});
      if (signal?.aborted) reject(creationCancelled(signal));
      else reject(new InactiveScopeError("create an agent", scope.label, scope.state));
    };
    const cleanup = () => {
      scopeSignal.removeEventListener("abort", onAbort);
      signal?.removeEventListener("abort", onAbort);
    };
    if (scopeSignal.aborted || signal?.aborted) return onAbort();
    scopeSignal.addEventListener("abort", onAbort, { once: true });
    signal?.addEventListener("abort", onAbort, { once: true });
    setup.then(
      () => {
        cleanup();
        resolve();
      },
      (error) => {
        cleanup();
        reject(error);
      },
    );
  });
}
