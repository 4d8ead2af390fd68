import type { AgentRef, ContentBlock, Scope } from "@seam/host";
import {
  delegationContextKey,
  type OutputSchema,
  type SubagentCapabilities,
  SubagentDepthError,
  type SubagentProvider,
  type SubagentRequest,
  type SubagentRunHandle,
  subagentRunPath,
  subagentRunPathKey,
  type SubagentToolFilter,
  tighterDepthCap,
} from "@seam/subagent";
import type { ModelMessage } from "ai";
import { cannot, checkOptions, kindOf } from "./_checks.ts";
import { AiSdkRun, nextRunId, type RunAgent } from "./_run.ts";

/**
 * An AI SDK agent as this package sees it: a `ToolLoopAgent`, or anything
 * implementing the AI SDK's `Agent` interface (`version: "agent-v1"`,
 * `stream()`), such as your own `streamText` loop. Checked structurally.
 */
export interface AiSdkAgent {
  /** `"agent-v1"`. */
  readonly version: string;
  /** The agent's tools by name (checked against a `toolFilter`). */
  readonly tools?: unknown;
  /** Stream one call of the agent (what the provider uses). */
  stream(options: never): PromiseLike<unknown>;
}

/** What {@linkcode AiSdkProviderOptions.make} is told about the run to make an agent for. */
export interface AiSdkRunSpec {
  /** The run's id. */
  readonly runId: string;
  /** The task (the provider sends it as the agent's first user message). */
  readonly prompt: readonly ContentBlock[];
  /** The persona asked for (when `capabilities.persona` is declared). */
  readonly persona?: string;
  /** The tool filter asked for (when `capabilities.toolFilter` is declared). */
  readonly toolFilter?: SubagentToolFilter;
  /**
   * The output schema asked for (when `capabilities.outputSchema` is
   * declared): give the agent `output: Output.object({ schema:
   * jsonSchema(spec.outputSchema) })`, and the provider hands its value on
   * as the result's `structured`.
   */
  readonly outputSchema?: OutputSchema;
  /** The depth cap asked for (when `capabilities.depthLimit` is declared). */
  readonly maxDepth?: number;
  /**
   * The run as a delegating agent: give it as `parent` to the agent's own
   * {@linkcode subagentTool}s, so what the child delegates sits below this
   * run in the tree (its depth, the depth cap, its input requests' path).
   * Its scope lives as long as the run.
   */
  readonly parent: AgentRef;
  /** The model the caller asked for (`agentOptions.model`), when it did. */
  readonly model?: string;
  /** `base`, then the persona when one was asked for: the agent's instructions. */
  instructions(base: string): string;
  /** `tools` without those the tool filter leaves out (all of them when none was asked). */
  tools<T extends Record<string, unknown>>(tools: T): T;
}

/** Options of {@linkcode createAiSdkProvider}: give `agent` or `make`. */
export interface AiSdkProviderOptions {
  /** The provider's name, what callers start it by (`researcher`). */
  readonly name: string;
  /** The agent every run calls (it cannot change per run: no start-time capability). */
  readonly agent?: AiSdkAgent;
  /**
   * Make the agent for one run, told what the run asks for (persona, tool
   * filter, output schema). Declare in `capabilities` what it honours.
   */
  readonly make?: (spec: AiSdkRunSpec) => AiSdkAgent | Promise<AiSdkAgent>;
  /**
   * What `make` honours (default: nothing). The provider checks what it
   * can: an agent whose tools the filter leaves out does not start, a run
   * whose agent gave no structured value ends `NO_STRUCTURED_RESULT`.
   * Declare `depthLimit` when the agent delegates only through
   * `subagentTool(…, { parent: spec.parent })`, which carries the run's depth
   * and cap. `budget` is always true: the provider charges tokens and tool
   * calls.
   */
  readonly capabilities?: Partial<
    Pick<SubagentCapabilities, "outputSchema" | "toolFilter" | "persona" | "depthLimit">
  >;
}

const OPTION_KEYS = ["name", "agent", "make", "capabilities"] as const;
const CAPABILITY_KEYS = ["outputSchema", "toolFilter", "persona", "depthLimit"] as const;
const ACTION = "create the AI SDK provider";

/** The provider of {@linkcode createAiSdkProvider}: its live runs are visible for tests and shutdown. */
export interface AiSdkProvider extends SubagentProvider {
  /** How many runs have not settled yet. */
  readonly liveRuns: number;
}

