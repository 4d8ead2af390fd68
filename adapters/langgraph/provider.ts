import { Command } from "@langchain/langgraph";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { describe, isRecord, textOf } from "@seam/host";
import type { SubagentInputAnswer, SubagentProvider, SubagentResultInput } from "@seam/subagent";
import {
  checkProviderOptions,
  createFrameworkProvider,
  type FrameworkRunContext,
  UsageTally,
} from "@seam/adapter-kit";
import { asksOf, resumeOf } from "./_interrupts.ts";
import { SEAM_PARENT } from "./_context.ts";

/** How {@linkcode createLangGraphProvider} runs a compiled LangGraph.js graph. */
export interface LangGraphProviderOptions {
  /** The provider's name. Default `"langgraph"`. */
  readonly name?: string;
  /**
   * The compiled graph (`new StateGraph(…).compile({ checkpointer })`, or a
   * prebuilt agent). A checkpointer is what lets `interrupt()` resume.
   */
  readonly graph: unknown;
  /**
   * The graph's input for a run. Default: `{messages: [system persona?,
   * user prompt]}`, for a graph with a `messages` channel.
   */
  readonly input?: (prompt: string, request: { readonly persona?: string }) => unknown;
  /** The run's output from the graph's final state. Default: its last AI message's text. */
  readonly output?: (state: unknown) => string;
  /** The graph's `recursionLimit` per run (LangGraph's default otherwise). */
  readonly recursionLimit?: number;
}

const OPTIONS = ["name", "graph", "input", "output", "recursionLimit"];

/** What the run's messages add up to, and the last AI message (whether it was cut short). */
interface Tally {
  readonly usage: UsageTally;
  lastAi: Message | undefined;
}

/** A LangChain message, as far as the mapping reads it. */
interface Message {
  readonly type?: string;
  _getType?(): string;
  readonly content?: unknown;
  readonly id?: string;
  readonly name?: string;
  readonly tool_call_id?: string;
  readonly tool_calls?: readonly { readonly name?: string; readonly id?: string }[];
  readonly usage_metadata?: {
    readonly input_tokens?: number;
    readonly output_tokens?: number;
    readonly input_token_details?: { readonly cache_read?: number };
  };
  readonly response_metadata?: Record<string, unknown>;
}

/**
 * A compiled LangGraph.js graph as a seam provider. Each run streams the
 * graph (`messages`, `updates` and `values` modes) on a thread of its own:
 * AI message tokens become `subagent/progress` (`text`), tool calls and
 * tool messages `tool-call` / `tool-result`; usage is summed from the AI
 * messages' `usage_metadata` (partial when one lacks it); cancel aborts the
 * stream's signal. Each `interrupt()` becomes seam input requests travelling
 * up the tree, and the run resumes in place with `Command({ resume })`: a
 * LangChain human-in-the-loop value (`{actionRequests: [...]}`) asks one
 * permission per action and resumes `{decisions: [...]}` (a refusal rejects
 * with its reason); any other value is a question whose answer's text is
 * the resume value (a refused question ends the run `error`,
 * `INPUT_REQUIRED`). Several interrupts at once resume by their ids.
 *
 * Start-time capabilities: `persona` (a system message before the prompt,
 * or `options.input`'s), `depthLimit` and `budget` (tokens and tool calls
 * charged as each node's messages arrive). A graph's structured output is
 * fixed when it is built, and its tools are inside it, so `outputSchema` and
 * `toolFilter` are declared unsupported. A last AI message that stopped for
 * length ends `max-tokens`.
 *
 * @throws {TypeError} naming the option for bad options (a graph that is not
 * compiled or no graph at all, unknown options).
 *
 * @example
 * ```ts
 * import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
 * import { FakeListChatModel } from "@langchain/core/utils/testing";
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createLangGraphProvider } from "@seam/langgraph";
 * import assert from "node:assert/strict";
 *
 * const model = new FakeListChatModel({ responses: ["Paris"] });
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
 *   .addEdge("__start__", "model")
 *   .compile();
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * subagents.registerProvider(createLangGraphProvider({ graph }));
 * const run = subagents.start("langgraph", {
 *   prompt: "Capital of France?",
 *   parent: { id: "main", scope: root },
 * });
 * assert.deepEqual((await run.result).output, [{ type: "text", text: "Paris" }]);
 * await run.dispose();
 * await root.dispose();
 * ```
 */
