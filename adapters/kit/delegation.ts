import {
  type AgentRef,
  describe,
  describeError,
  isRecord,
  type JsonSchema,
  refuseUnknownOptions,
  type Scope,
  textOf,
} from "@seam/host";
import {
  acceptBudget,
  acceptMaxDepth,
  acceptPersona,
  acceptToolFilter,
  getSubagentService,
  type SubagentAgentOptions,
  type SubagentBudget,
  subagentProgress,
  type SubagentProgressInfo,
  type SubagentResult,
  type SubagentRun,
  type SubagentService,
  type SubagentToolFilter,
} from "@seam/subagent";
import {
  subagentResultToToolResult,
  subagentToolParameters,
  subagentToolWording,
} from "@seam/tool-subagent";

/**
 * How a framework's `subagent` tool delegates: the provider it starts runs
 * on and the request fields every run gets (as `@seam/tool-subagent`'s
 * `SubagentToolConfig`). Unknown options are refused.
 */
export interface FrameworkToolConfig {
  /** The provider to start runs on (`spawn`, `a2a`, `acp`, …); registered already. */
  readonly provider: string;
  /** The tool's name. Default `"subagent"`. */
  readonly toolName?: string;
  /**
   * The delegating agent's id in the run's events when the framework's agent
   * is not itself a seam child. Default: the framework's name.
   */
  readonly agentId?: string;
  /** Per-child agent options applied to every run (`{model}`). */
  readonly agentOptions?: SubagentAgentOptions;
  /** The children's persona (the provider needs the `persona` capability). */
  readonly persona?: string;
  /** The tools the children may use (the provider needs `toolFilter`). */
  readonly toolFilter?: SubagentToolFilter;
  /** An absolute cap on the children's delegation depth (needs `depthLimit`). */
  readonly maxDepth?: number;
  /** What each child and its subtree may use (needs `budget`). */
  readonly budget?: SubagentBudget;
  /** Hears each child's `subagent/progress` while it runs. */
  readonly onProgress?: (progress: SubagentProgressInfo) => void;
}

/** What the model gives a `subagent` tool. */
export interface SubagentToolArgs {
  /** A short label for the task. */
  readonly description: string;
  /** The complete task. */
  readonly prompt: string;
}

/** How one call delegates; an `undefined` field is as good as an absent one. */
export interface DelegateOptions {
  /**
   * The delegating agent, when the framework's run is itself a seam child
   * (the adapter's provider put it in the run's context); default: the
   * configured top-level agent.
   */
  readonly parent?: AgentRef;
  /** The call's abort signal: aborting it cancels the child. */
  readonly signal?: AbortSignal;
  /**
   * Hears the child's `subagent/progress` while it runs (the framework's
   * stream for it), besides the config's `onProgress`.
   */
  readonly onProgress?: (progress: SubagentProgressInfo) => void;
}

/** How a delegation ended, for the model and for the program. */
export interface DelegationOutcome {
  /** What the model reads (as `@seam/tool-subagent` words it). */
  readonly text: string;
  /** Whether it is an error the model should know about. */
  readonly isError: boolean;
  /** The run's result (with its usage), when a run started and settled. */
  readonly result?: SubagentResult;
}

/** A `subagent` tool's name, wording, schema and call, for a framework to wrap. */
export interface Delegation {
  /** The tool's name. */
  readonly name: string;
  /** The tool's description, worded for the bound provider. */
  readonly description: string;
  /** The parameters' JSON Schema: `{description, prompt}`, both required. */
  readonly parameters: JsonSchema;
  /** Delegate one task; never rejects (a refusal is an error outcome). */
  delegate(args: SubagentToolArgs, options?: DelegateOptions): Promise<DelegationOutcome>;
  /**
   * Delegate one task and give the tool's output: the outcome's text, after
   * `Error: ` for an error outcome. Never rejects.
   */
  answer(args: SubagentToolArgs, options?: DelegateOptions): Promise<string>;
}

const KEYS = [
  "provider",
  "toolName",
  "agentId",
  "agentOptions",
  "persona",
  "toolFilter",
  "maxDepth",
  "budget",
  "onProgress",
] satisfies (keyof FrameworkToolConfig)[];
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The core of a framework's `subagent` tool: `@seam/tool-subagent`'s schema
 * and wording, a run started through `ctx.subagents` (found from `scope`)
 * and always disposed, its result worded for the model.
 *
 * @param scope The scope whose subagent service the tool uses; top-level
 * delegations are owned by it.
 * @param config The binding (see {@linkcode FrameworkToolConfig}).
 * @param framework The framework's name, for the default agent id and errors.
 * @throws {TypeError | RangeError} naming the option for a bad config or an
 * unregistered provider.
 */