/**
 * An AI SDK agent as a seam subagent provider: each run sends the prompt to
 * the agent (`agent.stream`) and streams what it does as
 * `subagent/progress` (text, thoughts, tool calls and results); usage
 * (tokens, cached tokens, model calls, tool calls) comes back in the result
 * and is charged to a budget as it happens; `cancel` and the request's
 * signal abort the agent's `abortSignal`.
 *
 * A tool call that needs approval (a tool's `needsApproval`, the agent's
 * `toolApproval`) becomes a seam input request (`permission`, options
 * `allow` / `reject`) that travels up the tree to whoever handles it (an ACP
 * client, an A2A caller, the inspector) or to `run.respond`; the answer goes
 * back to the agent as its `tool-approval-response` and the run continues.
 *
 * With `agent` every run calls the same agent, so no start-time capability
 * is declared (a persona, tool filter, output schema or depth cap is refused
 * before any run). With `make`, an agent is made per run from an
 * {@linkcode AiSdkRunSpec}, and `capabilities` says what it honours.
 *
 * Runs end `completed` (the last step's text), `max-tokens`, `refusal`
 * (content filter), `aborted`, or `error` with `CHILD_FAILED` (the model or
 * the agent failed), `START_FAILED` (`make` threw, or its agent breaks the
 * tool filter) or `NO_STRUCTURED_RESULT`. Runs can be resumed: `resume`
 * continues the conversation with another user message.
 *
 * @param options See {@linkcode AiSdkProviderOptions}.
 * @returns The provider, to register with `ctx.subagents.registerProvider`.
 * @throws {TypeError} for a missing or malformed `name`, neither or both of
 *   `agent` and `make`, something that is not an AI SDK agent, capabilities
 *   declared with a fixed `agent`, or an unknown option.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createAiSdkProvider } from "@seam/ai-sdk";
 * import { ToolLoopAgent } from "ai";
 * import { MockLanguageModelV4, simulateReadableStream } from "ai/test";
 * import assert from "node:assert/strict";
 *
 * const model = new MockLanguageModelV4({
 *   doStream: async () => ({
 *     stream: simulateReadableStream({
 *       chunks: [
 *         { type: "text-start", id: "t" },
 *         { type: "text-delta", id: "t", delta: "Paris." },
 *         { type: "text-end", id: "t" },
 *         {
 *           type: "finish",
 *           finishReason: { unified: "stop", raw: "stop" },
 *           usage: {
 *             inputTokens: { total: 9, noCache: 9, cacheRead: 0, cacheWrite: 0 },
 *             outputTokens: { total: 2, text: 2, reasoning: 0 },
 *           },
 *         },
 *       ],
 *     }),
 *   }),
 * });
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * subagents.registerProvider(
 *   createAiSdkProvider({ name: "geo", agent: new ToolLoopAgent({ model }) }),
 * );
 * const parent = { id: "main", scope: root };
 * const run = subagents.start("geo", { prompt: "Capital of France?", parent });
 * const result = await run.result;
 * await run.dispose();
 * assert.equal(result.stopReason, "completed");
 * assert.deepEqual(result.output, [{ type: "text", text: "Paris." }]);
 * assert.equal(result.usage?.self.inputTokens, 9);
 * await root.dispose();
 * ```
 */
export function createAiSdkProvider(options: AiSdkProviderOptions): AiSdkProvider {
  checkOptions(ACTION, options, OPTION_KEYS);
  const { name, agent, make } = options;
  if (typeof name !== "string" || name === "") {
    cannot(ACTION, `name must be a non-empty string, got ${kindOf(name)}`);
  }
  if ((agent === undefined) === (make === undefined)) {
    cannot(ACTION, "give agent (one AI SDK agent for every run) or make (one per run), not both");
  }
  if (agent !== undefined) {
    const problem = notAgent(agent);
    if (problem) cannot(ACTION, `agent ${problem}`);
  }
  if (make !== undefined && typeof make !== "function") {
    cannot(ACTION, `make must be a function returning an AI SDK agent, got ${kindOf(make)}`);
  }
  const declared = options.capabilities ?? {};
  checkOptions(ACTION, declared, CAPABILITY_KEYS, "capabilities");
  for (const key of CAPABILITY_KEYS) {
    const value = declared[key];
    if (value !== undefined && typeof value !== "boolean") {
      cannot(ACTION, `capabilities.${key} must be a boolean`);
    }
    if (value && agent !== undefined) {
      cannot(
        ACTION,
        `capabilities.${key}: one fixed agent cannot change per run; use make to build an agent per run`,
      );
    }
  }
  const capabilities: SubagentCapabilities = Object.freeze({
    outputSchema: declared.outputSchema ?? false,
    depthLimit: declared.depthLimit ?? false,
    toolFilter: declared.toolFilter ?? false,
    persona: declared.persona ?? false,
    budget: true,
  });
  const live = new Set<AiSdkRun>();

  const begin = (request: SubagentRequest, history: readonly ModelMessage[]): SubagentRunHandle => {
    const { depth, cap } = placeOf(request);
    const id = nextRunId(name);
    // Made agents may delegate: their runs sit below this one (depth, cap, path).
    const scope = make !== undefined ? runScope(request, id, depth, cap) : undefined;
    const run = new AiSdkRun({
      id,
      request,
      history,
      agent: () =>
        (agent ?? make!(specOf(id, request, { id, scope: scope! }))) as unknown as
          | RunAgent
          | Promise<RunAgent>,
      checkAgent: (made) => checkMade(made, make !== undefined ? request.toolFilter : undefined),
      onEnd: (ended) => live.delete(ended),
      ...(scope ? { onDispose: () => scope.dispose() } : {}),
    });
    live.add(run);
    const handle = run.handle;
    return Object.freeze({
      ...handle,
      resume: (content: string | readonly ContentBlock[]) =>
        begin(
          Object.freeze({
            ...request,
            prompt: typeof content === "string" ? [{ type: "text", text: content }] : content,
          }) as SubagentRequest,
          run.messages,
        ),
    });
  };

  return Object.freeze({
    name,
    capabilities,
    inheritsParentContext: false,
    get liveRuns(): number {
      return live.size;
    },
    start(request: SubagentRequest): SubagentRunHandle {
      return begin(request, []);
    },
    async dispose(): Promise<void> {
      await Promise.all([...live].map((run) => run.dispose()));
    },
  });
}

