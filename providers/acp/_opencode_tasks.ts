// OpenCode's Task subagents, in ACP's terms. `opencode acp` sends no child
// sessions (its child sessions' own events stay inside it): a Task
// subagent is one `task` tool call of the parent's session —
// `tool_call_update` `in_progress` with `rawInput` {description, prompt,
// subagent_type}, then `completed` with the child's answer as content and
// its session id in `rawOutput.metadata.sessionId`, or `failed` with
// `rawOutput.error`. Each becomes what ACP's unstable schema would carry:
// a `subagent_update` announcing a child session (`opencode-task:<call
// id>`), the child's answer as its message, and its end (`idle`, or
// `failed`), so the task is followed as a nested run like any child.
import { isRecord } from "@seam/host";
import { cut } from "./_failure.ts";
import { MAX_CHILD_SESSIONS } from "./_session_routes.ts";

type Json = Record<string, unknown>;

/** An update to follow: `[from, update]`, `from` the session it is of ("" for the run's own). */
export type ChildFeed = readonly [from: string, update: Json];

/** The most characters of a task's answer or error kept as its child's message. */
const ANSWER_CHARS = 16_000;

/** The text between OpenCode's `<task_result>` tags, else all of it. */
function answerOf(output: string): string {
  const match = /<task_result>\n?([\s\S]*?)\n?<\/task_result>/.exec(output);
  return match ? match[1] : output;
}

/** Follows one run's OpenCode `task` tool calls. */
export class OpenCodeTasks {
  /** Live tasks: tool call id → the child session id announced for it. */
  readonly #live = new Map<string, string>();
  #seen = 0;

  /** What `raw` (one of the run's own updates) says of a Task subagent, as child updates. */
  translate(raw: unknown): ChildFeed[] {
    if (!isRecord(raw) || typeof raw.toolCallId !== "string") return [];
    if (raw.sessionUpdate !== "tool_call" && raw.sessionUpdate !== "tool_call_update") return [];
    const callId = raw.toolCallId;
    const feed: ChildFeed[] = [];
    let child = this.#live.get(callId);
    const input = isRecord(raw.rawInput) ? raw.rawInput : {};
    if (
      child === undefined && typeof input.subagent_type === "string" &&
      typeof input.prompt === "string" && this.#seen < MAX_CHILD_SESSIONS
    ) {
      this.#seen++;
      child = `opencode-task:${cut(callId, 100)}`;
      this.#live.set(callId, child);
      const what = typeof input.description === "string" ? `${input.description} ` : "";
      feed.push(["", {
        sessionUpdate: "subagent_update",
        sessionId: child,
        title: cut(`${what}(@${input.subagent_type} subagent)`, 200),
        state: { state: "running" },
      }]);
    }
    if (child === undefined) return feed;
    const output = isRecord(raw.rawOutput) ? raw.rawOutput : {};
    if (raw.status === "completed" || raw.status === "failed") {
      this.#live.delete(callId);
      const text = raw.status === "completed"
        ? (typeof output.output === "string" ? answerOf(output.output) : "")
        : (typeof output.error === "string" ? output.error : "the task failed");
      if (text !== "") {
        feed.push([child, {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: cut(text, ANSWER_CHARS) },
        }]);
      }
      feed.push(["", {
        sessionUpdate: "subagent_update",
        sessionId: child,
        state: { state: raw.status === "completed" ? "idle" : "failed" },
      }]);
    }
    return feed;
  }
}
