/**
 * Input requests: a live run asks for a decision (permission for a tool
 * call, an answer to a question, authentication) and the question travels
 * up the tree to whoever can answer it.
 *
 * - A provider keeps one {@linkcode SubagentInputs} per run and calls
 *   `ask()`: the request is announced as `subagent/input-required` in the
 *   delegating parent's scope, then offered to the handlers installed with
 *   {@linkcode handleSubagentInput} on that scope and its ancestors, nearest
 *   first; a handler that answers `undefined` passes it on.
 * - The caller that started the run may answer it too, through
 *   `run.respond(requestId, answer)` (present when the provider can take
 *   answers): the first valid answer wins.
 * - With no handler anywhere the request is refused at once with a note:
 *   nothing is ever silently allowed. Cancelling or disposing the run
 *   refuses what is pending ("cancelled"). A stale, duplicate or malformed
 *   answer throws, and the request keeps waiting for a valid one.
 * - At most {@linkcode MAX_PENDING_INPUTS} (64) requests of one run wait
 *   at once: one more is refused at once (`refused`, its reason naming the
 *   bound) without being announced, the ones waiting stay answerable, and
 *   the parent scope's logger warns once per run.
 * - Waiting is not working: providers pause their own deadlines while
 *   `inputs.waiting` is true.
 * - A provider whose child is a delegation tree elsewhere (the A2A provider
 *   in front of a seam gateway) relays the requests raised over there with
 *   `ask(request, {below})`: the run ids below its own run, so `path` runs
 *   from this tree's root to the run that really asks.
 *
 * @module
 */
import {
  type ContentBlock,
  deepFreeze,
  defineEvent,
  defineService,
  type EventKey,
  jsonCopy,
  type JsonValue,
  type Scope,
  type ServiceKey,
} from "@seam/host";
import { cannot } from "./_invalid.ts";
import { isArray, stringify } from "./_builtins.ts";

/** What a run asks for. */
export type SubagentInputKind = "permission" | "question" | "authentication";

/** How an option of a permission request decides. */
export type SubagentPermissionOptionKind =
  | "allow_once"
  | "allow_always"
  | "reject_once"
  | "reject_always";

/** One choice a permission request offers. */
export interface SubagentPermissionOption {
  /** Its id, what an answer names. */
  readonly id: string;
  /** What a person reads. */
  readonly label: string;
  /** What choosing it means. */
  readonly kind: SubagentPermissionOptionKind;
}

/** The tool call a permission request is about. */
export interface SubagentToolCallInfo {
  /** The tool's name (or the agent's id for the call). */
  readonly name: string;
  /** A human-readable title (`Run "rm -rf build"`). */
  readonly title?: string;
  /** What kind of action it is (`execute`, `edit`, `fetch`, …). */
  readonly kind?: string;
  /** The call's raw input (the command, the path, the arguments). */
  readonly rawInput?: JsonValue;
  /** What the call would show or change, as content. */
  readonly content?: readonly ContentBlock[];
}

/** A request a live run raised (frozen). */
export interface SubagentInputRequest {
  /** Unique among the run's requests; what an answer names. */
  readonly id: string;
  /** The run that asks. */
  readonly runId: string;
  /** The run ids from the root of the delegation tree down to `runId` (inclusive). */
  readonly path: readonly string[];
  /** What it asks for. */
  readonly kind: SubagentInputKind;
  /** What is asked, in words (a question, or why permission is needed). */
  readonly message: string;
  /** The tool call, for a permission request. */
  readonly toolCall?: SubagentToolCallInfo;
  /** The choices, for a permission request (at least one). */
  readonly options?: readonly SubagentPermissionOption[];
  /** What authentication is asked for, for an authentication request. */
  readonly authentication?: {
    /** The methods the child offers (`{id, name, description?}`). */
    readonly methods?: readonly {
      readonly id: string;
      readonly name: string;
      readonly description?: string;
    }[];
    /** Where a person authenticates, when there is such a page. */
    readonly url?: string;
  };
}