export function createLangGraphProvider(options: LangGraphProviderOptions): SubagentProvider {
  const { name, fail, positiveInteger } = checkProviderOptions(
    "LangGraph",
    options,
    OPTIONS,
    "langgraph",
  );
  const { graph, input, output, recursionLimit } = options;
  if (isRecord(graph) && typeof graph.compile === "function" && !("stream" in graph)) {
    fail("options.graph is a StateGraph that is not compiled: pass graph.compile()");
  }
  if (
    !isRecord(graph) || typeof graph.stream !== "function" || typeof graph.invoke !== "function"
  ) {
    fail(`options.graph must be a compiled LangGraph graph, got ${describe(graph)}`);
  }
  for (const [key, value] of [["input", input], ["output", output]] as const) {
    if (value !== undefined && typeof value !== "function") {
      fail(`options.${key} must be a function, got ${describe(value)}`);
    }
  }
  positiveInteger("recursionLimit", recursionLimit);
  const setup: Setup = { graph: graph as unknown as Graph, input, output, recursionLimit };
  return createFrameworkProvider({
    name,
    framework: "LangGraph",
    capabilities: {
      outputSchema: false,
      depthLimit: true,
      toolFilter: false,
      persona: true,
      budget: true,
    },
    drive: (run) => isolated(() => drive(run, setup)),
  });
}

/**
 * Run `fn` outside any LangChain run: a run started from inside a graph (a
 * tool calling `ctx.subagents`) is a graph of its own, not a subgraph whose
 * interrupts would escape to the caller's graph.
 */
function isolated<T>(fn: () => Promise<T>): Promise<T> {
  return AsyncLocalStorageProviderSingleton.getInstance().run(undefined, fn);
}

interface Graph {
  stream(input: unknown, config: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  readonly checkpointer?: unknown;
}

interface Setup {
  readonly graph: Graph;
  readonly input: LangGraphProviderOptions["input"];
  readonly output: LangGraphProviderOptions["output"];
  readonly recursionLimit: number | undefined;
}

async function drive(run: FrameworkRunContext, setup: Setup): Promise<SubagentResultInput> {
  const { request } = run;
  const prompt = textOf(request.prompt);
  const persona = request.persona;
  let input: unknown = setup.input
    ? setup.input(prompt, persona !== undefined ? { persona } : {})
    : {
      messages: [
        ...(persona !== undefined ? [{ role: "system", content: persona }] : []),
        { role: "user", content: prompt },
      ],
    };
  const config = {
    configurable: { thread_id: run.id, [SEAM_PARENT]: run.child },
    signal: run.signal,
    streamMode: ["messages", "updates", "values"],
    ...(setup.recursionLimit !== undefined ? { recursionLimit: setup.recursionLimit } : {}),
  };
  const tally: Tally = { usage: new UsageTally(), lastAi: undefined };
  let state: unknown;
  try {
    for (;;) {
      const interrupts: { id?: string; value: unknown }[] = [];
      for await (const part of await setup.graph.stream(input, config)) {
        const [mode, chunk] = part as [string, unknown];
        if (mode === "values") state = chunk;
        else if (mode === "messages") streamed(run, (chunk as [Message])[0]);
        else if (mode === "updates" && isRecord(chunk)) {
          if (Array.isArray(chunk.__interrupt__)) interrupts.push(...chunk.__interrupt__);
          else updated(run, tally, chunk);
        }
      }
      if (interrupts.length === 0) break;
      const resumes: unknown[] = [];
      for (const { value } of interrupts) {
        const answers: SubagentInputAnswer[] = [];
        for (const ask of asksOf(value)) answers.push(await run.ask(ask));
        run.signal.throwIfAborted();
        const resume = resumeOf(value, answers);
        if (resume === undefined) {
          const refused = answers.find((a) => a.outcome === "refused");
          return {
            output: "",
            stopReason: "error",
            error: {
              code: "INPUT_REQUIRED",
              message: `The graph asked "${
                asksOf(value)[0].message.slice(0, 200)
              }" and got no answer${refused?.outcome === "refused" ? `: ${refused.reason}` : ""}`,
            },
          };
        }
        resumes.push(resume);
      }
      input = new Command({
        resume: interrupts.length === 1
          ? resumes[0]
          : Object.fromEntries(interrupts.map((i, n) => [i.id, resumes[n]])),
      });
    }
  } finally {
    await forget(setup.graph, run.id);
  }
  const usage = tally.usage.usage();
  const outputText = setup.output ? setup.output(state) : lastAiText(state);
  const stop = tally.lastAi?.response_metadata;
  const cut = stop?.finish_reason === "length" || stop?.stop_reason === "max_tokens";
  return { output: outputText, stopReason: cut ? "max-tokens" : "completed", usage };
}

function typeOf(message: unknown): string | undefined {
  if (!isRecord(message)) return undefined;
  const m = message as Message;
  return typeof m.type === "string" ? m.type : m._getType?.();
}

function isAi(message: unknown): boolean {
  return typeOf(message) === "ai";
}

function isTool(message: unknown): boolean {
  return typeOf(message) === "tool";
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c) => (isRecord(c) && typeof c.text === "string" ? c.text : "")).join("");
}

