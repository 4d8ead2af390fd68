// What bench/frameworks_medians.ts and bench/frameworks_bench.ts share: for
// each framework adapter, one run of the framework's agent directly (its own
// streaming API, the stream consumed, the text and usage read: what a
// program running the agent does) and the same run through ctx.subagents
// (start → await result → dispose) on the adapter's provider. Same agent,
// same fake model (each framework's own), same prompt.
import { Agent, Runner } from "@openai/agents";
import type { MemorySaver } from "@langchain/langgraph";
import { createRootScope } from "@seam/host";
import { createSubagentService, type SubagentProvider, type SubagentService } from "@seam/subagent";
import { createOpenAIAgentsProvider } from "@seam/openai-agents";
import { createLangGraphProvider } from "@seam/langgraph";
import { createMastraProvider } from "@seam/mastra";
import { promptModel } from "../adapters/openai_agents/_test_fixtures.ts";
import { promptGraph } from "../adapters/langgraph/_test_fixtures.ts";
import { promptAgent as mastraAgent } from "../adapters/mastra/_test_fixtures.ts";

/** The frameworks benched. */
export const FRAMEWORKS = ["openai-agents", "langgraph", "mastra"] as const;
/** One of {@linkcode FRAMEWORKS}. */
export type Framework = typeof FRAMEWORKS[number];

/** One run, directly or through seam. */
export type RunOnce = () => Promise<string>;

const PROMPT = "complete hello from the agent";

/** The ways one run is made. */
export interface FrameworkRuns {
  /** The framework's agent directly. */
  readonly direct: RunOnce;
  /** The adapter's provider called directly (`start` → result → dispose), no service. */
  readonly provider: RunOnce;
  /** Through `ctx.subagents` (start → await result → dispose). */
  readonly seam: RunOnce;
}

/** The runs of each framework (the scope goes with the process). */
export function setupFrameworks(): Record<Framework, FrameworkRuns> {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  const parent = { id: "bench", scope: root };

  // The scripted model answers as many calls as the bench makes.
  const runner = new Runner({ tracingDisabled: true });
  const openai = new Agent({
    name: "child",
    instructions: "Be brief.",
    model: promptModel(200_000),
  });
  const openaiProvider = createOpenAIAgentsProvider({ agent: openai, runner });
  subagents.registerProvider(openaiProvider);

  const graph = promptGraph();
  const langgraphProvider = createLangGraphProvider({ graph });
  subagents.registerProvider(langgraphProvider);

  const mastra = mastraAgent();
  const mastraProvider = createMastraProvider({ agent: mastra });
  subagents.registerProvider(mastraProvider);

  let thread = 0;
  return {
    "openai-agents": {
      async direct() {
        const stream = await runner.run(openai, PROMPT, { stream: true });
        for await (const _ of stream) { /* consumed */ }
        await stream.completed;
        void stream.state.usage;
        return String(stream.finalOutput);
      },
      provider: () => viaProvider(openaiProvider, parent),
      seam: () => viaSeam(subagents, "openai-agents", parent),
    },
    langgraph: {
      async direct() {
        const config = {
          configurable: { thread_id: `direct-${++thread}` },
          streamMode: ["messages", "updates", "values"] as const,
        };
        let last: unknown;
        const input = { messages: [{ role: "user", content: PROMPT }] };
        const stream = await graph.stream(input, config as never) as AsyncIterable<
          [string, unknown]
        >;
        for await (const [, chunk] of stream) last = chunk;
        await (graph.checkpointer as MemorySaver).deleteThread(config.configurable.thread_id);
        return JSON.stringify(last).length > 0 ? "ok" : "";
      },
      provider: () => viaProvider(langgraphProvider, parent),
      seam: () => viaSeam(subagents, "langgraph", parent),
    },
    mastra: {
      async direct() {
        const output = await mastra.stream(PROMPT);
        for await (const _ of output.fullStream) { /* consumed */ }
        await output.usage;
        return await output.text;
      },
      provider: () => viaProvider(mastraProvider, parent),
      seam: () => viaSeam(subagents, "mastra", parent),
    },
  };
}

async function viaSeam(
  subagents: SubagentService,
  name: string,
  parent: { id: string; scope: ReturnType<typeof createRootScope> },
): Promise<string> {
  const run = subagents.start(name, { prompt: PROMPT, parent });
  const result = await run.result;
  await run.dispose();
  if (result.stopReason !== "completed") throw new Error(`${name}: ${result.stopReason}`);
  return result.output.length > 0 ? "ok" : "";
}

async function viaProvider(
  provider: SubagentProvider,
  parent: { id: string; scope: ReturnType<typeof createRootScope> },
): Promise<string> {
  const run = provider.start({ prompt: [{ type: "text", text: PROMPT }], parent });
  const result = await run.result;
  await run.dispose();
  if (result.stopReason !== "completed") throw new Error(`${provider.name}: ${result.stopReason}`);
  return "ok";
}
