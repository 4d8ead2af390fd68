import { isRecord } from "./unknown.ts";
import type { JsonValue } from "./json.ts";
import { invalid } from "./_invalid.ts";
import { isArray, stringify } from "./_builtins.ts";

/** Plain text. */
export interface TextBlock {
  /** Discriminator. */
  readonly type: "text";
  /** The text. */
  readonly text: string;
}

/** An inline image. */
export interface ImageBlock {
  /** Discriminator. */
  readonly type: "image";
  /** Its media type (`image/png`). */
  readonly mediaType: string;
  /** Base64-encoded bytes. */
  readonly data: string;
}

/** A reference to a resource, with its text when it is inlined. */
export interface ResourceBlock {
  /** Discriminator. */
  readonly type: "resource";
  /** Where the resource lives. */
  readonly uri: string;
  /** Its media type, when known. */
  readonly mediaType?: string;
  /** Its text, when inlined. */
  readonly text?: string;
  /** A file name for it (a file behind a URL). */
  readonly filename?: string;
}

/** A file's bytes, inline (an A2A `raw` part; for images prefer {@linkcode ImageBlock}). */
export interface FileBlock {
  /** Discriminator. */
  readonly type: "file";
  /** Its media type (`text/plain`, `application/pdf`). */
  readonly mediaType: string;
  /** Base64-encoded bytes. */
  readonly data: string;
  /** Its file name, when it has one. */
  readonly filename?: string;
}

/** Structured data (an A2A `data` part): any JSON value. */
export interface DataBlock {
  /** Discriminator. */
  readonly type: "data";
  /** The value. */
  readonly data: JsonValue;
}

/** One block of a message: what prompts and outputs are made of. */
export type ContentBlock = TextBlock | ImageBlock | ResourceBlock | FileBlock | DataBlock;

/** Content as callers may give it: a string is one text block. */
export type ContentInput = string | readonly ContentBlock[];

/**
 * The text of `content`: its text blocks, inlined resource texts and data
 * blocks (as JSON) joined in order; files and images have no text.
 *
 * @example
 * ```ts
 * import { textOf } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.equal(textOf([{ type: "text", text: "a" }, { type: "text", text: "b" }]), "ab");
 * assert.equal(textOf("plain"), "plain");
 * ```
 */
export function textOf(content: ContentInput): string {
  if (typeof content === "string") return content;
  let text = "";
  for (const block of content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "resource" && block.text !== undefined) {
      text += block.text;
    } else if (block.type === "data") text += stringify(block.data);
  }
  return text;
}

const BLOCK_FIELDS: Record<ContentBlock["type"], readonly string[]> = {
  text: ["type", "text"],
  image: ["type", "mediaType", "data"],
  resource: ["type", "uri", "mediaType", "text", "filename"],
  file: ["type", "mediaType", "data", "filename"],
  data: ["type", "data"],
};

/** Options of {@linkcode parseContent}. */
export interface ParseContentOptions {
  /** Accept `[]` and `""`. Default false. */
  readonly allowEmpty?: boolean;
  /**
   * When given, a field a block's type does not have is dropped (and
   * reported here) instead of rejected: for content from a peer whose extra
   * fields must not cost the whole output. The returned list is then a new
   * array whose changed blocks are new objects (unfrozen); the others are
   * the input's own.
   */
  readonly onUnknownField?: (block: string, key: string) => void;
}

/**
 * Check that `value` (already a JSON copy: plain data) is valid content and
 * return it as blocks; a string becomes one text block.
 *
 * @param value The content to check.
 * @param path Its name in error messages (`request.prompt`).
 * @param options See {@linkcode ParseContentOptions}.
 * @throws {TypeError} naming the first offending path.
 *
 * @example Drop a peer's unknown block field instead of refusing the content
 * ```ts
 * import { parseContent } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const dropped: string[] = [];
 * const blocks = parseContent([{ type: "text", text: "hi", lang: "en" }], "output", {
 *   onUnknownField: (block, key) => void dropped.push(`${block}.${key}`),
 * });
 * assert.deepEqual(blocks, [{ type: "text", text: "hi" }]);
 * assert.deepEqual(dropped, ["output[0].lang"]);
 * assert.throws(() => parseContent([{ type: "text", text: "hi", lang: "en" }], "output"), /lang/);
 * ```
 */
