/**
 * The input requests a task waits on (its run asked for a question's
 * answer, a permission or an authentication), each with how to settle it,
 * and the status message that asks for them. Separate from the live task,
 * which goes INPUT_REQUIRED or AUTH_REQUIRED and back around them: made only
 * for a task that waits on one.
 */
import type { JsonValue } from "@seam/host";
import type { SubagentInputAnswer, SubagentInputRequest } from "@seam/subagent";
import { type A2APart, SEAM_EXTENSION_URI } from "../types.ts";

/** An input request the task waits on, and how to settle it. */
interface WaitingInput {
  readonly request: SubagentInputRequest;
  readonly settle: (answer: SubagentInputAnswer | undefined) => void;
}

/** The input requests a task waits on, oldest first (see the module doc). */
export class PendingInputs {
  readonly #waiting = new Map<string, WaitingInput>();
  readonly #emptied: () => void;

  /** `emptied` is called each time the last request waiting settles. */
  constructor(emptied: () => void) {
    this.#emptied = emptied;
  }

  /** How many requests wait. */
  get size(): number {
    return this.#waiting.size;
  }

  /** The requests waiting, oldest first. */
  get requests(): readonly SubagentInputRequest[] {
    return [...this.#waiting.values()].map((w) => w.request);
  }

  /**
   * Wait for an answer to `request`, which `resolve` hears: `undefined` once
   * `signal` aborts.
   */
  add(
    request: SubagentInputRequest,
    signal: AbortSignal,
    resolve: (answer: SubagentInputAnswer | undefined) => void,
  ): void {
    const inputs = this.#waiting;
    const settle = (answer: SubagentInputAnswer | undefined) => {
      if (!inputs.delete(request.id)) return;
      resolve(answer);
      if (inputs.size === 0) this.#emptied();
    };
    inputs.set(request.id, { request, settle });
    signal.addEventListener("abort", () => settle(undefined), { once: true });
  }

  /** Answer the request `requestId` waits on; false when none such waits. */
  answer(requestId: string, answer: SubagentInputAnswer): boolean {
    const waiting = this.#waiting.get(requestId);
    if (!waiting) return false;
    waiting.settle(answer);
    return true;
  }

  /** Settle every request unanswered (the task ended). */
  settleAll(): void {
    for (const waiting of [...this.#waiting.values()]) {
      waiting.settle(undefined);
    }
  }
}

/**
 * The status message of an interrupted task: the request in words for any
 * client, and whole in a data part under the seam extension (with what an
 * answer looks like).
 */
export function inputRequestParts(request: SubagentInputRequest): A2APart[] {
  let text = request.message;
  if (request.toolCall) {
    text += ` (tool call: ${request.toolCall.title ?? request.toolCall.name})`;
  }
  if (request.options) {
    text += `. Answer with one of: ${
      request.options.map((o) => `"${o.id}" (${o.label})`).join(", ")
    }.`;
  } else if (request.kind === "question") {
    text += " Answer with a message on this task.";
  }
  return [
    { text },
    {
      data: {
        [SEAM_EXTENSION_URI]: { inputRequest: request as unknown as JsonValue },
      } as { [key: string]: JsonValue },
      mediaType: "application/json",
    },
  ];
}