/**
 * What an answer may carry besides words: a JSON object, at most
 * {@linkcode MAX_ANSWER_DATA_CHARS} characters of JSON and
 * {@linkcode MAX_ANSWER_DATA_DEPTH} levels deep (a function call's result,
 * a form's fields).
 */
export type SubagentAnswerData = { readonly [key: string]: JsonValue };

/**
 * An answer as a run hears it: an option chosen (permission requests), text
 * and maybe data (questions and authentication), or a refusal with its
 * reason (any request). An answered request always has `text`: given, or
 * the data in words (JSON) when only data was given, so a child that takes
 * only words (an ACP agent, a text-only framework) still reads the answer.
 */
export type SubagentInputAnswer =
  | { readonly outcome: "selected"; readonly optionId: string }
  | { readonly outcome: "answered"; readonly text: string; readonly data?: SubagentAnswerData }
  | { readonly outcome: "refused"; readonly reason: string };

/**
 * An answer as it is given (`run.respond`, a handler): a
 * {@linkcode SubagentInputAnswer}, or an answer with data and no text.
 */
export type SubagentInputAnswerInput =
  | SubagentInputAnswer
  | { readonly outcome: "answered"; readonly text?: string; readonly data: SubagentAnswerData };

/** What a handler learns besides the request. */
export interface SubagentInputHandlerContext {
  /** Aborts once the request was answered otherwise, refused or cancelled. */
  readonly signal: AbortSignal;
}

/**
 * Answers input requests raised below its scope: an answer (or its
 * promise), or `undefined` to pass the request to the next handler up.
 */
export type SubagentInputHandler = (
  request: SubagentInputRequest,
  context: SubagentInputHandlerContext,
) =>
  | SubagentInputAnswerInput
  | undefined
  | Promise<SubagentInputAnswerInput | undefined>;

/** What the delegating parent's scope hears when a request is answered. */
export interface SubagentInputResolvedInfo {
  /** The request. */
  readonly request: SubagentInputRequest;
  /** How it was answered. */
  readonly answer: SubagentInputAnswer;
}

/** `subagent/input-required`: a live run asks (in the delegating parent's scope). */
export const subagentInputRequired: EventKey<SubagentInputRequest> = defineEvent(
  "subagent/input-required",
);

/** `subagent/input-resolved`: a request was answered, refused or cancelled (same scope). */
export const subagentInputResolved: EventKey<SubagentInputResolvedInfo> = defineEvent(
  "subagent/input-resolved",
);

interface HandlerEntry {
  readonly handler: SubagentInputHandler;
  readonly scope: Scope;
}

const handlerKey: ServiceKey<HandlerEntry> = defineService<HandlerEntry>(
  "@seam/subagent/input-handler",
);

/**
 * The run ids from the root down to the run whose scope this is, for the
 * `path` of its children's requests. Providers provide it in a child's scope
 * (`subagentRunPathKey`); a gateway provides the remote caller's path.
 */
export const subagentRunPathKey: ServiceKey<readonly string[]> = defineService<readonly string[]>(
  "@seam/subagent/run-path",
);

/**
 * Answer the input requests raised by runs below `scope` (a host installs
 * one on its root scope; a tool, a gateway task or a UI on theirs). One
 * handler per scope; it lives as long as the scope. Returns how to remove it.
 *
 * @example A root handler that allows one tool and refuses the rest
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import { handleSubagentInput, SubagentInputs } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * handleSubagentInput(root, (request) =>
 *   request.toolCall?.name === "read_file"
 *     ? { outcome: "selected", optionId: "allow" }
 *     : { outcome: "refused", reason: "only read_file is allowed" });
 *
 * // What a provider does for its run:
 * const inputs = new SubagentInputs(root, "run-1");
 * const answer = await inputs.ask({
 *   kind: "permission",
 *   message: "The child wants to read a file",
 *   toolCall: { name: "read_file", rawInput: { path: "notes.md" } },
 *   options: [
 *     { id: "allow", label: "Allow", kind: "allow_once" },
 *     { id: "reject", label: "Reject", kind: "reject_once" },
 *   ],
 * });
 * assert.deepEqual(answer, { outcome: "selected", optionId: "allow" });
 * await root.dispose();
 * ```
 */
