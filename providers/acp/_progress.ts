// An ACP update as `subagent/progress`, the one progress event every provider
// emits (the gateway and the demo stream from it).
import { textOf } from "@seam/host";
import type { SubagentProgressInfo } from "@seam/subagent";
import type { AcpUpdate } from "./events.ts";

type Progress = Omit<SubagentProgressInfo, "runId">;

/** The text of a tool call's ACP `content` entries (`{type: "content", content: {type: "text"}}`). */
function toolText(raw: unknown): string {
  const content = (raw as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const entry of content) {
    const inner = entry?.type === "content" ? entry.content : undefined;
    if (inner?.type === "text" && typeof inner.text === "string") text += inner.text;
  }
  return text;
}

/** The progress an update shows, or `undefined` for one that shows none (usage, modes, …). */
export function toProgress(update: AcpUpdate): Progress | undefined {
  switch (update.kind) {
    case "message":
    case "thought": {
      const text = textOf(update.content);
      return text === ""
        ? undefined
        : { kind: update.kind === "message" ? "text" : "thought", text };
    }
    case "tool-call": {
      const { toolCallId, title } = update.toolCall;
      return {
        kind: "tool-call",
        callId: toolCallId,
        ...(title === undefined ? {} : { name: title }),
      };
    }
    case "tool-call-update": {
      const { toolCallId, title, status } = update.toolCall;
      if (status !== "completed" && status !== "failed") return undefined;
      return {
        kind: "tool-result",
        callId: toolCallId,
        ...(title === undefined ? {} : { name: title }),
        text: toolText(update.raw),
      };
    }
    case "plan":
      return {
        kind: "plan",
        text: update.entries.map((entry) => `[${entry.status}] ${entry.content}`).join("\n"),
      };
    default:
      return undefined;
  }
}