function notAgent(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") {
    return `must be an AI SDK agent (a ToolLoopAgent or an Agent with version "agent-v1" and stream()), got ${
      kindOf(value)
    }`;
  }
  const candidate = value as Record<string, unknown>;
  if (candidate.version !== "agent-v1") {
    return `must be an AI SDK agent (version "agent-v1"), got an object with version ${
      typeof candidate.version === "string"
        ? `"${candidate.version.slice(0, 20)}"`
        : String(candidate.version)
    }${
      typeof candidate.doStream === "function"
        ? " (a language model? wrap it: new ToolLoopAgent({ model }))"
        : ""
    }`;
  }
  if (typeof candidate.stream !== "function") return "must have a stream() method";
  return undefined;
}

/** What is wrong with the agent `make` gave, or undefined. */
function checkMade(made: unknown, filter: SubagentToolFilter | undefined): string | undefined {
  const problem = notAgent(made);
  if (problem) return `make() gave no agent: it ${problem}`;
  if (filter === undefined) return undefined;
  const tools = (made as { tools?: unknown }).tools;
  const names = tools !== null && typeof tools === "object" ? Object.keys(tools) : [];
  const outside = names.filter((tool) => !allowed(filter, tool));
  if (outside.length > 0) {
    return `the agent make() gave has tools the tool filter leaves out: ${
      outside.join(", ")
    } (build it with spec.tools(...))`;
  }
  return undefined;
}

function allowed(filter: SubagentToolFilter, tool: string): boolean {
  if (filter.allow !== undefined && !filter.allow.includes(tool)) return false;
  return !(filter.deny?.includes(tool) ?? false);
}

/** The run's depth and the cap over it; a run deeper than the cap it inherits or asks does not start. */
function placeOf(request: SubagentRequest): { depth: number; cap?: number } {
  const inherited = request.parent.scope.inject(delegationContextKey);
  const depth = request.place?.depth ?? (inherited?.depth ?? 0) + 1;
  const cap = tighterDepthCap(request.maxDepth, inherited?.maxDepth);
  if (cap !== undefined && depth > cap) throw new SubagentDepthError(depth, cap);
  return cap === undefined ? { depth } : { depth, cap };
}

/** The scope a made agent delegates from: below the delegating parent's, with the run's place. */
function runScope(request: SubagentRequest, runId: string, depth: number, cap?: number): Scope {
  const parentScope = request.parent.scope;
  const scope = parentScope.child(runId);
  scope.provide(
    delegationContextKey,
    Object.freeze({ depth, ...(cap !== undefined ? { maxDepth: cap } : {}), runId }),
  );
  scope.provide(subagentRunPathKey, Object.freeze([...subagentRunPath(parentScope), runId]));
  return scope;
}

function specOf(runId: string, request: SubagentRequest, parent: AgentRef): AiSdkRunSpec {
  const { persona, toolFilter, outputSchema, maxDepth } = request;
  const model = request.agentOptions?.model;
  return Object.freeze({
    runId,
    parent,
    prompt: request.prompt,
    ...(persona !== undefined ? { persona } : {}),
    ...(toolFilter !== undefined ? { toolFilter } : {}),
    ...(outputSchema !== undefined ? { outputSchema } : {}),
    ...(maxDepth !== undefined ? { maxDepth } : {}),
    ...(model !== undefined ? { model } : {}),
    instructions: (base: string) =>
      persona === undefined ? base : base === "" ? persona : `${base}\n\n${persona}`,
    tools: <T extends Record<string, unknown>>(tools: T): T =>
      toolFilter === undefined ? tools : Object.fromEntries(
        Object.entries(tools).filter(([tool]) => allowed(toolFilter, tool)),
      ) as T,
  });
}