export function parseContent(
  value: unknown,
  path: string,
  options: ParseContentOptions = {},
): ContentBlock[] {
  if (typeof value === "string") {
    if (value === "" && !options.allowEmpty) {
      invalid(`${path}: must not be empty`);
    }
    return value === "" ? [] : [{ type: "text", text: value }];
  }
  if (!isArray(value)) {
    invalid(`${path}: expected a string or an array of content blocks, got ${describe(value)}`);
  }
  if (value.length === 0 && !options.allowEmpty) {
    invalid(`${path}: must hold at least one content block`);
  }
  const onUnknown = options.onUnknownField;
  let replaced: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const checked = checkBlock(value[i], path, i, onUnknown);
    if (checked !== value[i]) (replaced ??= [...value])[i] = checked;
  }
  return (replaced ?? value) as ContentBlock[];
}

// The path of a block is built only for an error: content is checked on every
// run, and valid content is the rule. Returns the block, or a copy without
// its unknown fields when `onUnknown` is given.
function checkBlock(
  block: unknown,
  list: string,
  index: number,
  onUnknown: ((block: string, key: string) => void) | undefined,
): unknown {
  if (!isRecord(block)) {
    invalid(`${list}[${index}]: expected a content block object, got ${describe(block)}`);
  }
  const record = block as Record<string, unknown>;
  const type = record.type;
  if (
    type !== "text" && type !== "image" && type !== "resource" && type !== "file" &&
    type !== "data"
  ) {
    invalid(
      `${list}[${index}].type: expected "text", "image", "resource", "file" or "data", got ${
        describe(type)
      }`,
    );
  }
  const allowed = BLOCK_FIELDS[type];
  let known: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      if (!onUnknown) {
        invalid(`${list}[${index}]: unknown field "${key}" on a ${type} block`);
      }
      onUnknown(`${list}[${index}]`, key);
      known ??= {};
    }
  }
  if (known) {
    for (const key of allowed) if (record[key] !== undefined) known[key] = record[key];
  }
  const result = known ?? block;
  if (type === "text") requireString(record, "text", false, list, index);
  else if (type === "image") {
    requireString(record, "mediaType", false, list, index);
    requireString(record, "data", false, list, index);
  } else if (type === "file") {
    requireString(record, "mediaType", false, list, index);
    requireString(record, "data", false, list, index);
    requireString(record, "filename", true, list, index);
  } else if (type === "data") {
    if (record.data === undefined) {
      invalid(`${list}[${index}].data: a data block needs its value`);
    }
  } else {
    requireString(record, "uri", false, list, index);
    requireString(record, "mediaType", true, list, index);
    requireString(record, "text", true, list, index);
    requireString(record, "filename", true, list, index);
  }
  return result;
}

function requireString(
  record: Record<string, unknown>,
  key: string,
  optional: boolean,
  list: string,
  index: number,
): void {
  const field = record[key];
  if (field === undefined && optional) return;
  if (typeof field !== "string") {
    invalid(`${list}[${index}].${key}: expected a string, got ${describe(field)}`);
  }
}

/** A short description of a value's kind for error messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (isArray(value)) return "an array";
  if (typeof value === "string") {
    return value.length > 40 ? `a string "${value.slice(0, 40)}…"` : `"${value}"`;
  }
  if (typeof value === "number" || typeof value === "boolean") {
    return Object.is(value, -0) ? "-0" : String(value);
  }
  return typeof value === "object" ? "an object" : typeof value;
}