export function createDelegation(
  scope: Scope,
  config: FrameworkToolConfig,
  framework: string,
): Delegation {
  const fail = (problem: string): never => {
    throw new TypeError(`Cannot make the ${framework} subagent tool: ${problem}`);
  };
  if (!scope || typeof scope.inject !== "function") {
    fail(`scope must be a seam Scope, got ${describe(scope)}`);
  }
  if (!isRecord(config)) fail(`config must be an object, got ${describe(config)}`);
  refuseUnknownOptions(`make the ${framework} subagent tool`, config, KEYS);
  const { provider, toolName = "subagent", agentId = framework, agentOptions, onProgress } = config;
  if (onProgress !== undefined && typeof onProgress !== "function") {
    fail(`config.onProgress must be a function, got ${describe(onProgress)}`);
  }
  if (typeof toolName !== "string" || !TOOL_NAME.test(toolName)) {
    fail(`config.toolName must match ${TOOL_NAME.source}, got ${describe(toolName)}`);
  }
  if (typeof agentId !== "string" || agentId === "") {
    fail(`config.agentId must be a non-empty string, got ${describe(agentId)}`);
  }
  const service: SubagentService = getSubagentService(scope);
  const registered = typeof provider === "string" ? service.getProvider(provider) : undefined;
  if (!registered) {
    fail(
      `config.provider ${describe(provider)} is no registered provider (registered: ${
        service.list().join(", ") || "none"
      })`,
    );
  }
  const action = `make the ${framework} subagent tool`;
  const options = {
    ...(agentOptions !== undefined ? { agentOptions } : {}),
    ...(config.persona !== undefined
      ? { persona: acceptPersona(config.persona, "config.persona", action) }
      : {}),
    ...(config.toolFilter !== undefined
      ? { toolFilter: acceptToolFilter(config.toolFilter, "config.toolFilter", action) }
      : {}),
    ...(config.maxDepth !== undefined
      ? { maxDepth: acceptMaxDepth(config.maxDepth, "config.maxDepth") }
      : {}),
    ...(config.budget !== undefined
      ? { budget: acceptBudget(config.budget, "config.budget", action) }
      : {}),
  };
  const wording = subagentToolWording(registered!.inheritsParentContext);
  const topLevel: AgentRef = Object.freeze({ id: agentId, scope });
  const delegation = (args: SubagentToolArgs, call: DelegateOptions = {}) =>
    delegate(service, provider!, options, args, {
      signal: call.signal,
      onProgress: onProgress && call.onProgress
        ? (progress) => {
          call.onProgress!(progress);
          onProgress(progress);
        }
        : onProgress ?? call.onProgress,
    }, call.parent ?? topLevel);
  return Object.freeze({
    name: toolName,
    description: wording.description,
    parameters: subagentToolParameters(wording),
    delegate: delegation,
    answer: async (args: SubagentToolArgs, call?: DelegateOptions) => {
      const outcome = await delegation(args, call);
      return outcome.isError ? `Error: ${outcome.text}` : outcome.text;
    },
  });
}

async function delegate(
  service: SubagentService,
  provider: string,
  options: Record<string, unknown>,
  args: SubagentToolArgs,
  call: DelegateOptions,
  parent: AgentRef,
): Promise<DelegationOutcome> {
  if (!isRecord(args) || typeof args.prompt !== "string" || args.prompt.trim() === "") {
    return {
      text:
        `Cannot delegate: the tool's arguments must be {description, prompt} with a non-empty prompt`,
      isError: true,
    };
  }
  let run: SubagentRun;
  try {
    run = service.start(provider, {
      prompt: args.prompt,
      parent,
      ...(typeof args.description === "string" && args.description !== ""
        ? { label: args.description.slice(0, 200) }
        : {}),
      ...(call.signal ? { signal: call.signal } : {}),
      ...options,
    });
  } catch (error) {
    return { text: `The subagent could not be started: ${describeError(error)}`, isError: true };
  }
  const onProgress = call.onProgress;
  const unlisten = onProgress
    ? parent.scope.on(subagentProgress, (info) => {
      if (info.runId === run.id) onProgress(info);
    })
    : undefined;
  try {
    const result = await run.result;
    const toolResult = subagentResultToToolResult(result);
    return { text: textOf(toolResult.content), isError: toolResult.isError === true, result };
  } catch (error) {
    return {
      text: `The subagent run broke down (provider "${provider}"): ${describeError(error)}`,
      isError: true,
    };
  } finally {
    await unlisten?.();
    await run.dispose();
  }
}
