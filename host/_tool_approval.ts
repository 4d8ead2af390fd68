import type { Agent } from "./agent.ts";
import { describe } from "./content.ts";
import type { JsonValue } from "./json.ts";
import type { ToolApprovalRequest, ToolApprover } from "./tools.ts";
import { isRecord, messageOf } from "./unknown.ts";
import { cannot } from "./_invalid.ts";
import { freeze, stringify } from "./_builtins.ts";

/** A tool's approval declaration, read once when it is registered. */
export interface ApprovalSpec {
  /** Every call, or the calls the predicate picks. */
  readonly requires: true | ((args: unknown) => boolean);
  readonly kind: string | undefined;
  readonly title: ((args: unknown) => string) | undefined;
}

/** The longest title and refusal reason kept (a model's arguments can be huge). */
const MAX_TEXT = 1_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Read `requiresApproval`, `kind` and `title` of a tool being registered:
 * the spec when some call needs approval, `undefined` when none does.
 *
 * @throws {TypeError} naming the field that is malformed.
 */
export function readApproval(
  name: string,
  tool: { requiresApproval?: unknown; kind?: unknown; title?: unknown },
): ApprovalSpec | undefined {
  const { requiresApproval, kind, title } = tool;
  if (
    requiresApproval !== undefined && typeof requiresApproval !== "boolean" &&
    typeof requiresApproval !== "function"
  ) {
    cannot(
      `register tool "${name}"`,
      `requiresApproval must be a boolean or a function of the arguments, got ${
        describe(requiresApproval)
      }`,
    );
  }
  if (kind !== undefined && (typeof kind !== "string" || kind === "" || kind.length > 64)) {
    cannot(
      `register tool "${name}"`,
      `kind must be a non-empty string of at most 64 characters, got ${describe(kind)}`,
    );
  }
  if (title !== undefined && typeof title !== "function") {
    cannot(
      `register tool "${name}"`,
      `title must be a function of the arguments, got ${describe(title)}`,
    );
  }
  if (requiresApproval === undefined || requiresApproval === false) return undefined;
  return freeze({
    requires: requiresApproval as ApprovalSpec["requires"],
    kind: kind as string | undefined,
    title: title as ApprovalSpec["title"],
  });
}

/** A call that did not get its approval: the outcome's code and what the model reads. */
export interface Unapproved {
  readonly code: "NOT_APPROVED" | "ABORTED";
  readonly text: string;
}

/** The call, as the approval step sees it. */
export interface ApprovalCall {
  readonly agent: Agent;
  readonly callId: string;
  readonly name: string;
  readonly args: unknown;
  readonly rawInput: JsonValue;
}

/**
 * Ask `approver` whether `call` may run, when `spec` says it needs to:
 * `undefined` when it may, else why not. Never rejects; a verdict that comes
 * after `signal` aborted is ignored.
 */
export async function seekApproval(
  spec: ApprovalSpec,
  tool: object,
  approver: ToolApprover | undefined,
  call: ApprovalCall,
  signal: AbortSignal,
): Promise<Unapproved | undefined> {
  const { name, args } = call;
  const refused = (reason: string): Unapproved => ({
    code: "NOT_APPROVED",
    text: `Tool "${name}" was not run: the call was not approved: ${clip(reason, MAX_TEXT)}`,
  });
  if (spec.requires !== true) {
    let needs: unknown;
    try {
      needs = spec.requires.call(tool, args);
    } catch (error) {
      return refused(`cannot tell whether it needs approval (${messageOf(error)})`);
    }
    if (needs === false) return undefined;
    if (needs !== true) {
      return refused(
        `cannot tell whether it needs approval (requiresApproval returned ${describe(needs)})`,
      );
    }
  }
  if (!approver) {
    return refused(
      "no one approves tool calls here (see host.tools.approve, or run the agent as a subagent)",
    );
  }
  const cancelled: Unapproved = { code: "ABORTED", text: `Tool "${name}" was cancelled` };
  if (signal.aborted) return cancelled;
  const request: ToolApprovalRequest = freeze({
    agent: call.agent,
    callId: call.callId,
    name,
    args,
    rawInput: call.rawInput,
    title: titleOf(spec, tool, name, args, call.rawInput),
    ...(spec.kind !== undefined ? { kind: spec.kind } : {}),
    signal,
  });
  let onAbort!: () => void;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  let verdict: unknown;
  try {
    let decided: Promise<unknown>;
    try {
      decided = Promise.resolve(approver(request));
    } catch (error) {
      decided = Promise.reject(error);
    }
    verdict = await Promise.race([
      decided.then(
        (decision) => ({ decision }),
        (error) => ({ error }),
      ),
      aborted,
    ]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  if (verdict === "aborted" || signal.aborted) return cancelled;
  const settled = verdict as { decision?: unknown; error?: unknown };
  if ("error" in settled) return refused(`the approval failed: ${messageOf(settled.error)}`);
  const decision = settled.decision;
  if (isRecord(decision) && decision.approved === true) return undefined;
  if (
    isRecord(decision) && decision.approved === false && typeof decision.reason === "string" &&
    decision.reason !== ""
  ) {
    return refused(decision.reason);
  }
  return refused(
    `the approver answered ${
      describe(decision)
    }, neither {approved: true} nor {approved: false, reason}`,
  );
}

function titleOf(
  spec: ApprovalSpec,
  tool: object,
  name: string,
  args: unknown,
  rawInput: JsonValue,
): string {
  if (spec.title) {
    try {
      const title: unknown = spec.title.call(tool, args);
      if (typeof title === "string" && title.trim() !== "") return clip(title, MAX_TEXT);
    } catch {
      // The default below.
    }
  }
  let shown: string;
  try {
    shown = stringify(rawInput) ?? "";
  } catch {
    shown = "";
  }
  return clip(`${name} ${shown}`.trim(), 200);
}
