import type { SubagentProvider } from "@seam/subagent";

/**
 * A provider whose child completes at once with its prompt as its output
 * (a fresh random id per run): the gateway benches' provider, so what they
 * measure is the gateway and the seam.
 */
export const echo: SubagentProvider = {
  name: "echo",
  capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
  inheritsParentContext: false,
  start: (request) => ({
    id: crypto.randomUUID(),
    started: Promise.resolve(),
    result: Promise.resolve({ output: request.prompt, stopReason: "completed" as const }),
    cancel() {},
    dispose: () => Promise.resolve(),
  }),
};
