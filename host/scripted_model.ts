/**
 * A deterministic model for tests and demos, scripted from code or from
 * directives in the prompt.
 *
 * The directive language is documented on {@linkcode createScriptedModel}
 * (the exported API, so JSR's pages show it).
 *
 * @module
 */
import type { ContentBlock } from "./content.ts";
import { textOf } from "./content.ts";
import type { JsonValue } from "./json.ts";
import type { ModelAdapter, ModelEvent, ModelMessage, ModelRequest } from "./model.ts";
import { delay } from "./delay.ts";
import { type DirectiveStep, parseDirectives, type ParsedPrompt } from "./_directives.ts";
import { cannot } from "./_invalid.ts";
import { freeze, isArray } from "./_builtins.ts";
import { refuseUnknownOptions } from "./unknown_options.ts";

/** A tool call in a code script. */
export interface ScriptedToolCall {
  /** The tool's name. */
  readonly name: string;
  /** The arguments. Default `{}`. */
  readonly args?: JsonValue;
  /** The call's id. Default `call_<step>_<index>`. */
  readonly id?: string;
}

/**
 * One step of a code script. Exactly one of `reply`, `calls`, `system`,
 * `hang`, `fail`, `maxTokens` or `refuse`; texts take the same
 * placeholders as directives.
 */
export interface ScriptedStep {
  /** Reply with this text. */
  readonly reply?: string;
  /** Call these tools in one step (with `reply` as the step's text, if given). */
  readonly calls?: readonly ScriptedToolCall[];
  /** Reply with the system prompt. */
  readonly system?: boolean;
  /** Wait until cancelled. */
  readonly hang?: boolean;
  /** Fail with this message. */
  readonly fail?: string;
  /** Stream this text, then finish `max-tokens`. */
  readonly maxTokens?: string;
  /** Stream this text, then finish `refusal`. */
  readonly refuse?: string;
  /** Wait this many milliseconds first (honouring the signal). */
  readonly delayMs?: number;
}

/** What a script function sees of a model call. */
export interface ScriptedContext {
  /** The request. */
  readonly request: ModelRequest;
  /** How many assistant steps the conversation already holds (0 for the first call). */
  readonly call: number;
  /** How many assistant steps follow the latest user message. */
  readonly step: number;
  /** The latest user message's text. */
  readonly prompt: string;
  /** The texts of the tool results since the last assistant step (steering messages aside). */
  readonly results: readonly string[];
}

/** Options of {@linkcode createScriptedModel}. */
export interface ScriptedModelOptions {
  /** The adapter's name. Default `"scripted"`. */
  readonly name?: string;
  /**
   * A code script: a list (the n-th model call of a conversation answers
   * with the n-th step) or a function. When the list is used up or the
   * function returns `undefined`, the prompt's directives (or the echo) answer.
   */
  readonly script?:
    | readonly ScriptedStep[]
    | ((context: ScriptedContext) => ScriptedStep | undefined);
  /** Wait this many milliseconds before every step (honouring the signal). Default 0. */
  readonly delayMs?: number;
}

const SCRIPTED_OPTIONS = ["name", "script", "delayMs"] satisfies (keyof ScriptedModelOptions)[];

const WORDS = /\s*\S+\s*/g;

