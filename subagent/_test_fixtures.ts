// Test-only helpers: a provider whose every run the test drives by hand.
import {
  type AgentRef,
  createMemoryLogger,
  createRootScope,
  type LogRecord,
  type Scope,
} from "@seam/host";
import { createSubagentService, type SubagentService } from "./service.ts";
import type {
  SubagentCapabilities,
  SubagentProvider,
  SubagentRequest,
  SubagentResultInput,
  SubagentRunHandle,
} from "./types.ts";

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** One run of the manual provider, with everything the test needs to drive and observe it. */
export interface ManualRun {
  request: SubagentRequest;
  handle: SubagentRunHandle;
  started: Deferred<void>;
  result: Deferred<SubagentResultInput>;
  cancels: (string | undefined)[];
  disposes: number;
}

export const ALL_CAPABILITIES: SubagentCapabilities = Object.freeze({
  outputSchema: true,
  depthLimit: true,
  toolFilter: true,
  persona: true,
  budget: true,
});

export const NO_CAPABILITIES: SubagentCapabilities = Object.freeze({
  outputSchema: false,
  depthLimit: false,
  toolFilter: false,
  persona: false,
});

export interface ManualProvider extends SubagentProvider {
  runs: ManualRun[];
}

export function manualProvider(
  name = "manual",
  capabilities: SubagentCapabilities = ALL_CAPABILITIES,
  extend: (run: ManualRun) => Partial<SubagentRunHandle> = () => ({}),
): ManualProvider {
  const runs: ManualRun[] = [];
  return {
    name,
    capabilities,
    inheritsParentContext: false,
    runs,
    start(request) {
      const started = deferred<void>();
      const result = deferred<SubagentResultInput>();
      const run: ManualRun = {
        request,
        started,
        result,
        cancels: [],
        disposes: 0,
        handle: undefined as unknown as SubagentRunHandle,
      };
      run.handle = {
        id: `${name}-${runs.length + 1}`,
        started: started.promise,
        result: result.promise,
        cancel(reason) {
          run.cancels.push(reason);
        },
        dispose() {
          run.disposes++;
          return Promise.resolve();
        },
        ...extend(run),
      };
      runs.push(run);
      return run.handle;
    },
  };
}

export interface Setup {
  root: Scope;
  service: SubagentService;
  parent: AgentRef;
  records: LogRecord[];
}

/** A root scope with a memory logger, the service on it and a parent agent ref. */
export function setup(): Setup {
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  const service = createSubagentService(root);
  const parent = { id: "parent", scope: root.child("parent") };
  return { root, service, parent, records };
}

/** Let every queued microtask and one macrotask run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
