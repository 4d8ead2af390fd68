import {
  defineService,
  describe,
  InactiveScopeError,
  type Logger,
  type Scope,
  type ServiceKey,
} from "@seam/host";
import { SubagentError } from "./errors.ts";
import { cannot } from "./_invalid.ts";
import { subagentProviderAdded, subagentProviderRemoved } from "./events.ts";
import { assertSubagentMaxDepth } from "./max_depth.ts";
import { snapshotProvider } from "./_provider.ts";
import { type AcceptedRequest, acceptRequest } from "./_request.ts";
import { failRunSpan, type RunSpan, startRunSpan, traceRun, underParent } from "./_trace.ts";
import { livePlaces, type LiveRunCell, wrapRun } from "./_run.ts";
import type {
  RegisteredSubagentProvider,
  SubagentProvider,
  SubagentRun,
  SubagentStartRequest,
} from "./types.ts";
import { freeze } from "./_builtins.ts";

/** Options of {@linkcode SubagentService.registerProvider}. */
export interface RegisterProviderOptions {
  /**
   * The scope that owns the registration (a plugin's scope, for hot reload);
   * default: the service's scope. Disposing it unregisters the provider.
   */
  scope?: Scope;
}

/**
 * `ctx.subagents`: the registry of transports and the one way to start a
 * child agent through them.
 */
export interface SubagentService {
  /**
   * Validate `provider`'s fixed fields (read once) and register a frozen
   * snapshot under its name. Emits `subagent/provider-added`.
   *
   * The registration is owned by `options.scope` (default: the service's
   * scope). When it ends (that scope is disposed, e.g. a plugin's hot
   * reload, or the returned disposer is called), the provider is
   * unregistered (`subagent/provider-removed`), every live run started
   * through this registration is cancelled (it ends `aborted`) and disposed,
   * so no child keeps running old code, and then the provider's own
   * `dispose()`, when it has one, is called, so its processes and
   * connections end and a program can exit.
   *
   * @returns The disposer: ends the registration as above; resolves once
   * the runs and the provider are disposed.
   * @throws {SubagentError} `DUPLICATE_PROVIDER` when the name is taken.
   * @throws {TypeError} naming the malformed field.
   */
  registerProvider(
    provider: SubagentProvider,
    options?: RegisterProviderOptions,
  ): () => Promise<void>;
  /** The frozen snapshot registered under `name`, or `undefined`. */
  getProvider(name: string): RegisteredSubagentProvider | undefined;
  /** Registered provider names, in registration order. */
  list(): string[];
  /**
   * Start a run on provider `name`. Every check happens before any child
   * exists; the returned run is frozen and must be disposed on every path.
   *
   * @throws {SubagentError} `NO_PROVIDER` or `UNSUPPORTED_CAPABILITY`.
   * @throws {InactiveScopeError} (`@seam/host`, code `INACTIVE_SCOPE`) once the service's scope
   *   is disposing or disposed: its providers went with it.
   * @throws {SubagentBudgetError} when a children cap of a budget above is used up.
   * @throws {OutputSchemaError} for an `outputSchema` outside the subset.
   * @throws {TypeError | RangeError} naming any other malformed field.
   */
  start(name: string, request: SubagentStartRequest): SubagentRun;
  /** The shared recursion-cap check (see `assertSubagentMaxDepth`). */
  assertSubagentMaxDepth(
    value: unknown,
    label?: string,
  ): asserts value is number | undefined;
}

/** The key under which a scope provides its {@linkcode SubagentService}. */
export const subagentServiceKey: ServiceKey<SubagentService> = defineService(
  "subagents",
);

/**
 * Create the subagent service owned by `scope` and provide it there (so
 * {@linkcode getSubagentService} finds it from any descendant scope).
 *
 * @example Register a provider, start a run, await its result, dispose it
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService, type SubagentProvider } from "@seam/subagent";
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
 *
 * const run = subagents.start("echo", { prompt: "hello", parent: { id: "main", scope: root } });
 * try {
 *   const result = await run.result;
 *   assert.equal(result.stopReason, "completed");
 *   assert.deepEqual(result.output, [{ type: "text", text: "hello" }]);
 * } finally {
 *   await run.dispose();
 * }
 * await root.dispose();
 * ```
 */