/**
 * Create the scripted model: deterministic, no network, for tests, demos and
 * a first run. It keeps no state between calls: every answer derives from the
 * request, so one adapter serves any number of agents. Script it from code
 * (`options.script`) or with directives in the prompt:
 *
 * ## The directive language
 *
 * The scripted model reads the latest user message of the conversation. A
 * line whose first non-blank character is `@` followed by a directive name
 * is a directive; every other line is plain text. Each directive (except
 * `@delay`) is one model step: the first answers the first model call after
 * that user message, the second answers the call after the tool results of
 * the first, and so on. A new user message (a new turn, or a steering
 * message) starts over with its own directives.
 *
 * | directive | the step |
 * |---|---|
 * | `@reply TEXT` | replies TEXT, streamed as one delta per word; ends `stop` |
 * | `@call NAME {JSON}` | calls tool NAME with the JSON object as arguments (`{}` when omitted) |
 * | `@calls [{"name": N, "args": {…}}, …]` | calls several tools in one step (run in parallel) |
 * | `@system` | replies with the system prompt |
 * | `@echo` | replies with the prompt's plain text (its non-directive lines) |
 * | `@hang` | never answers: waits until the request's signal aborts |
 * | `@fail TEXT` | the model fails (throws an `Error` with message TEXT) |
 * | `@max-tokens TEXT` | streams TEXT, then finishes `max-tokens` |
 * | `@refuse TEXT` | streams TEXT, then finishes `refusal` |
 * | `@delay MS` | not a step: every following step waits MS milliseconds first |
 *
 * TEXT is the rest of the line, or a JSON string (`@reply "two\nlines"`).
 * JSON arguments may span several lines. Nesting is safe: a directive's JSON
 * carries a child's prompt as a JSON string (`@call subagent {"prompt":
 * "@reply hi"}`), so the child's directives never look like the parent's.
 * In TEXT, `{{results}}` becomes the texts of the tool results since the
 * last assistant step (joined with a newline, in call order; a steering
 * message in between does not hide them), `{{system}}` the system prompt and
 * `{{prompt}}` the prompt's plain text; JSON arguments are passed verbatim.
 * Once the directives are used up, the model replies with `{{results}}` after
 * tool results, otherwise with the echo. A prompt without any directive is
 * echoed verbatim. An unknown `@name` line in a prompt that has directives,
 * or malformed JSON, makes the first step fail naming the problem.
 *
 * Replies honour `maxTokens` (one word is one token): a longer reply is cut
 * and finishes `max-tokens`. Usage counts words.
 *
 * @example Directives in the prompt
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * host.tools.register(host.scope, {
 *   name: "shout",
 *   description: "Upper-case a text",
 *   parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   execute: ({ text }: { text: string }) => ({ content: text.toUpperCase() }),
 * });
 * const agent = await host.agents.create({ options: { model: "scripted" } });
 * agent.send([
 *   '@calls [{"name": "shout", "args": {"text": "a"}}, {"name": "shout", "args": {"text": "b"}}]',
 *   "@reply got {{results}}",
 * ].join("\n"));
 * const end = await agent.whenIdle();
 * assert.equal(end.output[0].type === "text" && end.output[0].text, "got A\nB");
 * await host.scope.dispose();
 * ```
 *
 * @example A code script
 * ```ts
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "m", createScriptedModel({ script: [{ refuse: "No." }] }));
 * const agent = await host.agents.create({ options: { model: "m" } });
 * agent.send("do something bad");
 * assert.equal((await agent.whenIdle()).reason, "refusal");
 * await host.scope.dispose();
 * ```
 */
export function createScriptedModel(options: ScriptedModelOptions = {}): ModelAdapter {
  refuseUnknownOptions("create the scripted model", options, SCRIPTED_OPTIONS);
  const name = options.name ?? "scripted";
  const script = options.script;
  const baseDelay = options.delayMs ?? 0;
  if (typeof name !== "string") {
    cannot("create the scripted model", "name must be a string");
  }
  if (script !== undefined && typeof script !== "function" && !isArray(script)) {
    cannot("create the scripted model", "script must be a list of steps or a function");
  }
  if (!Number.isSafeInteger(baseDelay) || baseDelay < 0) {
    cannot("create the scripted model", "delayMs must be a non-negative integer", true);
  }
  return freeze({
    name,
    stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      return run(request, script, baseDelay);
    },
  });
}

interface Read {
  call: number;
  step: number;
  prompt: readonly ContentBlock[] | undefined;
  results: string[];
}

