import type { Agent, AgentState, ResolvedAgentOptions } from "./agent.ts";
import { agentDisposed, agentTextDelta, agentTurnEnd, agentTurnStart } from "./agent.ts";
import { type ContentBlock, type ContentInput, describe, parseContent } from "./content.ts";
import type { Host } from "./host.ts";
import { deepFreeze, frozenJsonCopy } from "./json.ts";
import type {
  ModelFinishReason,
  ModelMessage,
  ModelRequest,
  ModelToolCall,
  ToolSpec,
} from "./model.ts";
import type { Scope } from "./scope.ts";
import type { SessionEvent, TurnEnd, TurnEndReason } from "./session.ts";
import { endModelSpan, startModelSpan } from "./_trace.ts";
import type { Span } from "@opentelemetry/api";
import { EMPTY, messagesOf, OWN_EVENTS, SessionImpl, toolMessage } from "./_session.ts";
import { cancelled } from "./_tool_registry.ts";
import { runToolCalls } from "./_agent_tools.ts";
import { messageOf } from "./unknown.ts";
import { cannot, invalid } from "./_invalid.ts";
import { freeze } from "./_builtins.ts";

const FINISH_REASONS = new Set<string>(["stop", "tool-calls", "max-tokens", "refusal"]);

/** Whether a reported token figure is a count (a non-negative safe integer). */
function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Fault the model adapter: what it yielded breaks its contract (`The model adapter ${problem}`). */
function adapterBroke(problem: string): never {
  throw new TypeError(`The model adapter ${problem}`);
}

export function abortError(message: string): DOMException {
  return new DOMException(message, "AbortError");
}

function toBlocks(content: ContentInput): readonly ContentBlock[] {
  if (typeof content === "string") {
    if (content === "") invalid("content: must not be empty");
    return freeze([freeze({ type: "text" as const, text: content })]);
  }
  const copy = frozenJsonCopy(content, "content");
  const blocks = parseContent(copy, "content");
  return typeof copy === "string" ? deepFreeze(blocks) : blocks;
}

function textBlocks(text: string): readonly ContentBlock[] {
  return text === "" ? EMPTY : freeze([freeze({ type: "text" as const, text })]);
}

interface StepEnd {
  readonly reason: TurnEndReason;
  readonly error?: string;
}

const COMPLETED: StepEnd = freeze({ reason: "completed" });
const ABORTED: StepEnd = freeze({ reason: "aborted" });

/** What an agent needs of the registry that made it (`AgentRegistryImpl`). */
interface AgentOwner {
  readonly host: Host;
  /** Called by the agent's teardown. */
  unpublish(agent: AgentImpl): void;
}

/** One agent. Built unpublished; the registry publishes it after setup. */
export class AgentImpl implements Agent {
  readonly id: string;
  readonly scope: Scope;
  readonly host: Host;
  readonly options: ResolvedAgentOptions;
  readonly session: SessionImpl;
  #registry: AgentOwner;
  #state: AgentState = "creating";
  #messages: ModelMessage[];
  #pending: (readonly ContentBlock[])[] | undefined;
  #next: (readonly ContentBlock[])[] | undefined;
  #turns: number;
  #controller: AbortController | undefined;
  #output: readonly ContentBlock[] = EMPTY;
  #usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number } | undefined;
  #counts = { modelCalls: 0, unreportedModelCalls: 0, toolCalls: 0 };
  #idle: { promise: Promise<TurnEnd>; resolve: (end: TurnEnd) => void } | undefined;
  #last: TurnEnd | undefined;
  #lastPromise: Promise<TurnEnd> | undefined;
  #loop: Promise<void> | undefined;
  #vars: Record<string, string | number> | undefined;

  constructor(
    registry: AgentOwner,
    id: string,
    scope: Scope,
    options: ResolvedAgentOptions,
    seed: SessionEvent[],
    turns: number,
  ) {
    this.#registry = registry;
    this.host = registry.host;
    this.id = id;
    this.scope = scope;
    this.options = options;
    this.session = new SessionImpl(seed);
    this.#messages = seed.length ? messagesOf(seed) : [];
    this.#turns = turns;
  }