export function handleSubagentInput(
  scope: Scope,
  handler: SubagentInputHandler,
): () => Promise<void> {
  if (typeof handler !== "function") {
    cannot("handle input requests", "handler must be a function");
  }
  return scope.provide(handlerKey, { handler, scope });
}

/** The run path of `scope` (empty above every run). */
export function subagentRunPath(scope: Scope): readonly string[] {
  return scope.inject(subagentRunPathKey) ?? [];
}

/** A request waiting for its answer. */
interface Pending {
  readonly request: SubagentInputRequest;
  readonly controller: AbortController;
  readonly settle: (answer: SubagentInputAnswer) => void;
}

/** What a provider gives `ask()`: the request without the fields the run fills in. */
export type SubagentInputAsk = Omit<SubagentInputRequest, "id" | "runId" | "path">;

/**
 * Where a request relayed from below comes from: a provider whose child is
 * itself a delegation tree elsewhere (an A2A agent that is a seam gateway)
 * relays its requests with the run ids below its own run, so the request's
 * `path` runs from this tree's root to the run that really asks (its `runId`).
 */
export interface SubagentInputRelay {
  /** The run ids below this run, down to the run that asks (1 to 64 non-empty strings). */
  readonly below: readonly string[];
}

/**
 * The most input requests of one run that wait for their answers at once
 * (see {@linkcode SubagentInputs.ask}): a child may ask without end (an ACP
 * agent flooding permission requests, a model calling tools in parallel), and
 * every waiting request holds memory here and in each scope that hears it.
 */
export const MAX_PENDING_INPUTS = 64;

/** The kinds of a permission option, written once (the edge entry counts every byte). */
const OPTION_KINDS: readonly SubagentPermissionOptionKind[] = [
  "allow_once",
  "allow_always",
  "reject_once",
  "reject_always",
];

/** The most run ids a relayed request's `below` may hold, and the longest id. */
const MAX_BELOW = 64;
const MAX_RUN_ID = 256;

/**
 * A run's input requests, for the provider that runs it (see the module
 * doc). Expose `respond` on the run handle to let the caller answer too.
 */
export class SubagentInputs {
  readonly #pending = new Map<string, Pending>();
  readonly #parentScope: Scope;
  readonly #runId: string;
  #asked = 0;
  #warned = false;

  /** The requests of run `runId`, announced in `parentScope` (the delegating parent's). */
  constructor(parentScope: Scope, runId: string) {
    this.#parentScope = parentScope;
    this.#runId = runId;
  }

  /** Whether a request waits for its answer (pause deadlines meanwhile). */
  get waiting(): boolean {
    return this.#pending.size > 0;
  }

