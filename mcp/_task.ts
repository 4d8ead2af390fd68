/**
 * One task of the 2026-07-28 Tasks extension: a tool call running in the
 * background, its state as `tasks/get` shows it, its input requests waiting
 * for `tasks/update`, `tasks/cancel` ending it (its run and the run's whole
 * subtree: the call's scope is disposed).
 */
import type { SubagentInputAnswer, SubagentInputRequest } from "@seam/subagent";
import type { ToolCallResult } from "./_call.ts";
import { answerOf, elicitFormOf } from "./_elicit.ts";

/**
 * The most of the child's streamed text a task's `statusMessage` shows: its
 * latest characters (a status line, not a transcript).
 */
export const STATUS_MESSAGE_CHARS = 1_000;

/** A task's status on the wire. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

interface Pending {
  readonly request: SubagentInputRequest;
  readonly settle: (answer: SubagentInputAnswer) => void;
}

/** A task. */
export class McpTask {
  readonly id: string = crypto.randomUUID();
  readonly principal: string;
  readonly createdAt: string = new Date().toISOString();
  readonly #controller = new AbortController();
  readonly #pending = new Map<string, Pending>();
  readonly #ttlMs: number;
  readonly #pollIntervalMs: number;
  #state: TaskStatus = "working";
  #updatedAt = this.createdAt;
  #endedAt: number | undefined;
  #result: ToolCallResult | undefined;
  #error: { code: number; message: string } | undefined;
  #statusMessage = "";

  constructor(principal: string, ttlMs: number, pollIntervalMs: number) {
    this.principal = principal;
    this.#ttlMs = ttlMs;
    this.#pollIntervalMs = pollIntervalMs;
  }

  /** Aborts when the task is cancelled: the run's signal. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get status(): TaskStatus {
    return this.#state;
  }

  /** Whether it ended longer than its TTL ago (it may be forgotten). */
  expired(now: number): boolean {
    return this.#endedAt !== undefined && now - this.#endedAt > this.#ttlMs;
  }

  /** The run's input request: waits for `tasks/update` (or the task's end). */
  ask(request: SubagentInputRequest, signal: AbortSignal): Promise<SubagentInputAnswer> {
    if (this.#ended()) return Promise.resolve({ outcome: "refused", reason: "the task ended" });
    return new Promise((resolve) => {
      const settle = (answer: SubagentInputAnswer) => {
        if (!this.#pending.delete(request.id)) return;
        if (this.#pending.size === 0 && this.#state === "input_required") this.#set("working");
        resolve(answer);
      };
      this.#pending.set(request.id, { request, settle });
      signal.addEventListener("abort", () => settle({ outcome: "refused", reason: "withdrawn" }), {
        once: true,
      });
      this.#set("input_required");
    });
  }

  /**
   * Answer waiting requests by key. All or nothing: an unknown key (stale,
   * already answered, mistyped) or a malformed response throws naming it,
   * and nothing is applied.
   */
  update(responses: unknown): void {
    if (responses === null || typeof responses !== "object" || Array.isArray(responses)) {
      throw new TypeError("inputResponses must be an object of responses by input key");
    }
    const entries = Object.entries(responses as Record<string, unknown>);
    if (entries.length === 0) throw new TypeError("inputResponses is empty");
    const answers: [Pending, SubagentInputAnswer][] = [];
    for (const [key, response] of entries) {
      const pending = this.#pending.get(key);
      if (!pending) {
        throw new TypeError(
          `input key "${key}" is not waiting (stale, already answered or mistyped; waiting: ${
            [...this.#pending.keys()].join(", ") || "none"
          })`,
        );
      }
      const action = (response as { action?: unknown } | null)?.action;
      if (action !== "accept" && action !== "decline" && action !== "cancel") {
        throw new TypeError(
          `the response for input key "${key}" must be an elicitation result (action accept, decline or cancel)`,
        );
      }
      answers.push([pending, answerOf(pending.request, response)]);
    }
    for (const [pending, answer] of answers) pending.settle(answer);
  }

  /**
   * The child streamed `text`: while the task runs, its `statusMessage` is
   * the latest {@linkcode STATUS_MESSAGE_CHARS} characters streamed.
   */
  progress(text: string): void {
    if (this.#ended() || text === "") return;
    const latest = this.#statusMessage + text;
    this.#statusMessage = latest.length > STATUS_MESSAGE_CHARS
      ? latest.slice(latest.length - STATUS_MESSAGE_CHARS)
      : latest;
    this.#updatedAt = new Date().toISOString();
  }

  /** Cancel: the run and its subtree end; what waits is refused. */
  cancel(): void {
    if (this.#ended()) return;
    this.#set("cancelled");
    for (const pending of [...this.#pending.values()]) {
      pending.settle({ outcome: "refused", reason: "the task was cancelled" });
    }
    this.#controller.abort();
  }

  /** The call ended with `result`. */
  complete(result: ToolCallResult): void {
    if (this.#ended()) return;
    this.#result = result;
    this.#set("completed");
  }

  /** The call failed outside the child (an infrastructure fault). */
  fail(message: string): void {
    if (this.#ended()) return;
    this.#error = { code: -32603, message };
    this.#set("failed");
  }

  /** The task as `tasks/get` and the creating `tools/call` show it. */
  snapshot(): Record<string, unknown> {
    const base: Record<string, unknown> = {
      taskId: this.id,
      status: this.#state,
      createdAt: this.createdAt,
      lastUpdatedAt: this.#updatedAt,
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
    };
    if (this.#statusMessage !== "") base.statusMessage = this.#statusMessage;
    if (this.#state === "input_required") {
      base.inputRequests = Object.fromEntries(
        [...this.#pending].map((
          [key, { request }],
        ) => [key, { method: "elicitation/create", params: elicitFormOf(request) }]),
      );
    }
    if (this.#state === "completed") base.result = { resultType: "complete", ...this.#result };
    if (this.#state === "failed") base.error = this.#error;
    return base;
  }

  #ended(): boolean {
    return this.#state === "completed" || this.#state === "failed" || this.#state === "cancelled";
  }

  #set(state: TaskStatus): void {
    this.#state = state;
    this.#updatedAt = new Date().toISOString();
    if (this.#ended()) this.#endedAt = Date.now();
  }
}