export function createSubagentService(scope: Scope): SubagentService {
  const registry = new Map<string, Registration>();
  // Where each live run sits, by run id: a run its child starts sits below it.
  const places = new Map<string, LiveRunCell>();

  const service: SubagentService = {
    registerProvider(provider, options = {}) {
      const { snapshot, dispose: disposeProvider } = snapshotProvider(provider);
      const owner = options.scope ?? scope;
      if (registry.has(snapshot.name)) {
        throw new SubagentError(
          "DUPLICATE_PROVIDER",
          `Cannot register provider: the name "${snapshot.name}" is already registered`,
        );
      }
      const registration: Registration = { snapshot, runs: new Set() };
      registry.set(snapshot.name, registration);
      let dispose: () => Promise<void>;
      try {
        dispose = owner.onDispose(() => {
          if (registry.get(snapshot.name) === registration) {
            registry.delete(snapshot.name);
            scope.emit(subagentProviderRemoved, freeze({ name: snapshot.name }));
          }
          return unload(registration, disposeProvider, scope.logger);
        });
      } catch (error) {
        registry.delete(snapshot.name);
        throw error;
      }
      scope.emit(subagentProviderAdded, snapshot);
      return dispose;
    },

    getProvider(name) {
      return registry.get(name)?.snapshot;
    },

    list() {
      return [...registry.keys()];
    },

    start(name, request) {
      if (typeof name !== "string") {
        cannot("start subagent", `the provider name must be a string, got ${describe(name)}`);
      }
      // Its providers went with it: not "no provider named …", which sends one looking for a typo.
      if (!scope.active) {
        throw new InactiveScopeError("start subagent", scope.label, scope.state);
      }
      const registration = registry.get(name);
      if (!registration) {
        const known = service.list().join(", ") || "none";
        throw new SubagentError(
          "NO_PROVIDER",
          `Cannot start subagent: no provider named "${name}" (registered: ${known})`,
        );
      }
      const provider = registration.snapshot;
      const accepted = acceptRequest(provider, request, places, registration.runs);
      const budget = accepted.budget;
      // Counted against the children caps above before the child exists; undone if it never does.
      budget?.commit();
      try {
        const traced = startRunSpan(
          accepted.place,
          accepted.parentScope,
          accepted.request.agentOptions?.model,
        );
        if (traced) return startTraced(provider, accepted, traced);
        return wrapRun(provider.start(accepted.request), accepted);
      } catch (error) {
        budget?.rollback();
        throw error;
      }
    },

    assertSubagentMaxDepth,
  };
  scope.provide(subagentServiceKey, service);
  livePlaces.add(places);
  scope.onDispose(() => void livePlaces.delete(places));
  return freeze(service);
}

/** `start` with a tracer: the provider gets the run's trace context, the span ends with the run. */
function startTraced(
  provider: RegisteredSubagentProvider,
  accepted: AcceptedRequest,
  traced: RunSpan,
): SubagentRun {
  try {
    const request = freeze({ ...accepted.request, traceContext: traced.context });
    // The traced request's prompt, outputSchema and signal are the accepted ones.
    const run = wrapRun(underParent(undefined, () => provider.start(request)), accepted);
    traceRun(traced, run);
    return run;
  } catch (error) {
    failRunSpan(traced.span, error);
    throw error;
  }
}

/** One registration: the accepted snapshot and the runs started through it, until disposed. */
interface Registration {
  readonly snapshot: RegisteredSubagentProvider;
  readonly runs: Set<LiveRunCell>;
}

/** The reason an unloaded provider's runs are cancelled with. */
const UNLOADED = "the subagent provider was unloaded";

/**
 * End a registration: cancel its live runs (they end `aborted`), dispose
 * them, then dispose the provider. Failures are logged, never thrown, so
 * the rest of the teardown still runs.
 */
async function unload(
  registration: Registration,
  disposeProvider: (() => Promise<void>) | undefined,
  logger: Logger,
): Promise<void> {
  const name = registration.snapshot.name;
  const cells = [...registration.runs];
  registration.runs.clear();
  await Promise.all(cells.map(async ({ run }) => {
    if (!run) return;
    try {
      run.cancel(UNLOADED);
      await run.dispose();
    } catch (error) {
      logger.error(`Ending run "${run.id}" of unloaded provider "${name}" failed`, error);
    }
  }));
  if (disposeProvider) {
    try {
      await disposeProvider();
    } catch (error) {
      logger.error(`Disposing provider "${name}" failed`, error);
    }
  }
}

/**
 * The {@linkcode SubagentService} provided to `scope` or an ancestor.
 *
 * @throws {TypeError} when no service was created above `scope`.
 */
export function getSubagentService(scope: Scope): SubagentService {
  const service = scope.inject(subagentServiceKey);
  if (!service) {
    cannot(
      "find the subagent service",
      `none was created in scope "${scope.label}" or its ancestors`,
    );
  }
  return service;
}
