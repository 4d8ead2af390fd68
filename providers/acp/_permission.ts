// Answers to the agent's `session/request_permission`: a fixed policy's or a
// function's decision as the wire answer, and, under `permission: "ask"`,
// the request as an input request (`SubagentInputs`) and the answer back.
import {
  type ContentBlock,
  frozenJsonCopy,
  isRecord,
  type JsonValue,
  type Logger,
} from "@seam/host";
import type {
  SubagentInputAnswer,
  SubagentInputAsk,
  SubagentPermissionOption,
  SubagentPermissionOptionKind,
  SubagentToolCallInfo,
} from "@seam/subagent";
import { fromAcpBlock } from "./_content.ts";
import { quoted } from "./_failure.ts";
import type { PermissionOptionWire, PermissionOutcome } from "./_connection.ts";
import type { AcpPermissionDecision } from "./types.ts";

/** The `cancelled` answer. */
export const CANCELLED: PermissionOutcome = Object.freeze({ outcome: "cancelled" });

function pick(options: readonly PermissionOptionWire[], kinds: string[]): string | undefined {
  for (const kind of kinds) {
    const found = options.find((o) => o.kind === kind);
    if (found) return found.optionId;
  }
  return undefined;
}

/** Turn a decision into the wire answer for the offered `options`. */
export function toOutcome(
  decision: AcpPermissionDecision,
  options: readonly PermissionOptionWire[],
  logger: Logger,
): PermissionOutcome {
  let optionId: string | undefined;
  if (decision === "allow") optionId = pick(options, ["allow_once", "allow_always"]);
  else if (decision === "reject") optionId = pick(options, ["reject_once", "reject_always"]);
  else if (decision === "cancel") return CANCELLED;
  else if (
    decision !== null && typeof decision === "object" && typeof decision.optionId === "string" &&
    options.some((o) => o.optionId === decision.optionId)
  ) {
    optionId = decision.optionId;
  } else {
    logger.error(
      `A permission handler returned ${
        JSON.stringify(decision)
      }, which is not "allow", "reject", "cancel" or an offered { optionId }: answering cancelled`,
    );
    return CANCELLED;
  }
  if (optionId === undefined) {
    logger.warn(
      `The agent offered no option for "${decision}" in its permission request: answering cancelled`,
    );
    return CANCELLED;
  }
  return { outcome: "selected", optionId };
}

const OPTION_KINDS: ReadonlySet<string> = new Set<SubagentPermissionOptionKind>([
  "allow_once",
  "allow_always",
  "reject_once",
  "reject_always",
]);
/** The most tool call content entries an input request carries. */
const MAX_CONTENT = 64;
/** The longest title quoted in a request's message. */
const MAX_TITLE = 200;

/**
 * The agent's options as an input request offers them, ids kept: the ones
 * with a kind ACP defines and a unique string id (the rest are logged and
 * left out, as nobody could pick them knowingly).
 */
export function askOptions(
  options: readonly PermissionOptionWire[],
  logger: Logger,
): SubagentPermissionOption[] {
  const offered: SubagentPermissionOption[] = [];
  for (const option of options) {
    const { optionId, name, kind } = (isRecord(option) ? option : {}) as Partial<
      PermissionOptionWire
    >;
    if (
      typeof optionId !== "string" || optionId === "" || typeof kind !== "string" ||
      !OPTION_KINDS.has(kind) || offered.some((o) => o.id === optionId)
    ) {
      logger.warn(
        `Left out a permission option the agent offered: ${
          quoted(option)
        } (needs a unique optionId and a kind of allow_once, allow_always, reject_once, reject_always)`,
      );
      continue;
    }
    offered.push({
      id: optionId,
      label: typeof name === "string" && name !== "" ? name : optionId,
      kind: kind as SubagentPermissionOptionKind,
    });
  }
  return offered;
}

/** A frozen JSON copy of `value`, or `undefined` when it cannot be copied (too deep). */
function copied(value: unknown): JsonValue | undefined {
  try {
    return frozenJsonCopy(value, "rawInput");
  } catch {
    return undefined;
  }
}

/** An ACP `diff` tool call content as text: the path, the old lines `-`, the new lines `+`. */
function diffText(path: string, oldText: unknown, newText: string): string {
  const lines = (text: string, mark: string) =>
    text === "" ? [] : text.split("\n").map((line) => `${mark}${line}`);
  return [
    `--- ${typeof oldText === "string" ? path : "/dev/null"}`,
    `+++ ${path}`,
    ...(typeof oldText === "string" ? lines(oldText, "-") : []),
    ...lines(newText, "+"),
  ].join("\n");
}

