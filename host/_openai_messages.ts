// The conversation as chat-completions `messages`: the system prompt, user
// content (images as data URLs, everything else as text), assistant text
// with its tool calls, and tool results.
import type { ContentBlock } from "./content.ts";
import type { ModelMessage } from "./model.ts";
import { stringify } from "./_builtins.ts";

function plainText(content: readonly ContentBlock[]): string {
  let text = "";
  for (const block of content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "resource") text += block.text ?? `[resource ${block.uri}]`;
    else if (block.type === "data") text += stringify(block.data);
    else if (block.type === "file") {
      text += `[file ${block.filename ?? "(unnamed)"} ${block.mediaType}]`;
    } else text += `[image ${block.mediaType}]`;
  }
  return text;
}

function userContent(content: readonly ContentBlock[]): unknown {
  if (!content.some((block) => block.type === "image")) return plainText(content);
  return content.map((block) =>
    block.type === "image"
      ? { type: "image_url", image_url: { url: `data:${block.mediaType};base64,${block.data}` } }
      : { type: "text", text: plainText([block]) }
  );
}

export function toWire(system: string, messages: readonly ModelMessage[]): unknown[] {
  const wire: unknown[] = [];
  if (system !== "") wire.push({ role: "system", content: system });
  for (const message of messages) {
    switch (message.role) {
      case "user":
        wire.push({ role: "user", content: userContent(message.content) });
        break;
      case "assistant": {
        const text = plainText(message.content);
        if (message.toolCalls.length === 0) {
          wire.push({ role: "assistant", content: text });
        } else {
          wire.push({
            role: "assistant",
            content: text === "" ? null : text,
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: stringify(call.args) },
            })),
          });
        }
        break;
      }
      case "tool":
        wire.push({
          role: "tool",
          tool_call_id: message.callId,
          content: plainText(message.content),
        });
        break;
    }
  }
  return wire;
}
