import { type AgentRef, type JsonValue, messageOf, textOf } from "@seam/host";
import {
  acceptBudget,
  acceptMaxDepth,
  acceptPersona,
  acceptToolFilter,
  type OutputSchema,
  type SubagentBudget,
  subagentInputRequired,
  subagentInputResolved,
  subagentProgress,
  type SubagentProgressInfo,
  type SubagentResult,
  type SubagentRun,
  type SubagentService,
  type SubagentStartRequest,
  type SubagentToolFilter,
  type SubagentUsage,
} from "@seam/subagent";
import {
  subagentResultToToolResult,
  subagentToolParameters,
  subagentToolWording,
} from "@seam/tool-subagent";
import { jsonSchema, tool } from "ai";
import { cannot, checkOptions, kindOf } from "./_checks.ts";

/** What the model gives the tool: the same two parameters as `@seam/tool-subagent`'s. */
export interface SubagentToolInput {
  /** A short label for the task (3-6 words), shown while the child works. */
  readonly description: string;
  /** The complete task for the child. */
  readonly prompt: string;
}

/**
 * The tool's output: while the child works, preliminary outputs
 * (`status: "running"`, the text streamed so far); at the end one with
 * `status: "completed"`, the child's answer, its structured value and
 * usage. Each replaces the one before (the AI SDK's preliminary results).
 */
export interface SubagentToolOutput {
  /** `running` (a preliminary result) or `completed` (the final one). */
  readonly status: "running" | "completed";
  /** The run's id (once it started). */
  readonly runId?: string;
  /** The child's text: streamed so far while running, its final output when completed. */
  readonly text: string;
  /** What the child is doing now (`calling lookup`, `waiting for approval`), while running. */
  readonly activity?: string;
  /** The structured value, when an output schema was asked and met. */
  readonly structured?: JsonValue;
  /** What the run and its subtree used (final output only). */
  readonly usage?: SubagentUsage;
}

/** What the AI SDK hands `execute` (the part of its options the tool reads). */
export interface SubagentToolCallOptions {
  /** The call's id. */
  readonly toolCallId: string;
  /** Aborted when the AI SDK run is; the child is cancelled with it. */
  readonly abortSignal?: AbortSignal;
}

/** What the model sees of the tool's output (an AI SDK tool result output). */
export type SubagentToolModelOutput =
  | { readonly type: "text"; readonly value: string }
  | { readonly type: "error-text"; readonly value: string };

/**
 * The AI SDK tool {@linkcode subagentTool} returns: put it in an agent's
 * `tools` (`new ToolLoopAgent({ tools: { subagent: subagentTool(…) } })`)
 * or `streamText`'s. Typed here as the fields the AI SDK reads.
 */
export interface AiSdkSubagentTool {
  /** The tool's description (`@seam/tool-subagent`'s wording). */
  readonly description: string;
  /** The input's JSON Schema, as an AI SDK schema. */
  // deno-lint-ignore no-explicit-any
  readonly inputSchema: any;
  /** Run the delegation, yielding preliminary outputs, then the final one. */
  execute(
    input: SubagentToolInput,
    options: SubagentToolCallOptions,
  ): AsyncIterable<SubagentToolOutput>;
  /** What the model sees: the child's answer (or what went wrong), as text. */
  toModelOutput(options: { readonly output: SubagentToolOutput }): SubagentToolModelOutput;
}

/** Options of {@linkcode subagentTool}. */
export interface SubagentToolOptions {
  /** The provider every call starts a run on (registered in `service`). Required. */
  readonly provider: string;
  /**
   * The delegating agent the runs hang under: their events, progress and
   * input requests (tool approvals) are announced in its scope and travel
   * up from there (`handleSubagentInput` on it or above answers them).
   */
  readonly parent: AgentRef;
  /** Per-child agent options (`{ model }`). */
  readonly agentOptions?: { readonly model?: string };
  /** The children's persona (the provider needs the `persona` capability). */
  readonly persona?: string;
  /** The children's tools (the provider needs the `toolFilter` capability). */
  readonly toolFilter?: SubagentToolFilter;
  /** An absolute cap on delegation depth (the provider needs `depthLimit`). */
  readonly maxDepth?: number;
  /** What each child and its subtree may use (the provider needs `budget`). */
  readonly budget?: SubagentBudget;
  /** Ask each child for a structured value (the provider needs `outputSchema`). */
  readonly outputSchema?: OutputSchema;
  /** Add the run's usage to what the model sees, as a last line. Default false. */
  readonly reportUsage?: boolean;
}