function read(messages: readonly ModelMessage[]): Read {
  let step = 0;
  let call = 0;
  let prompt: readonly ContentBlock[] | undefined;
  const results: string[] = [];
  let trailing = true;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role === "tool") {
      if (trailing) results.push(textOf(message.content));
    } else if (message.role === "assistant") {
      trailing = false;
      call++;
      if (!prompt) step++;
    } else if (!prompt) prompt = message.content;
  }
  results.reverse();
  return { call, step, prompt, results };
}

const PARSED = new Map<string, ParsedPrompt>();
const PARSED_MAX = 256;

/** Parse `text`, through a small cache shared by every scripted model (parsing is pure). */
function parsedOf(text: string): ParsedPrompt {
  let parsed = PARSED.get(text);
  if (!parsed) {
    parsed = parseDirectives(text);
    if (PARSED.size >= PARSED_MAX) PARSED.delete(PARSED.keys().next().value!);
    PARSED.set(text, parsed);
  }
  return parsed;
}

function fill(text: string, request: ModelRequest, prompt: string, results: readonly string[]) {
  if (!text.includes("{{")) return text;
  return text.replace(
    /\{\{\s*(results|system|prompt)\s*\}\}/g,
    (_, key: string) =>
      key === "results"
        ? results.join("\n")
        : key === "system"
        ? request.system
        : parsedOf(prompt).text,
  );
}

/** The step answering `request`. */
function plan(
  request: ModelRequest,
  script: ScriptedModelOptions["script"],
  info: Read,
  prompt: string,
): DirectiveStep {
  if (script !== undefined) {
    const code = typeof script === "function"
      ? script({ request, call: info.call, step: info.step, prompt, results: info.results })
      : script[info.call];
    if (code !== undefined) return fromCode(code, info.call);
  }
  const parsed = parsedOf(prompt);
  if (parsed.error !== undefined && info.step === 0) {
    return { kind: "fail", text: parsed.error, delayMs: 0 };
  }
  return (parsed.error === undefined ? parsed.steps[info.step] : undefined) ??
    (info.results.length > 0
      ? { kind: "reply", text: "{{results}}", delayMs: 0 }
      : { kind: "echo", delayMs: 0 });
}

/** Split `text` into word deltas, at most `cap`; whether it had to cut. */
function pushWords(
  events: ModelEvent[],
  text: string,
  cap: number | undefined,
): { count: number; cut: boolean } {
  const chunks = text.match(WORDS);
  if (!chunks) {
    if (text !== "") events.push({ type: "text-delta", text });
    return { count: 0, cut: false };
  }
  const take = cap === undefined ? chunks.length : Math.min(cap, chunks.length);
  for (let i = 0; i < take; i++) events.push({ type: "text-delta", text: chunks[i] });
  return { count: take, cut: take < chunks.length };
}

const DONE: IteratorResult<ModelEvent> = freeze({ done: true, value: undefined });

/**
 * One step's stream. A hand-written iterator (not an async generator): the
 * events are planned up front, and a hanging step holds one pending promise.
 */
class ScriptedStream implements AsyncIterableIterator<ModelEvent> {
  #signal: AbortSignal;
  #events: ModelEvent[];
  #index = 0;
  #delay: number;
  #hang: boolean;
  #error: Error | undefined;

  constructor(
    signal: AbortSignal,
    events: ModelEvent[],
    delay: number,
    hang: boolean,
    error: Error | undefined,
  ) {
    this.#signal = signal;
    this.#events = events;
    this.#delay = delay;
    this.#hang = hang;
    this.#error = error;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ModelEvent> {
    return this;
  }