  /** The requests waiting, oldest first. */
  get pending(): readonly SubagentInputRequest[] {
    return [...this.#pending.values()].map((p) => p.request);
  }

  /**
   * Ask: announce the request, offer it to the handlers up the tree, and
   * answer how it was decided. Never rejects: a request nobody handles is
   * refused with a note, and one asked while {@linkcode MAX_PENDING_INPUTS}
   * requests of this run wait is refused at once, unannounced (its reason
   * names the bound; the parent scope's logger warns once per run).
   *
   * `relay` says where a request relayed from below comes from (see
   * {@linkcode SubagentInputRelay}); the request's id stays this run's.
   *
   * @throws {TypeError} for a malformed request (before anything is announced).
   */
  ask(ask: SubagentInputAsk, relay?: SubagentInputRelay): Promise<SubagentInputAnswer> {
    const request = this.#checked(ask, relay);
    if (this.#pending.size >= MAX_PENDING_INPUTS) return Promise.resolve(this.#refuseFull());
    const controller = new AbortController();
    let settle!: (answer: SubagentInputAnswer) => void;
    const answered = new Promise<SubagentInputAnswer>((resolve) => {
      settle = (answer) => {
        if (!this.#pending.delete(request.id)) return;
        controller.abort();
        const frozen = deepFreeze(answer);
        this.#parentScope.emit(subagentInputResolved, deepFreeze({ request, answer: frozen }));
        resolve(frozen);
      };
    });
    this.#pending.set(request.id, { request, controller, settle });
    this.#parentScope.emit(subagentInputRequired, request);
    void this.#offer(request, controller.signal, settle);
    return answered;
  }

  /**
   * Answer a pending request (what `run.respond` does).
   *
   * @throws {RangeError} when no such request waits (answered, cancelled or never asked), or the option was not offered.
   * @throws {TypeError} for a malformed answer; the request keeps waiting.
   */
  respond(requestId: string, answer: SubagentInputAnswerInput): void {
    const pending = this.#pending.get(requestId);
    if (!pending) {
      cannot(
        `answer input request "${String(requestId).slice(0, 100)}"`,
        "no such request waits (it was answered, cancelled, or never asked)",
        true,
      );
    }
    pending.settle(checkAnswer(pending.request, answer));
  }

  /** Refuse every pending request with `reason` (the run was cancelled or disposed). */
  cancelAll(reason: string): void {
    for (const pending of [...this.#pending.values()]) {
      pending.settle({ outcome: "refused", reason: `cancelled: ${reason}` });
    }
  }

  /** The refusal of a request beyond {@linkcode MAX_PENDING_INPUTS}; warns the first time. */
  #refuseFull(): SubagentInputAnswer {
    const reason =
      `too many input requests: run "${this.#runId}" has ${MAX_PENDING_INPUTS} waiting (MAX_PENDING_INPUTS)`;
    if (!this.#warned) {
      this.#warned = true;
      this.#parentScope.logger.warn(
        `Run "${this.#runId}" has ${MAX_PENDING_INPUTS} input requests waiting: refusing more (once per run)`,
      );
    }
    return deepFreeze({ outcome: "refused", reason });
  }

  async #offer(
    request: SubagentInputRequest,
    signal: AbortSignal,
    settle: (answer: SubagentInputAnswer) => void,
  ): Promise<void> {
    let entry = this.#parentScope.inject(handlerKey);
    while (entry && !signal.aborted) {
      try {
        const answer = await entry.handler(request, { signal });
        if (signal.aborted) return;
        if (answer !== undefined) return settle(checkAnswer(request, answer));
      } catch (error) {
        // A throw and a wrong answer alike: logged, and the request goes up.
        entry.scope.logger.error(
          `An input handler threw on request "${request.id}" or answered it wrongly; it goes up`,
          error,
        );
      }
      entry = entry.scope.parent?.inject(handlerKey);
    }
    if (signal.aborted) return;
    settle({
      outcome: "refused",
      reason: `no one handles input requests here: nothing answered "${
        request.message.slice(0, 200)
      }" (install a handler with handleSubagentInput, or answer with run.respond)`,
    });
  }

  #checked(ask: SubagentInputAsk, relay: SubagentInputRelay | undefined): SubagentInputRequest {
    if (ask === null || typeof ask !== "object") {
      cannotAsk("the request must be an object");
    }
    const below = relay === undefined ? [] : relay.below;
    if (
      relay !== undefined &&
      (!isArray(below) || below.length === 0 || below.length > MAX_BELOW ||
        below.some((id) => typeof id !== "string" || id === "" || id.length > MAX_RUN_ID))
    ) {
      cannotAsk(
        `relay.below must be 1 to ${MAX_BELOW} run ids (non-empty strings of at most ${MAX_RUN_ID} characters)`,
      );
    }
    const { kind, message } = ask;
    if (kind !== "permission" && kind !== "question" && kind !== "authentication") {
      cannotAsk(
        `kind must be "permission", "question" or "authentication", got ${stringify(kind)}`,
      );
    }
    if (typeof message !== "string" || message === "") {
      cannotAsk("message must be a non-empty string");
    }
    if (kind === "permission") {
      const options = ask.options;
      if (!isArray(options) || options.length === 0) {
        cannotAsk("a permission request must offer options");
      }
      const ids = new Set<string>();
      for (const [i, option] of options.entries()) {
        if (
          !option || typeof option.id !== "string" || option.id === "" || ids.has(option.id) ||
          typeof option.label !== "string" ||
          !OPTION_KINDS.includes(option.kind)
        ) {
          cannotAsk(`options[${i}] must be {id (unique), label, kind: ${OPTION_KINDS.join("|")}}`);
        }
        ids.add(option.id);
      }
      if (!ask.toolCall || typeof ask.toolCall.name !== "string") {
        cannotAsk("a permission request needs toolCall.name");
      }
    }
    const { id: _id, runId: _runId, path: _path, ...copy } = jsonCopy(ask, "request") as Record<
      string,
      unknown
    >;
    const id = `${this.#runId}/input-${++this.#asked}`;
    return deepFreeze({
      ...copy,
      id,
      runId: below.at(-1) ?? this.#runId,
      path: [...subagentRunPath(this.#parentScope), this.#runId, ...below],
    }) as unknown as SubagentInputRequest;
  }
}

/** Refuse a request for input: `Cannot ask for input: ${problem}`, as a TypeError. */
function cannotAsk(problem: string): never {
  cannot("ask for input", problem);
}

/** The most characters of JSON an answer's `data` may hold (64 KiB). */
export const MAX_ANSWER_DATA_CHARS = 65_536;

/** The most levels an answer's `data` may nest (the object itself is level 1). */
export const MAX_ANSWER_DATA_DEPTH = 32;

/** Whether `value` nests deeper than `left` more levels (stops there: no cycle or depth runs away). */
const deeper = (value: unknown, left: number): boolean =>
  value !== null && typeof value === "object" &&
  (left < 1 || Object.values(value).some((v) => deeper(v, left - 1)));

/**
 * `answer` checked against what `request` offers: a question or an
 * authentication request takes text, data (a JSON object, bounded) or both;
 * data alone gets its words (JSON) as `text`.
 *
 * @throws {TypeError | RangeError} naming what is wrong.
 */
export function checkAnswer(
  request: SubagentInputRequest,
  answer: SubagentInputAnswerInput,
): SubagentInputAnswer {
  const action = `answer input request "${request.id}"`;
  if (answer === null || typeof answer !== "object") {
    cannot(action, "the answer must be an object");
  }
  const outcome = (answer as { outcome?: unknown }).outcome;
  if (outcome === "refused") {
    const reason = (answer as { reason?: unknown }).reason;
    if (typeof reason !== "string" || reason === "") {
      cannot(action, "a refusal needs a reason (a non-empty string)");
    }
    return { outcome, reason };
  }
  // One wording for both kinds of request: this ships in the edge entry.
  const permission = request.kind === "permission";
  const expected = permission ? "selected" : "answered";
  if (outcome !== expected) {
    cannot(
      action,
      `a ${request.kind} request is answered {outcome: "${expected}", ${
        permission ? "optionId" : "text and/or data"
      }} or {outcome: "refused", reason}, got outcome ${stringify(outcome)}`,
    );
  }
  if (permission) {
    const optionId = (answer as { optionId?: unknown }).optionId;
    const offered = request.options!.map((o) => o.id);
    if (typeof optionId !== "string" || !offered.includes(optionId)) {
      cannot(
        action,
        `option ${stringify(optionId)} was not offered (offered: ${offered.join(", ")})`,
        true,
      );
    }
    return { outcome, optionId } as SubagentInputAnswer;
  }
  let { text, data } = answer as { text?: unknown; data?: unknown };
  if (data !== undefined) {
    // One refusal for every way data is wrong: this ships in the edge entry.
    let words = "";
    if (
      data === null || typeof data !== "object" || isArray(data) ||
      deeper(data, MAX_ANSWER_DATA_DEPTH) ||
      (words = stringify(data = jsonCopy(data, "answer.data"))).length > MAX_ANSWER_DATA_CHARS
    ) {
      cannot(
        action,
        `answer.data must be a JSON object of at most ${MAX_ANSWER_DATA_DEPTH} levels and ${MAX_ANSWER_DATA_CHARS} characters`,
      );
    }
    text ??= words;
  }
  if (typeof text !== "string") {
    cannot(action, "the answer needs text or data");
  }
  return { outcome, text, ...((data as object | undefined) && { data }) } as SubagentInputAnswer;
}