  get state(): AgentState {
    return this.#state;
  }

  /** Called by the registry once setup succeeded. */
  publish(): void {
    // Before anything registered in the scope is undone: the turn ends (and
    // its listeners hear it) while the agent's tools and sections still exist.
    this.scope.beforeDispose(() => this.#teardown());
    this.#state = "idle";
  }

  send(content: ContentInput): void {
    if (this.#state === "creating") {
      cannot("send a message", `agent "${this.id}" is still being created`);
    }
    if (this.#state === "disposed" || !this.scope.active) {
      cannot("send a message", `agent "${this.id}" is disposed`);
    }
    const blocks = toBlocks(content);
    if (this.#state === "running") {
      // A cancelled turn takes no more steering: the message opens the next turn.
      if (this.#controller?.signal.aborted) (this.#next ??= []).push(blocks);
      else (this.#pending ??= []).push(blocks);
      return;
    }
    this.#start(blocks);
  }

  #start(blocks: readonly ContentBlock[]): void {
    const turn = ++this.#turns;
    this.#state = "running";
    this.#controller = new AbortController();
    this.#output = EMPTY;
    this.#usage = undefined;
    this.#counts = { modelCalls: 0, unreportedModelCalls: 0, toolCalls: 0 };
    this.#record({ seq: 0, type: "turn-start", turn });
    this.#record({ seq: 0, type: "user-message", content: blocks });
    if (this.scope.hasListeners(agentTurnStart)) {
      this.scope.emit(agentTurnStart, { agentId: this.id, turn });
    }
    this.#loop = this.#run(turn, this.#controller.signal);
  }

  whenIdle(): Promise<TurnEnd> {
    if (this.#state === "running") {
      if (!this.#idle) {
        let resolve!: (end: TurnEnd) => void;
        const promise = new Promise<TurnEnd>((r) => resolve = r);
        this.#idle = { promise, resolve };
      }
      return this.#idle.promise;
    }
    if (this.#last) return this.#lastPromise ??= Promise.resolve(this.#last);
    return Promise.reject(
      new TypeError(`Cannot wait for agent "${this.id}" to be idle: it has not run a turn`),
    );
  }

  cancel(reason?: string): void {
    const controller = this.#controller;
    if (controller && !controller.signal.aborted) {
      controller.abort(abortError(reason ?? `The turn of agent "${this.id}" was cancelled`));
    }
  }

  dispose(): Promise<void> {
    return this.scope.dispose();
  }

  async #teardown(): Promise<void> {
    const wasRunning = this.#state === "running";
    this.#state = "disposed";
    this.#registry.unpublish(this);
    this.#next = undefined;
    if (wasRunning) {
      this.#controller?.abort(abortError(`Agent "${this.id}" was disposed`));
      await this.#loop;
    }
    if (this.scope.hasListeners(agentDisposed)) {
      this.scope.emit(agentDisposed, { agentId: this.id });
    }
  }

  #record(event: SessionEvent): void {
    const list = this.session.list;
    (event as { seq: number }).seq = list.length;
    freeze(event);
    OWN_EVENTS.add(event);
    list.push(event);
    switch (event.type) {
      case "user-message":
        this.#messages.push(freeze({ role: "user", content: event.content }));
        break;
      case "tool-result":
        this.#messages.push(toolMessage(event));
        break;
      case "turn-end":
        this.session.closed = list.length;
        break;
    }
  }

  #recordAssistant(text: string, calls: readonly ModelToolCall[] | undefined): void {
    const content = textBlocks(text);
    this.#output = content;
    this.#record({ seq: 0, type: "assistant-message", content });
    this.#messages.push(
      freeze({ role: "assistant", content, toolCalls: calls ?? EMPTY }),
    );
    if (calls) {
      for (const call of calls) {
        this.#record({
          seq: 0,
          type: "tool-call",
          callId: call.id,
          name: call.name,
          args: call.args,
        });
      }
    }
  }

  #flushPending(): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    for (const content of pending) {
      this.#record({ seq: 0, type: "user-message", content });
    }
  }

  #finish(turn: number, end: StepEnd): void {
    this.#flushPending();
    this.#record(
      end.error === undefined
        ? { seq: 0, type: "turn-end", turn, reason: end.reason }
        : { seq: 0, type: "turn-end", turn, reason: end.reason, error: end.error },
    );
    const result: TurnEnd = freeze({
      reason: end.reason,
      output: this.#output,
      ...(end.error === undefined ? {} : { error: end.error }),
      ...(this.#usage ? { usage: freeze(this.#usage) } : {}),
      counts: freeze(this.#counts),
    });
    this.#controller = undefined;
    this.#last = result;
    this.#lastPromise = undefined;
    const next = this.#next;
    this.#next = undefined;
    if (this.#state === "running") {
      this.#state = "idle";
      if (next) {
        // Messages sent after a cancellation: the agent is not idle yet, the
        // next turn starts at once (`whenIdle` waits for it).
        if (this.scope.hasListeners(agentTurnEnd)) {
          this.scope.emit(agentTurnEnd, { agentId: this.id, turn, end: result });
        }
        if (this.#state === "idle" && this.scope.active) this.#start(next.shift()!);
        // (A turn-end listener may have started a turn, too.)
        if ((this.#state as AgentState) === "running") {
          // The rest (all of it, if a listener already started a turn) steers it.
          if (next.length > 0) (this.#pending ??= []).push(...next);
          return;
        }
        const idle = this.#idle;
        this.#idle = undefined;
        idle?.resolve(result);
        return;
      }
    }
    const idle = this.#idle;
    this.#idle = undefined;
    idle?.resolve(result);
    if (this.scope.hasListeners(agentTurnEnd)) {
      this.scope.emit(agentTurnEnd, { agentId: this.id, turn, end: result });
    }
  }

  #promptVars(): Record<string, string | number> {
    return this.#vars ??= freeze({
      agentId: this.id,
      model: this.options.model,
      subagentDepth: this.options.subagentDepth,
    }) as Record<string, string | number>;
  }

  async #run(turn: number, signal: AbortSignal): Promise<void> {
    let end: StepEnd | undefined;
    try {
      end = await this.#steps(turn, signal);
    } catch (error) {
      // The loop itself never throws on purpose; contain anything unforeseen.
      this.scope.logger.error(`The loop of agent "${this.id}" failed`, error);
      end = signal.aborted ? ABORTED : { reason: "error", error: messageOf(error) };
    }
    if (end) this.#finish(turn, end);
  }

  /**
   * Run model steps until the turn ends. Returns how it ended, or nothing
   * when it already finished the turn itself (a final answer is finished
   * synchronously, so a message sent meanwhile is never left unanswered).
   */
  async #steps(turn: number, signal: AbortSignal): Promise<StepEnd | undefined> {
    const host = this.host;
    const scope = this.scope;
    const model = this.options.model;
    for (;;) {
      this.#flushPending();
      if (signal.aborted) return ABORTED;
      let request: ModelRequest;
      let stream: AsyncIterable<unknown>;
      let span: Span | undefined;
      try {
        const adapter = host.models.resolve(scope, model);
        span = startModelSpan(scope, model, adapter.name);
        const tools = host.tools.visible(scope);
        const specs: ToolSpec[] = new Array(tools.length);
        for (let i = 0; i < tools.length; i++) specs[i] = tools[i].spec;
        request = {
          model,
          system: host.prompts.render(scope, this.#promptVars()),
          messages: this.#messages.slice(),
          tools: specs,
          signal,
          ...(this.options.maxTokens === undefined ? {} : { maxTokens: this.options.maxTokens }),
        };
        stream = adapter.stream(request);
        // Counted unreported until its finish says otherwise.
        this.#counts.modelCalls++;
        this.#counts.unreportedModelCalls++;
      } catch (error) {
        if (span) endModelSpan(span, undefined, undefined, messageOf(error));
        return signal.aborted ? ABORTED : { reason: "error", error: messageOf(error) };
      }
      let text = "";
      let calls: ModelToolCall[] | undefined;
      let reason: ModelFinishReason | undefined;
      let usage: unknown;
      try {
        for await (const event of stream as AsyncIterable<Record<string, unknown>>) {
          if (signal.aborted) break;
          const type = event?.type;
          if (type === "text-delta") {
            const delta = event.text;
            if (typeof delta !== "string") {
              adapterBroke(`yielded a text-delta whose text is ${describe(delta)}`);
            }
            if (delta === "") continue;
            text += delta;
            if (scope.hasListeners(agentTextDelta)) {
              scope.emit(agentTextDelta, { agentId: this.id, text: delta });
            }
          } else if (type === "tool-call") {
            (calls ??= []).push(readToolCall(event, calls.length));
          } else if (type === "finish") {
            const finish = event.reason;
            if (typeof finish !== "string" || !FINISH_REASONS.has(finish)) {
              adapterBroke(`finished with an unknown reason ${describe(finish)}`);
            }
            reason = finish as ModelFinishReason;
            usage = event.usage;
            if (this.#addUsage(usage)) this.#counts.unreportedModelCalls--;
            break;
          } else {
            adapterBroke(`yielded an unknown event ${describe(type)}`);
          }
        }
      } catch (error) {
        // A call cut short by cancellation did not fail: its span ends without an error, as a
        // cancelled run's does.
        if (span) endModelSpan(span, reason, usage, signal.aborted ? undefined : messageOf(error));
        return signal.aborted ? ABORTED : { reason: "error", error: messageOf(error) };
      }
      if (span) endModelSpan(span, reason, usage);
      if (signal.aborted) return ABORTED;
      if (reason === "max-tokens" || reason === "refusal") {
        // A truncated or refused step's tool calls are never run.
        this.#recordAssistant(text, undefined);
        return { reason };
      }
      if (!calls) {
        this.#recordAssistant(text, undefined);
        if (this.#pending) continue;
        this.#finish(turn, COMPLETED);
        return undefined;
      }
      freeze(calls);
      this.#recordAssistant(text, calls);
      this.#counts.toolCalls += calls.length;
      const outcomes = await runToolCalls(
        this,
        calls,
        signal,
        () => this.#turns === turn,
      );
      let stop = false;
      for (let i = 0; i < calls.length; i++) {
        const call = calls[i];
        const outcome = outcomes[i] ?? cancelled(call.id, call.name);
        if (outcome.stopTurn) stop = true;
        this.#record({
          seq: 0,
          type: "tool-result",
          callId: call.id,
          name: call.name,
          content: outcome.content,
          isError: outcome.isError,
          ...(outcome.code === undefined ? {} : { code: outcome.code }),
        });
      }
      if (signal.aborted) return ABORTED;
      if (stop) return COMPLETED;
    }
  }

  /** Add a step's reported usage to the turn's; whether it reported any. */
  #addUsage(usage: unknown): boolean {
    if (usage === null || typeof usage !== "object") return false;
    const { inputTokens, outputTokens, cachedInputTokens } = usage as Record<string, unknown>;
    const total = this.#usage ??= { inputTokens: 0, outputTokens: 0 };
    // A count, or nothing: a server's negative or huge figure (two of 1e308
    // add up to Infinity) made a subagent's usage malformed, its result a fault.
    if (isCount(inputTokens)) total.inputTokens += inputTokens;
    if (isCount(outputTokens)) total.outputTokens += outputTokens;
    if (isCount(cachedInputTokens)) {
      total.cachedInputTokens = (total.cachedInputTokens ?? 0) + cachedInputTokens;
    }
    return true;
  }
}

function readToolCall(event: Record<string, unknown>, index: number): ModelToolCall {
  const { id, name, args } = event;
  if (typeof id !== "string" || id === "") {
    adapterBroke(`yielded tool call #${index} with an invalid id ${describe(id)}`);
  }
  if (typeof name !== "string" || name === "") {
    adapterBroke(`yielded tool call "${id}" with an invalid name ${describe(name)}`);
  }
  return freeze({
    id,
    name,
    args: frozenJsonCopy(args === undefined ? {} : args, `tool call "${id}" args`),
  });
}
