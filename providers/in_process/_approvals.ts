import type { Scope, ToolApprovalDecision, ToolApprovalRequest } from "@seam/host";
import {
  type SubagentInputAnswer,
  SubagentInputs,
  type SubagentPermissionOption,
} from "@seam/subagent";
import { freeze } from "./_builtins.ts";

/** What a child's permission request offers, for every tool call. */
export const PERMISSION_OPTIONS: readonly SubagentPermissionOption[] = freeze([
  freeze({ id: "allow_once", label: "Allow once", kind: "allow_once" as const }),
  freeze({ id: "allow_always", label: "Allow always", kind: "allow_always" as const }),
  freeze({ id: "reject_once", label: "Reject once", kind: "reject_once" as const }),
  freeze({ id: "reject_always", label: "Reject always", kind: "reject_always" as const }),
]);

const APPROVED: ToolApprovalDecision = freeze({ approved: true as const });

/**
 * The input requests of one in-process child (its run and the runs resumed
 * from it): the tool calls it needs approved become permission requests in
 * the delegating parent's scope, travelling up to a handler
 * (`SubagentInputs`), and "always" answers are remembered per tool name for
 * the child's life.
 */
export class ChildApprovals {
  readonly #parentScope: Scope;
  readonly #runId: string;
  #inputs: SubagentInputs | undefined;
  #always: Map<string, "allow" | "reject"> | undefined;

  constructor(parentScope: Scope, runId: string) {
    this.#parentScope = parentScope;
    this.#runId = runId;
  }

  /** The child's requests (made on first use: most children never ask). */
  get inputs(): SubagentInputs {
    return this.#inputs ??= new SubagentInputs(this.#parentScope, this.#runId);
  }

  /** Whether a request waits for its answer. */
  get waiting(): boolean {
    return this.#inputs?.waiting ?? false;
  }

  /** Refuse whatever waits ("cancelled: <reason>"). */
  cancelAll(reason: string): void {
    this.#inputs?.cancelAll(reason);
  }

  /** The child's tool approver: ask up the tree, unless an "always" answer decided already. */
  async approve(request: ToolApprovalRequest): Promise<ToolApprovalDecision> {
    const { name, title, kind, rawInput, signal } = request;
    const remembered = this.#always?.get(name);
    if (remembered === "allow") return APPROVED;
    if (remembered === "reject") {
      return {
        approved: false,
        reason: `calls to "${name}" were rejected always for this subagent ("Reject always")`,
      };
    }
    const inputs = this.inputs;
    const before = inputs.pending.length;
    const answered = inputs.ask({
      kind: "permission",
      message: `Subagent "${this.#runId}" asks to call tool "${name}": ${title}`,
      toolCall: { name, title, ...(kind !== undefined ? { kind } : {}), rawInput },
      options: PERMISSION_OPTIONS,
    });
    // ask() announces the request at once: it is the newest one pending,
    // unless it was refused at once (too many wait) or answered by a
    // listener. A cancelled call refuses it, so nothing waits for a call
    // that is gone.
    const requestId = inputs.pending.length > before ? inputs.pending.at(-1)?.id : undefined;
    const onAbort = () => {
      if (requestId === undefined) return;
      try {
        inputs.respond(requestId, {
          outcome: "refused",
          reason: "cancelled: the call was cancelled",
        });
      } catch {
        // Answered meanwhile.
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });
    let answer: SubagentInputAnswer;
    try {
      answer = await answered;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    return this.#decide(name, answer);
  }

  #decide(name: string, answer: SubagentInputAnswer): ToolApprovalDecision {
    if (answer.outcome === "refused") return { approved: false, reason: answer.reason };
    if (answer.outcome !== "selected") {
      return { approved: false, reason: "the permission request was answered without an option" };
    }
    const option = PERMISSION_OPTIONS.find((o) => o.id === answer.optionId);
    if (!option) {
      return { approved: false, reason: `option "${answer.optionId}" was not offered` };
    }
    if (option.kind === "allow_always" || option.kind === "reject_always") {
      (this.#always ??= new Map()).set(name, option.kind === "allow_always" ? "allow" : "reject");
    }
    if (option.kind === "allow_once" || option.kind === "allow_always") return APPROVED;
    return { approved: false, reason: `the answer was "${option.label}"` };
  }
}
