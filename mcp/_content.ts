/** Seam content blocks as MCP content blocks, and the way back. */
import type { ContentBlock, JsonValue } from "@seam/host";

/** An MCP content block (2025-11-25): what a tool result or a prompt is made of. */
export type McpBlock = { readonly type: string; readonly [field: string]: unknown };

/** One seam block as MCP content: text, image, an embedded resource or a resource link. */
export function toMcpBlock(block: ContentBlock): McpBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", data: block.data, mimeType: block.mediaType };
    case "resource":
      return block.text !== undefined
        ? {
          type: "resource",
          resource: {
            uri: block.uri,
            text: block.text,
            ...(block.mediaType ? { mimeType: block.mediaType } : {}),
          },
        }
        : {
          type: "resource_link",
          uri: block.uri,
          name: block.filename ?? block.uri,
          ...(block.mediaType ? { mimeType: block.mediaType } : {}),
        };
    case "file":
      return {
        type: "resource",
        resource: {
          uri: `attachment:///${encodeURIComponent(block.filename ?? "file")}`,
          blob: block.data,
          mimeType: block.mediaType,
        },
      };
    case "data":
      return { type: "text", text: JSON.stringify(block.data) };
  }
}

/**
 * MCP content as seam blocks: text, images and resources kept; audio and
 * anything unknown become a text note naming what was left out, so nothing
 * is dropped silently.
 */
export function fromMcpBlocks(content: unknown): ContentBlock[] {
  if (!Array.isArray(content)) return [];
  const blocks: ContentBlock[] = [];
  for (const item of content) {
    const block = fromMcpBlock(item);
    if (block) blocks.push(block);
  }
  return blocks;
}

function fromMcpBlock(item: unknown): ContentBlock | undefined {
  if (item === null || typeof item !== "object") return undefined;
  const b = item as Record<string, unknown>;
  const str = (v: unknown): string | undefined => typeof v === "string" ? v : undefined;
  switch (b.type) {
    case "text":
      return str(b.text) === undefined ? undefined : { type: "text", text: b.text as string };
    case "image":
      if (str(b.data) === undefined || str(b.mimeType) === undefined) return undefined;
      return { type: "image", data: b.data as string, mediaType: b.mimeType as string };
    case "resource_link":
      if (str(b.uri) === undefined) return undefined;
      return {
        type: "resource",
        uri: b.uri as string,
        ...(str(b.mimeType) ? { mediaType: b.mimeType as string } : {}),
        ...(str(b.name) ? { filename: b.name as string } : {}),
      };
    case "resource": {
      const r = b.resource as Record<string, unknown> | undefined;
      if (!r || str(r.uri) === undefined) return undefined;
      if (str(r.blob) !== undefined) {
        return {
          type: "file",
          data: r.blob as string,
          mediaType: str(r.mimeType) ?? "application/octet-stream",
        };
      }
      return {
        type: "resource",
        uri: r.uri as string,
        ...(str(r.mimeType) ? { mediaType: r.mimeType as string } : {}),
        ...(str(r.text) !== undefined ? { text: r.text as string } : {}),
      };
    }
    default:
      return { type: "text", text: `[${String(b.type)} content left out]` };
  }
}

/** A JSON value as it is, for `structuredContent` (an object) or undefined. */
export function asObject(value: JsonValue | undefined): Record<string, JsonValue> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, JsonValue>
    : undefined;
}
