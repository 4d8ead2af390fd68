// The host's conversation as AI SDK model messages: user content (images
// and files as their own parts, everything else as text), assistant text
// with its tool calls, and tool results (errors as `error-text`).
import type { ContentBlock, ModelMessage as HostMessage } from "@seam/host";
import type { ModelMessage } from "ai";

/** The text of blocks a model reads as text (resources, data, file names). */
export function plainText(content: readonly ContentBlock[]): string {
  let text = "";
  for (const block of content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "resource") text += block.text ?? `[resource ${block.uri}]`;
    else if (block.type === "data") text += JSON.stringify(block.data);
    else if (block.type === "file") {
      text += `[file ${block.filename ?? "(unnamed)"} ${block.mediaType}]`;
    } else text += `[image ${block.mediaType}]`;
  }
  return text;
}

type UserPart =
  | { type: "text"; text: string }
  | { type: "image"; image: string; mediaType: string }
  | { type: "file"; data: string; mediaType: string; filename?: string };

/** User content: text, images and files as the AI SDK's own parts. */
export function userParts(content: readonly ContentBlock[]): UserPart[] {
  const parts: UserPart[] = [];
  for (const block of content) {
    if (block.type === "image") {
      parts.push({ type: "image", image: block.data, mediaType: block.mediaType });
    } else if (block.type === "file") {
      parts.push({
        type: "file",
        data: block.data,
        mediaType: block.mediaType,
        ...(block.filename !== undefined ? { filename: block.filename } : {}),
      });
    } else {
      const text = plainText([block]);
      const last = parts.at(-1);
      if (last?.type === "text") last.text += text;
      else parts.push({ type: "text", text });
    }
  }
  return parts;
}

/** The host's messages as AI SDK `ModelMessage`s. */
export function toModelMessages(messages: readonly HostMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        out.push({ role: "user", content: userParts(message.content) });
        break;
      case "assistant": {
        const text = plainText(message.content);
        out.push({
          role: "assistant",
          content: [
            ...(text === "" ? [] : [{ type: "text" as const, text }]),
            ...message.toolCalls.map((call) => ({
              type: "tool-call" as const,
              toolCallId: call.id,
              toolName: call.name,
              input: call.args,
            })),
          ],
        });
        break;
      }
      case "tool": {
        const value = plainText(message.content);
        out.push({
          role: "tool",
          content: [{
            type: "tool-result",
            toolCallId: message.callId,
            toolName: message.name,
            output: message.isError ? { type: "error-text", value } : { type: "text", value },
          }],
        });
        break;
      }
    }
  }
  return out;
}
