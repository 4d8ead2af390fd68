/** Content between A2A parts and seam content blocks. */
import type { ContentBlock, ContentInput, JsonValue } from "@seam/host";
import { invalidParams } from "./_errors.ts";
import type { A2APart } from "../types.ts";

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * The prompt blocks for a message's parts: `text` → a text block, `raw`
 * → an image block (`image/*`) or a file block (any other media type, with
 * its `filename`), `url` → a resource block (with its `filename`), `data` →
 * a data block.
 *
 * @throws {GatewayError} `invalidParams` for raw bytes that are not base64 or carry no media type.
 */
export function partsToBlocks(parts: readonly A2APart[]): ContentBlock[] {
  const blocks: ContentBlock[] = new Array(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.text !== undefined) {
      blocks[i] = { type: "text", text: part.text };
    } else if (part.raw !== undefined) {
      if (!BASE64.test(part.raw)) {
        throw invalidParams(`message.parts[${i}].raw must be base64`);
      }
      const mediaType = part.mediaType || "application/octet-stream";
      blocks[i] = mediaType.startsWith("image/")
        ? { type: "image", mediaType, data: part.raw }
        : part.filename
        ? { type: "file", mediaType, data: part.raw, filename: part.filename }
        : { type: "file", mediaType, data: part.raw };
    } else if (part.url !== undefined) {
      const block: { type: "resource"; uri: string; mediaType?: string; filename?: string } = {
        type: "resource",
        uri: part.url,
      };
      if (part.mediaType) block.mediaType = part.mediaType;
      if (part.filename) block.filename = part.filename;
      blocks[i] = block;
    } else {
      blocks[i] = { type: "data", data: part.data as JsonValue };
    }
  }
  return blocks;
}

/**
 * A message's parts as a run's prompt: one plain text part as its text (the
 * service builds that block frozen in place instead of copying a list:
 * bench/alloc.ts, row "gateway `SendMessage`"), anything else as
 * {@linkcode partsToBlocks} gives it.
 */
export function partsToPrompt(parts: readonly A2APart[]): ContentInput {
  if (parts.length === 1) {
    const part = parts[0];
    if (typeof part.text === "string" && part.text !== "") return part.text;
  }
  return partsToBlocks(parts);
}

/** The A2A parts for a run's output blocks, plus a data part for a structured value. */
export function blocksToParts(
  blocks: readonly ContentBlock[],
  structured: JsonValue | undefined,
): A2APart[] {
  const parts: A2APart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push({ text: block.text });
        break;
      case "image":
        parts.push({ raw: block.data, mediaType: block.mediaType });
        break;
      case "file": {
        const part: A2APart = { raw: block.data, mediaType: block.mediaType };
        if (block.filename) part.filename = block.filename;
        parts.push(part);
        break;
      }
      case "data":
        parts.push({ data: block.data, mediaType: "application/json" });
        break;
      case "resource": {
        const part: A2APart = block.text !== undefined
          ? { text: block.text, metadata: { uri: block.uri } }
          : { url: block.uri };
        if (block.mediaType) part.mediaType = block.mediaType;
        if (block.filename) part.filename = block.filename;
        parts.push(part);
      }
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
