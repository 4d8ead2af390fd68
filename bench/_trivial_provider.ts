import { createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import {
  createSubagentService,
  type SubagentProvider,
  type SubagentRequest,
  type SubagentRunHandle,
  type SubagentService,
} from "@seam/subagent";

const done = Promise.resolve();
const output = [{ type: "text" as const, text: "done" }];

/** A provider whose child completes at once: what is left to measure is the seam. */
export const trivialProvider: SubagentProvider = {
  name: "trivial",
  capabilities: {
    outputSchema: false,
    depthLimit: false,
    toolFilter: false,
    persona: false,
    budget: true,
  },
  inheritsParentContext: false,
  start(_request: SubagentRequest): SubagentRunHandle {
    return {
      id: "run",
      started: done,
      result: Promise.resolve({ output, stopReason: "completed" }),
      cancel() {},
      dispose: () => done,
    };
  },
};

export interface Bench {
  root: Scope;
  service: SubagentService;
  parent: { id: string; scope: Scope };
  request: SubagentRequest;
}

export function setupBench(): Bench {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const service = createSubagentService(root);
  service.registerProvider(trivialProvider);
  const parent = { id: "parent", scope: root.child("parent") };
  const request: SubagentRequest = Object.freeze({
    prompt: Object.freeze([{ type: "text" as const, text: "say done" }]),
    parent,
  });
  return { root, service, parent, request };
}

/** start → await result → dispose, calling the provider directly. */
export async function runDirect(bench: Bench): Promise<void> {
  const run = trivialProvider.start(bench.request);
  await run.result;
  await run.dispose();
}

/** The same run through `ctx.subagents` (a one-block prompt, no listeners). */
export async function runThroughService(bench: Bench): Promise<void> {
  const run = bench.service.start("trivial", {
    prompt: [{ type: "text", text: "say done" }],
    parent: bench.parent,
  });
  await run.result;
  await run.dispose();
}

const BUDGET = Object.freeze({ tokens: 1_000_000, toolCalls: 1_000, wallTimeMs: 60_000 });

/** The same run under a budget (issue 17): its ledger, clock and settle check. */
export async function runThroughServiceBudgeted(bench: Bench): Promise<void> {
  const run = bench.service.start("trivial", {
    prompt: [{ type: "text", text: "say done" }],
    parent: bench.parent,
    budget: BUDGET,
  });
  await run.result;
  await run.dispose();
}
