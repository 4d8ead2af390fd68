/**
 * Test helpers for framework adapters: hold a run's input requests so a
 * test answers them itself (`run.respond`), as a UI or a remote caller
 * would.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { SubagentInputs } from "@seam/subagent";
 * import { holdInputRequests } from "@seam/adapter-kit/testing";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const held = holdInputRequests(root);
 * const inputs = new SubagentInputs(root, "run-1");
 * const answer = inputs.ask({ kind: "question", message: "Which colour?" });
 * const request = await held.first();
 * inputs.respond(request.id, { outcome: "answered", text: "blue" });
 * assert.deepEqual(await answer, { outcome: "answered", text: "blue" });
 * await root.dispose();
 * ```
 *
 * @module
 */
import { createRootScope, type Scope } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputRequest,
  subagentInputRequired,
  type SubagentProvider,
  type SubagentRun,
} from "@seam/subagent";

/** The input requests raised below a scope, held for the test to answer. */
export interface HeldInputRequests {
  /** Every request announced below the scope, oldest first. */
  readonly asked: readonly SubagentInputRequest[];
  /**
   * The first request, once one is asked.
   *
   * @param timeoutMs How long to wait. Default 5,000.
   * @throws {Error} when none is asked within `timeoutMs`.
   */
  first(timeoutMs?: number): Promise<SubagentInputRequest>;
}

/**
 * Hold the input requests raised below `scope`: a handler that answers
 * none of them (each waits until `run.respond` answers it, or its run ends)
 * and a record of every one announced.
 */
export function holdInputRequests(scope: Scope): HeldInputRequests {
  const asked: SubagentInputRequest[] = [];
  const waiters = new Set<() => void>();
  scope.on(subagentInputRequired, (request) => {
    asked.push(request);
    for (const wake of waiters) wake();
  });
  handleSubagentInput(
    scope,
    (_request, { signal }) =>
      new Promise((resolve) => signal.addEventListener("abort", () => resolve(undefined))),
  );
  return {
    asked,
    first(timeoutMs = 5_000) {
      if (asked.length > 0) return Promise.resolve(asked[0]);
      return new Promise((resolve, reject) => {
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(asked[0]);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`No input request was asked within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
  };
}

/** A provider registered under a root scope of its own, for a test to start runs on. */
export interface ProviderUnderTest {
  /** The root scope: dispose it at the end of the test. */
  readonly root: Scope;
  /** Start a run of `prompt` on the provider, from the top-level agent `main`. */
  start(prompt: string): SubagentRun;
}

/**
 * Register `provider` with a subagent service under a new root scope: the
 * set-up an adapter's provider tests start with.
 *
 * @example
 * ```ts
 * import { createFrameworkProvider } from "@seam/adapter-kit";
 * import { providerUnderTest } from "@seam/adapter-kit/testing";
 * import assert from "node:assert/strict";
 *
 * const { root, start } = providerUnderTest(createFrameworkProvider({
 *   name: "echo",
 *   framework: "Echo",
 *   capabilities: { outputSchema: false, depthLimit: true, toolFilter: false, persona: false },
 *   drive: () => Promise.resolve({ output: "hello", stopReason: "completed" }),
 * }));
 * const run = start("hi");
 * assert.deepEqual((await run.result).output, [{ type: "text", text: "hello" }]);
 * await run.dispose();
 * await root.dispose();
 * ```
 */
export function providerUnderTest(provider: SubagentProvider): ProviderUnderTest {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(provider);
  return {
    root,
    start: (prompt) =>
      subagents.start(provider.name, { prompt, parent: { id: "main", scope: root } }),
  };
}