  next(): Promise<IteratorResult<ModelEvent>> {
    const signal = this.#signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#delay > 0) {
      const ms = this.#delay;
      this.#delay = 0;
      return delay(ms, signal).then(() => this.next());
    }
    if (this.#hang) {
      return new Promise((_, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    const error = this.#error;
    if (error) {
      this.#error = undefined;
      this.#index = this.#events.length;
      return Promise.reject(error);
    }
    if (this.#index < this.#events.length) {
      return Promise.resolve({ done: false, value: this.#events[this.#index++] });
    }
    return Promise.resolve(DONE);
  }

  return(): Promise<IteratorResult<ModelEvent>> {
    this.#index = this.#events.length;
    this.#hang = false;
    this.#error = undefined;
    return Promise.resolve(DONE);
  }
}

function run(
  request: ModelRequest,
  script: ScriptedModelOptions["script"],
  baseDelay: number,
): AsyncIterableIterator<ModelEvent> {
  const info = read(request.messages);
  const prompt = info.prompt ? textOf(info.prompt) : "";
  const step = plan(request, script, info, prompt);
  const waitMs = baseDelay + step.delayMs;
  const events: ModelEvent[] = [];
  switch (step.kind) {
    case "hang":
      return new ScriptedStream(request.signal, events, waitMs, true, undefined);
    case "fail":
      return new ScriptedStream(
        request.signal,
        events,
        waitMs,
        false,
        new Error(fill(step.text, request, prompt, info.results)),
      );
    case "calls": {
      if (step.text) pushWords(events, fill(step.text, request, prompt, info.results), undefined);
      let index = 0;
      for (const call of step.calls) {
        events.push({
          type: "tool-call",
          id: call.id ?? `call_${info.call}_${index}`,
          name: call.name,
          args: call.args as JsonValue,
        });
        index++;
      }
      events.push({
        type: "finish",
        reason: "tool-calls",
        usage: { inputTokens: countWords(prompt), outputTokens: step.calls.length },
      });
      break;
    }
    default: {
      let text: string;
      if (step.kind === "system") text = request.system;
      else if (step.kind === "echo") {
        const parsed = parsedOf(prompt);
        text = parsed.steps.length > 0 ? parsed.text : prompt;
      } else text = fill(step.text, request, prompt, info.results);
      const cap = step.kind === "max-tokens" ? undefined : request.maxTokens;
      const produced = pushWords(events, text, cap);
      const reason = step.kind === "max-tokens" || produced.cut
        ? "max-tokens"
        : step.kind === "refuse"
        ? "refusal"
        : "stop";
      events.push({
        type: "finish",
        reason,
        usage: { inputTokens: countWords(prompt), outputTokens: produced.count },
      });
    }
  }
  return new ScriptedStream(request.signal, events, waitMs, false, undefined);
}

function countWords(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = text.charCodeAt(i) <= 32;
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

function fromCode(code: ScriptedStep, call: number): DirectiveStep {
  if (code === null || typeof code !== "object") {
    return {
      kind: "fail",
      text: `Scripted model: step ${call} is not a step object`,
      delayMs: 0,
    };
  }
  const delayMs = code.delayMs ?? 0;
  if (code.calls !== undefined) {
    return {
      kind: "calls",
      calls: code.calls.map((c) =>
        c.id === undefined ? { name: c.name, args: c.args ?? {} } : {
          name: c.name,
          args: c.args ?? {},
          id: c.id,
        }
      ),
      delayMs,
      ...(code.reply === undefined ? {} : { text: code.reply }),
    };
  }
  if (code.reply !== undefined) return { kind: "reply", text: code.reply, delayMs };
  if (code.system) return { kind: "system", delayMs };
  if (code.hang) return { kind: "hang", delayMs };
  if (code.fail !== undefined) return { kind: "fail", text: code.fail, delayMs };
  if (code.maxTokens !== undefined) return { kind: "max-tokens", text: code.maxTokens, delayMs };
  if (code.refuse !== undefined) return { kind: "refuse", text: code.refuse, delayMs };
  return {
    kind: "fail",
    text:
      `Scripted model: step ${call} has none of reply, calls, system, hang, fail, maxTokens, refuse`,
    delayMs: 0,
  };
}
