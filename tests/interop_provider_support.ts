/**
 * The seam side for the interop tests whose peer is a server: a root scope
 * with a subagent service whose `a2a` provider is the peer, and a run's
 * result with the run disposed.
 */
import { createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import {
  createSubagentService,
  subagentProgress,
  type SubagentResult,
  type SubagentRun,
} from "@seam/subagent";
import { type A2AProviderOptions, createA2AProvider } from "@seam/subagent-a2a";

/**
 * Run `fn` with `start` (a run of the `a2a` provider made from `options`,
 * under a parent agent of `root`), then dispose of everything.
 */
export async function withProvider(
  options: A2AProviderOptions,
  fn: (start: (prompt: string) => SubagentRun, root: Scope) => Promise<void>,
): Promise<void> {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const parent = { id: "main", scope: root.child("main") };
  try {
    subagents.registerProvider(await createA2AProvider({ timeoutMs: 10_000, ...options }));
    await fn((prompt) => subagents.start("a2a", { prompt, parent }), root);
  } finally {
    await root.dispose();
  }
}

/** The run's result, once it settled; the run disposed either way. */
export async function settle(run: SubagentRun): Promise<SubagentResult> {
  try {
    return await run.result;
  } finally {
    await run.dispose();
  }
}

/** What `start()` ends with, and the text progress `root` heard from it meanwhile. */
export async function settleStreamed(
  root: Scope,
  start: () => SubagentRun,
): Promise<{ result: SubagentResult; progress: string[] }> {
  const progress: string[] = [];
  const off = root.on(subagentProgress, (info) => {
    if (info.kind === "text") progress.push(info.text!);
  });
  try {
    return { result: await settle(start()), progress };
  } finally {
    await off();
  }
}
