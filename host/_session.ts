import type { ModelMessage, ModelToolCall } from "./model.ts";
import type { Session, SessionEvent } from "./session.ts";
import { freeze } from "./_builtins.ts";

/** The one empty list, frozen: no output, no tool calls. */
export const EMPTY: readonly never[] = freeze([]);

/** Events the runtime made itself: trusted (and shared) when seeding a fork. */
export const OWN_EVENTS: WeakSet<object> = new WeakSet();

export class SessionImpl implements Session {
  readonly list: SessionEvent[];
  /** Index just past the last `turn-end`. */
  closed: number;
  constructor(seed: SessionEvent[]) {
    this.list = seed;
    this.closed = seed.length;
  }
  get length(): number {
    return this.list.length;
  }
  events(): SessionEvent[] {
    return this.list.slice();
  }
  completedPrefix(): SessionEvent[] {
    return this.list.slice(0, this.closed);
  }
}

/** Rebuild the model conversation of a (seeded) event list. */
export function messagesOf(events: readonly SessionEvent[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    switch (event.type) {
      case "user-message":
        messages.push(freeze({ role: "user", content: event.content }));
        break;
      case "assistant-message": {
        const calls: ModelToolCall[] = [];
        while (i + 1 < events.length && events[i + 1].type === "tool-call") {
          const call = events[++i] as Extract<SessionEvent, { type: "tool-call" }>;
          calls.push(freeze({ id: call.callId, name: call.name, args: call.args }));
        }
        messages.push(
          freeze({
            role: "assistant",
            content: event.content,
            toolCalls: calls.length ? freeze(calls) : EMPTY,
          }),
        );
        break;
      }
      case "tool-result":
        messages.push(toolMessage(event));
        break;
    }
  }
  return messages;
}

/** The model's view of a tool result. */
export function toolMessage(event: Extract<SessionEvent, { type: "tool-result" }>): ModelMessage {
  return freeze({
    role: "tool",
    callId: event.callId,
    name: event.name,
    content: event.content,
    isError: event.isError,
  });
}