const OPTION_KEYS = [
  "provider",
  "parent",
  "agentOptions",
  "persona",
  "toolFilter",
  "maxDepth",
  "budget",
  "outputSchema",
  "reportUsage",
] as const;

const ACTION = "create the AI SDK subagent tool";

/** The most characters of streamed child text a preliminary output carries (the tail). */
export const MAX_PROGRESS_TEXT = 20_000;

/**
 * Thrown by the tool's `execute` when the run did not complete: the AI SDK
 * turns it into a tool error whose message the model reads (what happened,
 * the failure's code and message, the child's partial output, as
 * `@seam/tool-subagent` words it). `result` is the run's result (with its
 * usage) when it settled.
 */
export class SubagentToolError extends Error {
  /** `SUBAGENT_NOT_COMPLETED` (the run ended otherwise) or `SUBAGENT_NOT_STARTED`. */
  readonly code: "SUBAGENT_NOT_COMPLETED" | "SUBAGENT_NOT_STARTED";
  /** The run's result, when it settled. */
  readonly result?: SubagentResult;

  /** Make the error (the tool does). */
  constructor(
    message: string,
    code: "SUBAGENT_NOT_COMPLETED" | "SUBAGENT_NOT_STARTED",
    result?: SubagentResult,
  ) {
    super(message);
    this.name = "SubagentToolError";
    this.code = code;
    if (result !== undefined) this.result = result;
  }
}

/**
 * `ctx.subagents` as an AI SDK tool: an AI SDK agent delegates a task to any
 * seam provider (an ACP agent, a remote A2A agent, another AI SDK agent,
 * `spawn`) by calling it. The model sees `@seam/tool-subagent`'s tool: two
 * required strings, `description` (a label) and `prompt` (the task), worded
 * from the provider's `inheritsParentContext`. Which provider runs the child
 * is config, never a parameter.
 *
 * A call starts a run under `parent`, cancels it when the AI SDK aborts the
 * call, and always disposes it. While the child works the tool yields
 * preliminary results (the child's streamed text and what it is doing); the
 * final output carries its answer, structured value and usage. A run that
 * does not complete (fails, is cancelled, hits a limit, cannot start) throws
 * a {@linkcode SubagentToolError}, which the AI SDK hands the model as a tool
 * error it can read. The child's tool approvals travel up from `parent`'s
 * scope as input requests.
 *
 * @param service The subagent service (`ctx.subagents`) holding `provider`.
 * @param options See {@linkcode SubagentToolOptions}.
 * @returns The AI SDK tool.
 * @throws {TypeError} for an unknown or malformed option, or a provider not
 *   registered in `service`.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { subagentTool } from "@seam/ai-sdk";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * subagents.registerProvider({
 *   name: "echo",
 *   capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
 *   inheritsParentContext: false,
 *   start: (request) => ({
 *     id: "echo-1",
 *     started: Promise.resolve(),
 *     result: Promise.resolve({ output: request.prompt, stopReason: "completed" as const }),
 *     cancel() {},
 *     dispose: () => Promise.resolve(),
 *   }),
 * });
 * const delegate = subagentTool(subagents, { provider: "echo", parent: { id: "main", scope: root } });
 * let last;
 * for await (const output of delegate.execute({ description: "Echo", prompt: "hi" }, { toolCallId: "c1" })) {
 *   last = output;
 * }
 * assert.equal(last?.status, "completed");
 * assert.deepEqual(delegate.toModelOutput({ output: last! }), { type: "text", value: "hi" });
 * await root.dispose();
 * ```
 */
