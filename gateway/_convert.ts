/** Content between A2A parts and seam content blocks. */
import type { ContentBlock, JsonValue } from "@seam/host";
import { GatewayError } from "./_errors.ts";
import type { A2APart } from "./types.ts";

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * The prompt blocks for a message's parts: `text` → a text block, `raw`
 * (an image) → an image block, `url` → a resource block, `data` → a text
 * block holding its JSON.
 *
 * @throws {GatewayError} `contentType` for raw bytes that are not an image.
 */
export function partsToBlocks(parts: readonly A2APart[]): ContentBlock[] {
  const blocks: ContentBlock[] = new Array(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.text !== undefined) {
      blocks[i] = { type: "text", text: part.text };
    } else if (part.raw !== undefined) {
      const mediaType = part.mediaType ?? "";
      if (!mediaType.startsWith("image/")) {
        throw new GatewayError(
          "contentType",
          `Content type not supported: message.parts[${i}] carries raw bytes of ${
            mediaType ? `"${mediaType.slice(0, 60)}"` : "no mediaType"
          }; raw parts must be images (image/*). Send text, a url or data instead.`,
        );
      }
      if (!BASE64.test(part.raw)) {
        throw new GatewayError(
          "invalidParams",
          `Invalid params: message.parts[${i}].raw must be base64`,
        );
      }
      blocks[i] = { type: "image", mediaType, data: part.raw };
    } else if (part.url !== undefined) {
      blocks[i] = part.mediaType
        ? { type: "resource", uri: part.url, mediaType: part.mediaType }
        : { type: "resource", uri: part.url };
    } else {
      blocks[i] = { type: "text", text: JSON.stringify(part.data) };
    }
  }
  return blocks;
}

/** The A2A parts for a run's output blocks, plus a data part for a structured value. */
export function blocksToParts(
  blocks: readonly ContentBlock[],
  structured: JsonValue | undefined,
): A2APart[] {
  const parts: A2APart[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push({ text: block.text });
    else if (block.type === "image") parts.push({ raw: block.data, mediaType: block.mediaType });
    else if (block.text !== undefined) {
      const part: A2APart = { text: block.text, metadata: { uri: block.uri } };
      if (block.mediaType) part.mediaType = block.mediaType;
      parts.push(part);
    } else {
      const part: A2APart = { url: block.uri };
      if (block.mediaType) part.mediaType = block.mediaType;
      parts.push(part);
    }
  }
  if (structured !== undefined) parts.push({ data: structured, mediaType: "application/json" });
  return parts;
}

/** Whether a client's `acceptedOutputModes` admits what the gateway answers with. */
export function acceptsOutput(modes: readonly string[] | undefined): boolean {
  if (!modes || modes.length === 0) return true;
  for (const mode of modes) {
    const m = mode.trim().toLowerCase().split(";", 1)[0];
    if (
      m === "text/plain" || m === "text/*" || m === "*/*" || m === "text" ||
      m === "application/json" || m === "application/*"
    ) return true;
  }
  return false;
}