/** A message of the `messages` stream: tokens and whole messages of the graph's nodes. */
function streamed(run: FrameworkRunContext, message: Message): void {
  if (isAi(message)) run.text(contentText(message.content));
  else if (isTool(message)) {
    run.progress({
      kind: "tool-result",
      ...(message.name ? { name: message.name } : {}),
      ...(message.tool_call_id ? { callId: message.tool_call_id } : {}),
      text: contentText(message.content),
    });
  }
}

/** A node's update: its AI messages counted and charged, their tool calls reported. */
function updated(run: FrameworkRunContext, tally: Tally, update: Record<string, unknown>): void {
  for (const nodeUpdate of Object.values(update)) {
    const messages = isRecord(nodeUpdate) ? nodeUpdate.messages : undefined;
    for (const message of Array.isArray(messages) ? messages : [messages]) {
      if (!isAi(message)) continue;
      tally.lastAi = message as Message;
      const usage = (message as Message).usage_metadata;
      const charge = tally.usage.modelCall(
        usage && {
          inputTokens: usage.input_tokens ?? 0,
          outputTokens: usage.output_tokens ?? 0,
          cachedInputTokens: usage.input_token_details?.cache_read ?? 0,
        },
      );
      if (usage) run.charge(charge);
      for (const call of (message as Message).tool_calls ?? []) {
        tally.usage.toolCall();
        run.charge({ toolCalls: 1 });
        run.progress({
          kind: "tool-call",
          ...(call.name ? { name: call.name } : {}),
          ...(call.id ? { callId: call.id } : {}),
        });
      }
    }
  }
}

function lastAiText(state: unknown): string {
  const messages = isRecord(state) ? state.messages : undefined;
  if (!Array.isArray(messages)) return "";
  const last = messages.findLast(isAi) as Message | undefined;
  return last ? contentText(last.content) : "";
}

/** Drop the run's thread from the graph's checkpointer, when it can. */
async function forget(graph: Graph, threadId: string): Promise<void> {
  const saver = graph.checkpointer as { deleteThread?: (id: string) => Promise<void> } | undefined;
  if (!isRecord(saver) || typeof saver.deleteThread !== "function") return;
  try {
    await saver.deleteThread(threadId);
  } catch {
    // The thread's checkpoints stay; the run's outcome does not depend on them.
  }
}
