import { isRecord } from "./unknown.ts";
import { type ContentBlock, describe, parseContent } from "./content.ts";
import { deepFreeze, jsonCopy } from "./json.ts";
import type { SessionEvent, TurnEndReason } from "./session.ts";
import { invalid } from "./_invalid.ts";
import { freeze, isArray } from "./_builtins.ts";

const REASONS = new Set<string>(["completed", "max-tokens", "aborted", "error", "refusal"]);
const CODES = new Set<string>(["UNKNOWN_TOOL", "INVALID_ARGS", "DENIED", "TOOL_FAILED", "ABORTED"]);

/**
 * Check seed events for a new agent's session: whole closed turns, every
 * tool call answered. Events the runtime made itself (in `own`) are shared
 * as they are when their `seq` already matches their position; anything else
 * is read field by field into a fresh frozen event.
 *
 * @returns the events and the number of the last seeded turn.
 * @throws {TypeError} naming the first offending event.
 */
export function readSeed(
  seed: readonly SessionEvent[],
  own: WeakSet<object>,
): { events: SessionEvent[]; turns: number } {
  if (!isArray(seed)) {
    invalid(`session: expected an array of session events, got ${describe(seed)}`);
  }
  const events: SessionEvent[] = new Array(seed.length);
  let inTurn = false;
  let turns = 0;
  let afterAssistant = false;
  let open: Set<string> | undefined;
  for (let i = 0; i < seed.length; i++) {
    const raw = seed[i];
    const at = `session[${i}]`;
    const event = own.has(raw as object) ? raw : readEvent(raw, at);
    const type = event.type;
    if (type === "turn-start") {
      if (inTurn) invalid(`${at}: a turn starts inside an open turn`);
      inTurn = true;
      turns = event.turn;
    } else {
      if (!inTurn) invalid(`${at}: a "${type}" event outside a turn`);
      if (type === "turn-end") {
        if (open && open.size > 0) {
          invalid(
            `${at}: the turn ends with unanswered tool call${open.size > 1 ? "s" : ""} ${
              [...open].map((id) => `"${id}"`).join(", ")
            }`,
          );
        }
        inTurn = false;
      } else if (type === "tool-call") {
        if (!afterAssistant) {
          invalid(`${at}: a tool call must follow an assistant message`);
        }
        (open ??= new Set()).add(event.callId);
      } else if (type === "tool-result") {
        if (!open?.delete(event.callId)) {
          invalid(`${at}: a result for unknown tool call "${event.callId}"`);
        }
      }
    }
    afterAssistant = type === "assistant-message" || (type === "tool-call" && afterAssistant);
    events[i] = event.seq === i && own.has(event) ? event : shareOrRenumber(event, i, own);
  }
  if (inTurn) {
    invalid(
      "session: it ends inside an open turn (seed closed turns: session.completedPrefix())",
    );
  }
  return { events, turns };
}

function shareOrRenumber(event: SessionEvent, seq: number, own: WeakSet<object>): SessionEvent {
  const copy = freeze({ ...event, seq });
  own.add(copy);
  return copy;
}

function readEvent(raw: unknown, at: string): SessionEvent {
  if (!isRecord(raw)) {
    invalid(`${at}: expected a session event object, got ${describe(raw)}`);
  }
  const record = raw as Record<string, unknown>;
  const type = record.type;
  const str = (key: string): string => {
    const value = record[key];
    if (typeof value !== "string" || value === "") {
      invalid(`${at}.${key}: expected a non-empty string, got ${describe(value)}`);
    }
    return value;
  };
  const turn = (): number => {
    const value = record.turn;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
      invalid(`${at}.turn: expected a positive integer, got ${describe(value)}`);
    }
    return value;
  };
  const content = (): readonly ContentBlock[] =>
    deepFreeze(
      parseContent(jsonCopy(record.content, `${at}.content`), `${at}.content`, {
        allowEmpty: true,
      }),
    );
  switch (type) {
    case "turn-start":
      return { seq: 0, type, turn: turn() };
    case "user-message":
    case "assistant-message":
      return { seq: 0, type, content: content() };
    case "tool-call":
      return {
        seq: 0,
        type,
        callId: str("callId"),
        name: str("name"),
        args: deepFreeze(jsonCopy(record.args, `${at}.args`)),
      };
    case "tool-result": {
      const isError = record.isError;
      if (typeof isError !== "boolean") {
        invalid(`${at}.isError: expected a boolean, got ${describe(isError)}`);
      }
      const code = record.code;
      if (code !== undefined && (typeof code !== "string" || !CODES.has(code))) {
        invalid(`${at}.code: unknown tool error code ${describe(code)}`);
      }
      const base = {
        seq: 0,
        type,
        callId: str("callId"),
        name: str("name"),
        content: content(),
        isError,
      };
      return code === undefined ? base : { ...base, code: code as "ABORTED" };
    }
    case "turn-end": {
      const reason = record.reason;
      if (typeof reason !== "string" || !REASONS.has(reason)) {
        invalid(`${at}.reason: unknown turn-end reason ${describe(reason)}`);
      }
      const error = record.error;
      if (error !== undefined && typeof error !== "string") {
        invalid(`${at}.error: expected a string, got ${describe(error)}`);
      }
      const base = { seq: 0, type, turn: turn(), reason: reason as TurnEndReason };
      return error === undefined ? base : { ...base, error };
    }
    default:
      invalid(`${at}.type: unknown session event type ${describe(type)}`);
  }
}