export function subagentTool(
  service: SubagentService,
  options: SubagentToolOptions,
): AiSdkSubagentTool {
  if (service === null || typeof service !== "object" || typeof service.start !== "function") {
    cannot(ACTION, `service must be a SubagentService (ctx.subagents), got ${kindOf(service)}`);
  }
  checkOptions(ACTION, options, OPTION_KEYS);
  const { provider, parent, reportUsage = false } = options;
  if (typeof provider !== "string" || provider === "") {
    cannot(ACTION, `provider must be a non-empty provider name, got ${kindOf(provider)}`);
  }
  if (
    parent === null || typeof parent !== "object" || typeof parent.id !== "string" ||
    typeof parent.scope?.emit !== "function"
  ) {
    cannot(ACTION, "parent must be an AgentRef ({ id, scope }): the agent the runs hang under");
  }
  if (typeof reportUsage !== "boolean") cannot(ACTION, "reportUsage must be a boolean");
  const registered = service.getProvider(provider);
  if (!registered) {
    const known = service.list();
    cannot(
      ACTION,
      `no provider named "${provider}" is registered (registered: ${known.join(", ") || "none"})`,
    );
  }
  const fields = startFields(options);
  const wording = subagentToolWording(registered.inheritsParentContext);
  const made = tool({
    description: wording.description,
    inputSchema: jsonSchema<SubagentToolInput>(subagentToolParameters(wording)),
    execute: (input: SubagentToolInput, call: SubagentToolCallOptions) =>
      delegate(service, provider, parent, fields, input, call),
    toModelOutput: ({ output }: { output: SubagentToolOutput }): SubagentToolModelOutput => ({
      type: "text",
      value: modelText(output, reportUsage),
    }),
  });
  return made as unknown as AiSdkSubagentTool;
}

function startFields(options: SubagentToolOptions): Partial<SubagentStartRequest> {
  const fields: Record<string, unknown> = {};
  const { agentOptions, persona, toolFilter, maxDepth, budget, outputSchema } = options;
  if (agentOptions !== undefined) {
    checkOptions(ACTION, agentOptions, ["model"], "agentOptions");
    fields.agentOptions = Object.freeze({ ...agentOptions });
  }
  if (persona !== undefined) fields.persona = acceptPersona(persona, "persona", ACTION);
  if (toolFilter !== undefined) {
    fields.toolFilter = acceptToolFilter(toolFilter, "toolFilter", ACTION);
  }
  if (maxDepth !== undefined) fields.maxDepth = acceptMaxDepth(maxDepth, "maxDepth");
  if (budget !== undefined) fields.budget = acceptBudget(budget, "budget", ACTION);
  if (outputSchema !== undefined) {
    if (outputSchema === null || typeof outputSchema !== "object" || Array.isArray(outputSchema)) {
      cannot(ACTION, "outputSchema must be an object-rooted JSON Schema");
    }
    fields.outputSchema = outputSchema;
  }
  return Object.freeze(fields) as Partial<SubagentStartRequest>;
}

function modelText(output: SubagentToolOutput, reportUsage: boolean): string {
  const result = subagentResultToToolResult({
    output: output.text === "" ? [] : [{ type: "text", text: output.text }],
    stopReason: "completed",
    ...(output.structured !== undefined ? { structured: output.structured } : {}),
  });
  let text = textOf(result.content);
  if (reportUsage && output.usage) text += `\n\n${usageLine(output.usage)}`;
  return text;
}

function usageLine(usage: SubagentUsage): string {
  const t = usage.total;
  return `[usage: ${t.inputTokens} input tokens${
    t.cachedInputTokens > 0 ? ` (${t.cachedInputTokens} cached)` : ""
  }, ${t.outputTokens} output, ${t.modelCalls} model calls, ${t.toolCalls} tool calls${
    usage.partial ? "; partial" : ""
  }]`;
}

