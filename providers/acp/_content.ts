// Conversions between our content blocks and ACP's, and from ACP's
// `session/update` objects to our AcpUpdate. Everything here reads untrusted
// agent JSON defensively: a malformed field yields `undefined`, never a throw.
import type { ContentBlock, JsonValue } from "@seam/host";
import { isRecord } from "@seam/host";
import type { AcpPlanEntry, AcpToolCall, AcpUpdate } from "./events.ts";

type Json = Record<string, unknown>;

/** What the agent said it accepts in prompts (`promptCapabilities`). */
export interface PromptCapabilities {
  readonly image: boolean;
  readonly embeddedContext: boolean;
}

const str = (value: unknown): string | undefined => typeof value === "string" ? value : undefined;

/**
 * Our prompt blocks as ACP content blocks.
 *
 * @throws {TypeError} for a block the agent said it does not accept.
 */
export function toAcpPrompt(
  blocks: readonly ContentBlock[],
  capabilities: PromptCapabilities,
): Json[] {
  return blocks.map((block, i) => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "image":
        if (!capabilities.image) {
          throw new TypeError(
            `Cannot prompt the ACP agent: prompt[${i}] is an image and the agent does not accept images (promptCapabilities.image is false)`,
          );
        }
        return { type: "image", mimeType: block.mediaType, data: block.data };
      case "resource": {
        const mime = block.mediaType === undefined ? {} : { mimeType: block.mediaType };
        if (block.text === undefined) {
          return { type: "resource_link", uri: block.uri, name: block.uri, ...mime };
        }
        if (!capabilities.embeddedContext) {
          throw new TypeError(
            `Cannot prompt the ACP agent: prompt[${i}] is an embedded resource and the agent does not accept them (promptCapabilities.embeddedContext is false)`,
          );
        }
        return { type: "resource", resource: { uri: block.uri, text: block.text, ...mime } };
      }
      case "file": {
        // An embedded resource with a blob: ACP's form of inline bytes.
        if (!capabilities.embeddedContext) {
          throw new TypeError(
            `Cannot prompt the ACP agent: prompt[${i}] is a file and the agent does not accept embedded resources (promptCapabilities.embeddedContext is false)`,
          );
        }
        const uri = `file:///${encodeURIComponent(block.filename ?? `attachment-${i}`)}`;
        return { type: "resource", resource: { uri, blob: block.data, mimeType: block.mediaType } };
      }
      case "data":
        return { type: "text", text: JSON.stringify(block.data) };
    }
  });
}

/** One ACP content block as ours, or `undefined` when it has no equivalent. */
export function fromAcpBlock(value: unknown): ContentBlock | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.type) {
    case "text": {
      const text = str(value.text);
      return text === undefined ? undefined : { type: "text", text };
    }
    case "image": {
      const data = str(value.data);
      const mediaType = str(value.mimeType);
      return data === undefined || mediaType === undefined
        ? undefined
        : { type: "image", mediaType, data };
    }
    case "resource_link": {
      const uri = str(value.uri);
      if (uri === undefined) return undefined;
      const mediaType = str(value.mimeType);
      return mediaType === undefined ? { type: "resource", uri } : {
        type: "resource",
        uri,
        mediaType,
      };
    }
    case "resource": {
      const resource = value.resource;
      if (!isRecord(resource)) return undefined;
      const uri = str(resource.uri);
      if (uri === undefined) return undefined;
      const block: { type: "resource"; uri: string; mediaType?: string; text?: string } = {
        type: "resource",
        uri,
      };
      const mediaType = str(resource.mimeType);
      if (mediaType !== undefined) block.mediaType = mediaType;
      const text = str(resource.text);
      if (text !== undefined) block.text = text;
      return block;
    }
    default:
      return undefined; // audio, or a kind newer than this client
  }
}

function toolCall(update: Json): AcpToolCall | undefined {
  const toolCallId = str(update.toolCallId);
  if (toolCallId === undefined) return undefined;
  const call: { -readonly [K in keyof AcpToolCall]: AcpToolCall[K] } = { toolCallId };
  const title = str(update.title);
  if (title !== undefined) call.title = title;
  const kind = str(update.kind);
  if (kind !== undefined) call.toolKind = kind;
  const status = str(update.status);
  if (status !== undefined) call.status = status;
  return call;
}

function planEntries(value: unknown): AcpPlanEntry[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const entries: AcpPlanEntry[] = [];
  for (const entry of value) {
    if (!isRecord(entry)) return undefined;
    entries.push({
      content: str(entry.content) ?? "",
      priority: str(entry.priority) ?? "medium",
      status: str(entry.status) ?? "pending",
    });
  }
  return entries;
}

/**
 * An ACP `session/update` object as our {@linkcode AcpUpdate} (not yet
 * frozen), or `undefined` when it is malformed.
 */
export function fromAcpUpdate(value: unknown): AcpUpdate | undefined {
  if (!isRecord(value)) return undefined;
  const type = str(value.sessionUpdate);
  if (type === undefined) return undefined;
  const raw = value as JsonValue;
  switch (type) {
    case "agent_message_chunk":
    case "agent_thought_chunk": {
      if (!isRecord(value.content)) return undefined;
      const block = fromAcpBlock(value.content);
      return {
        kind: type === "agent_message_chunk" ? "message" : "thought",
        type,
        raw,
        content: block ? [block] : [],
      };
    }
    case "tool_call":
    case "tool_call_update": {
      const call = toolCall(value);
      if (!call) return undefined;
      return {
        kind: type === "tool_call" ? "tool-call" : "tool-call-update",
        type,
        raw,
        toolCall: call,
      };
    }
    case "plan": {
      const entries = planEntries(value.entries);
      return entries ? { kind: "plan", type, raw, entries } : undefined;
    }
    default:
      return { kind: "other", type, raw };
  }
}

/**
 * A prompt a client sent (`session/prompt`'s `prompt`) as our content blocks,
 * for the server side. Accepts what the server advertises: text, images,
 * resource links and embedded text resources.
 *
 * @throws {TypeError} naming the first block it cannot take (audio, a binary
 *   embedded resource, a malformed or unknown block).
 */
export function fromAcpPrompt(blocks: readonly unknown[]): ContentBlock[] {
  if (blocks.length === 0) {
    throw new TypeError("Cannot take the prompt: it holds no content block");
  }
  return blocks.map((value, i) => {
    const where = `prompt[${i}]`;
    if (!isRecord(value)) throw new TypeError(`Cannot take ${where}: not a content block`);
    if (value.type === "audio") {
      throw new TypeError(
        `Cannot take ${where}: audio is not accepted (promptCapabilities.audio is false)`,
      );
    }
    if (value.type === "resource" && isRecord(value.resource) && !("text" in value.resource)) {
      throw new TypeError(
        `Cannot take ${where}: only text resources can be embedded, not binary ones (blob)`,
      );
    }
    const block = fromAcpBlock(value);
    if (!block) {
      throw new TypeError(
        `Cannot take ${where}: a malformed or unknown ${JSON.stringify(value.type)} block`,
      );
    }
    return block;
  });
}

/** One of our content blocks as an ACP content block (every kind has one). */
export function toAcpBlock(block: ContentBlock): Json {
  return toAcpPrompt([block], { image: true, embeddedContext: true })[0];
}