/** ACP tool call content (`content`, `diff`, `terminal` entries) as our blocks. */
function toolContent(value: unknown): ContentBlock[] {
  if (!Array.isArray(value)) return [];
  const blocks: ContentBlock[] = [];
  for (const entry of value.slice(0, MAX_CONTENT)) {
    if (!isRecord(entry)) continue;
    if (entry.type === "content") {
      const block = fromAcpBlock(entry.content);
      if (block) blocks.push(block);
    } else if (
      entry.type === "diff" && typeof entry.path === "string" && typeof entry.newText === "string"
    ) {
      blocks.push({ type: "text", text: diffText(entry.path, entry.oldText, entry.newText) });
    } else if (entry.type === "terminal" && typeof entry.terminalId === "string") {
      blocks.push({ type: "text", text: `(terminal ${entry.terminalId})` });
    }
  }
  return blocks;
}

/**
 * The tool call of a permission request as an input request's: ACP names no
 * tool, so `name` is the agent's id for the call; `title`, `kind`,
 * `rawInput` and `content` as the agent sent them (content as our blocks).
 */
export function toolCallInfo(toolCall: unknown): SubagentToolCallInfo {
  const call = isRecord(toolCall) ? toolCall : {};
  const id = typeof call.toolCallId === "string" ? call.toolCallId : "";
  const info: {
    -readonly [K in keyof SubagentToolCallInfo]: SubagentToolCallInfo[K];
  } = { name: id };
  if (typeof call.title === "string") info.title = call.title;
  if (typeof call.kind === "string") info.kind = call.kind;
  const rawInput = call.rawInput === undefined ? undefined : copied(call.rawInput);
  if (rawInput !== undefined) info.rawInput = rawInput;
  const content = toolContent(call.content);
  if (content.length > 0) info.content = content;
  return info;
}

/** A permission request of run `provider`'s agent as an input request. */
export function permissionAsk(
  provider: string,
  toolCall: SubagentToolCallInfo,
  options: readonly SubagentPermissionOption[],
): SubagentInputAsk {
  const title = toolCall.title === undefined
    ? `tool call ${quoted(toolCall.name, MAX_TITLE)}`
    : quoted(toolCall.title, MAX_TITLE);
  return {
    kind: "permission",
    message: `The ACP agent "${provider}" asks permission for ${title}${
      toolCall.kind === undefined ? "" : ` (${toolCall.kind})`
    }`,
    toolCall,
    options,
  };
}

/**
 * An input request's answer as the agent's: the option chosen (already
 * checked against the offered ones), else for a refusal its reject option
 * (`reject_once`, else `reject_always`), else `cancelled`.
 */
export function answerOutcome(
  answer: SubagentInputAnswer,
  options: readonly SubagentPermissionOption[],
): PermissionOutcome {
  if (answer.outcome === "selected") return { outcome: "selected", optionId: answer.optionId };
  const reject = options.find((o) => o.kind === "reject_once") ??
    options.find((o) => o.kind === "reject_always");
  return reject ? { outcome: "selected", optionId: reject.id } : CANCELLED;
}

/** The fields of a tool call a permission request may leave out. */
const TOOL_CALL_FIELDS = ["title", "kind", "rawInput", "content"] as const;
/** The most calls in flight remembered (the oldest is forgotten). */
const MAX_KNOWN = 32;

/**
 * What a run's `tool_call` and `tool_call_update`s told of its calls still
 * in flight (the last 32 not `completed` or `failed`): ACP's permission
 * request carries a `ToolCallUpdate`, every field optional, and an agent
 * that announced the call may name it by its id alone; the request is
 * completed with what was told.
 */
export class KnownToolCalls {
  readonly #calls = new Map<string, Record<string, unknown>>();

  /** One `tool_call` / `tool_call_update` (its raw object). */
  remember(update: unknown): void {
    if (!isRecord(update) || typeof update.toolCallId !== "string") return;
    const id = update.toolCallId;
    const known = this.#calls.get(id);
    this.#calls.delete(id);
    if (update.status === "completed" || update.status === "failed") return;
    const merged: Record<string, unknown> = { ...known, toolCallId: id };
    for (const key of TOOL_CALL_FIELDS) {
      if (update[key] !== undefined && update[key] !== null) merged[key] = update[key];
    }
    this.#calls.set(id, merged);
    if (this.#calls.size > MAX_KNOWN) this.#calls.delete(this.#calls.keys().next().value!);
  }

  /** `toolCall` with the fields it leaves out taken from what was told of it. */
  complete(toolCall: unknown): unknown {
    if (!isRecord(toolCall) || typeof toolCall.toolCallId !== "string") return toolCall;
    const known = this.#calls.get(toolCall.toolCallId);
    if (!known) return toolCall;
    const merged: Record<string, unknown> = { ...known };
    for (const [key, value] of Object.entries(toolCall)) {
      if (value !== undefined && value !== null) merged[key] = value;
    }
    return merged;
  }
}