async function* delegate(
  service: SubagentService,
  provider: string,
  parent: AgentRef,
  fields: Partial<SubagentStartRequest>,
  input: SubagentToolInput,
  call: SubagentToolCallOptions,
): AsyncGenerator<SubagentToolOutput> {
  let run: SubagentRun;
  try {
    run = service.start(provider, {
      prompt: String(input?.prompt ?? ""),
      parent,
      ...(typeof input?.description === "string" && input.description !== ""
        ? { label: input.description.slice(0, 200) }
        : {}),
      ...(call?.abortSignal ? { signal: call.abortSignal } : {}),
      ...fields,
    });
  } catch (error) {
    throw new SubagentToolError(
      `The subagent could not be started: ${messageOf(error)}`,
      "SUBAGENT_NOT_STARTED",
    );
  }
  const watch = new ProgressWatch(parent, run.id);
  try {
    let settled: SubagentResult | undefined;
    let failure: unknown;
    const result = run.result.then((r) => settled = r, (error) => failure = error ?? "rejected");
    while (settled === undefined && failure === undefined) {
      const snapshot = watch.take();
      if (snapshot) yield { status: "running", runId: run.id, ...snapshot };
      await Promise.race([result, watch.changed()]);
    }
    if (failure !== undefined) {
      throw new SubagentToolError(
        `The subagent run broke down (provider "${provider}"): ${messageOf(failure)}`,
        "SUBAGENT_NOT_COMPLETED",
      );
    }
    const final = settled!;
    if (final.stopReason !== "completed") {
      throw new SubagentToolError(
        textOf(subagentResultToToolResult(final).content),
        "SUBAGENT_NOT_COMPLETED",
        final,
      );
    }
    yield {
      status: "completed",
      runId: run.id,
      text: textOf(final.output),
      ...(final.structured !== undefined ? { structured: final.structured } : {}),
      ...(final.usage ? { usage: final.usage } : {}),
    };
  } finally {
    watch.close();
    await run.dispose();
  }
}

/** The progress of one run, coalesced: what changed since the last take. */
class ProgressWatch {
  #text = "";
  #activity: string | undefined;
  #dirty = false;
  #wake: (() => void) | undefined;
  readonly #offs: (() => Promise<void>)[];

  constructor(parent: AgentRef, runId: string) {
    const scope = parent.scope;
    this.#offs = [
      scope.on(subagentProgress, (info) => {
        if (info.runId === runId) this.#see(info);
      }),
      // A request from the run or from below it (its path runs through the run).
      scope.on(subagentInputRequired, (request) => {
        if (request.path.includes(runId)) {
          this.#note(`waiting for input: ${request.message.slice(0, 200)}`);
        }
      }),
      scope.on(subagentInputResolved, ({ request }) => {
        if (request.path.includes(runId)) this.#note(undefined);
      }),
    ];
  }

  #note(activity: string | undefined): void {
    this.#activity = activity;
    this.#dirty = true;
    this.#wake?.();
  }

  #see(info: SubagentProgressInfo): void {
    if (info.kind === "text" && info.text) {
      this.#text = (this.#text + info.text).slice(-MAX_PROGRESS_TEXT);
      this.#activity = undefined;
    } else if (info.kind === "tool-call") this.#activity = `calling ${info.name ?? "a tool"}`;
    else if (info.kind === "tool-result") this.#activity = undefined;
    else if (info.kind === "remote") {
      this.#activity = `working on ${info.remote?.agentName ?? "a remote agent"}`;
    } else return;
    this.#dirty = true;
    this.#wake?.();
  }

  /** What changed since the last take, or undefined. */
  take(): { text: string; activity?: string } | undefined {
    if (!this.#dirty) return undefined;
    this.#dirty = false;
    return { text: this.#text, ...(this.#activity ? { activity: this.#activity } : {}) };
  }

  /** Resolves at the next change. */
  changed(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }

  close(): void {
    this.#wake?.();
    for (const off of this.#offs) off().catch(() => {});
  }
}
