// Content between seam blocks and the `@a2a-js/sdk` client's parts (its
// TypeScript shapes: oneofs as `{$case, value}`, enums as numbers).
import type { ContentBlock, JsonValue } from "@seam/host";
import type { Message, Part, SendMessageRequest } from "@a2a-js/sdk";

/** A2A task states, as the SDK client numbers them (the proto enum). */
export const TaskStates = {
  SUBMITTED: 1,
  WORKING: 2,
  COMPLETED: 3,
  FAILED: 4,
  CANCELED: 5,
  INPUT_REQUIRED: 6,
  REJECTED: 7,
  AUTH_REQUIRED: 8,
} as const;

const STATE_NAMES: Record<number, string> = {
  1: "TASK_STATE_SUBMITTED",
  2: "TASK_STATE_WORKING",
  3: "TASK_STATE_COMPLETED",
  4: "TASK_STATE_FAILED",
  5: "TASK_STATE_CANCELED",
  6: "TASK_STATE_INPUT_REQUIRED",
  7: "TASK_STATE_REJECTED",
  8: "TASK_STATE_AUTH_REQUIRED",
};

/** The wire name of a state number (`TASK_STATE_COMPLETED`), or a description of a bad one. */
export function stateName(state: number): string {
  return STATE_NAMES[state] ?? `an unknown state (${state})`;
}

/** Whether a state ends the task for good. */
export function isTerminal(state: number): boolean {
  return state === TaskStates.COMPLETED || state === TaskStates.FAILED ||
    state === TaskStates.CANCELED || state === TaskStates.REJECTED;
}

/** A piece of remote output: a content block, or a `data` part's value. */
export type Piece = ContentBlock | { readonly type: "data"; readonly data: JsonValue };

const ROLE_USER = 1;

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function bytesOf(base64: string): Uint8Array {
  const binary = atob(base64.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A data part (with `metadata`, e.g. ADK's `adk_type`). */
export function dataPart(data: JsonValue, metadata?: Part["metadata"]): Part {
  return part({ $case: "data", value: data as never }, "", metadata);
}

function part(
  content: Part["content"],
  mediaType = "",
  metadata?: Part["metadata"],
  filename = "",
): Part {
  return { content, metadata, filename, mediaType };
}

/**
 * The parts for content blocks: text → `text`, image and file → `raw`
 * bytes (with the file's name), data → `data`, an inlined resource →
 * `text` with `metadata.uri`, a resource reference → `url` (with its name).
 */
export function blocksToParts(blocks: readonly ContentBlock[]): Part[] {
  const parts: Part[] = new Array(blocks.length);
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    if (block.type === "text") {
      parts[i] = part({ $case: "text", value: block.text });
    } else if (block.type === "image" || block.type === "file") {
      // The SDK types raw bytes as a Node Buffer; any Uint8Array serializes.
      const value = bytesOf(block.data) as unknown as Extract<
        Part["content"],
        { $case: "raw" }
      >["value"];
      const name = block.type === "file" ? block.filename : undefined;
      parts[i] = part({ $case: "raw", value }, block.mediaType, undefined, name);
    } else if (block.type === "data") {
      parts[i] = part(
        { $case: "data", value: block.data } as Part["content"],
        "application/json",
      );
    } else if (block.text !== undefined) {
      parts[i] = part({ $case: "text", value: block.text }, block.mediaType, { uri: block.uri });
    } else {
      parts[i] = part(
        { $case: "url", value: block.uri },
        block.mediaType,
        undefined,
        block.filename,
      );
    }
  }
  return parts;
}

/** Google ADK's tool traffic (`metadata.adk_type`): the agent's calls and their results, not its words. */
const ADK_TOOL_TRAFFIC = new Set(["function_call", "function_response"]);

/**
 * The pieces of remote parts: `text` → a text block (a resource block when
 * `resourceUris` and the part carries `metadata.uri`, the seam gateway's
 * form of an inlined resource), `raw` → an image block (a `data:` resource
 * for other bytes), `url` → a resource block, `data` → a data piece.
 * A part with no content is skipped; so is, in `output` (an artifact's
 * parts), a data part of ADK's tool traffic (a function call or its
 * response), which ADK streams as artifacts beside the agent's words.
 */
export function partsToPieces(
  parts: readonly Part[] | undefined,
  resourceUris: boolean,
  output = false,
): Piece[] {
  const pieces: Piece[] = [];
  if (!parts) return pieces;
  for (const p of parts) {
    const content = p?.content;
    if (!content) continue;
    const mediaType = typeof p.mediaType === "string" && p.mediaType !== ""
      ? p.mediaType
      : undefined;
    switch (content.$case) {
      case "text": {
        const uri = p.metadata?.uri;
        if (resourceUris && typeof uri === "string") {
          pieces.push(
            mediaType
              ? { type: "resource", uri, mediaType, text: String(content.value) }
              : { type: "resource", uri, text: String(content.value) },
          );
        } else {
          pieces.push({ type: "text", text: String(content.value) });
        }
        break;
      }
      case "raw": {
        const value = content.value as unknown;
        const data = value instanceof Uint8Array
          ? base64Of(value)
          : typeof value === "string"
          ? value
          : "";
        if (mediaType?.startsWith("image/")) pieces.push({ type: "image", mediaType, data });
        else {
          pieces.push({
            type: "file",
            mediaType: mediaType ?? "application/octet-stream",
            data,
            ...(p.filename ? { filename: p.filename } : {}),
          });
        }
        break;
      }
      case "url":
        pieces.push({
          type: "resource",
          uri: String(content.value),
          ...(mediaType ? { mediaType } : {}),
          ...(p.filename ? { filename: p.filename } : {}),
        });
        break;
      case "data":
        if (output && ADK_TOOL_TRAFFIC.has(p.metadata?.adk_type as string)) break;
        pieces.push({ type: "data", data: (content.value ?? null) as JsonValue });
        break;
    }
  }
  return pieces;
}

/** The text of pieces (text blocks and inlined resources), joined. */
export function textOfPieces(pieces: readonly Piece[]): string {
  let text = "";
  for (const piece of pieces) {
    if (piece.type === "text") text += piece.text;
    else if (piece.type === "resource" && piece.text !== undefined) text += piece.text;
  }
  return text;
}

/** Append `more` to `pieces`, merging a text piece into a text piece before it. */
export function appendPieces(pieces: Piece[], more: readonly Piece[]): void {
  for (const piece of more) {
    const last = pieces[pieces.length - 1];
    if (piece.type === "text" && last?.type === "text") {
      pieces[pieces.length - 1] = { type: "text", text: last.text + piece.text };
    } else {
      pieces.push(piece);
    }
  }
}

/** A user message in the SDK's shape. */
export function userMessage(
  parts: Part[],
  fields: {
    readonly contextId?: string;
    readonly taskId?: string;
    readonly metadata?: { [key: string]: unknown };
    readonly extensions?: string[];
  },
): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: fields.contextId ?? "",
    taskId: fields.taskId ?? "",
    role: ROLE_USER,
    parts,
    metadata: fields.metadata,
    extensions: fields.extensions ?? [],
    referenceTaskIds: [],
  };
}

/**
 * A `SendMessage` / `SendStreamingMessage` request for `message`, no history
 * asked back; `returnImmediately`: answer with the task at once (polling).
 */
export function sendRequest(
  tenant: string,
  message: Message,
  returnImmediately: boolean,
): SendMessageRequest {
  return {
    tenant,
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      historyLength: 0,
      returnImmediately,
    },
    metadata: undefined,
  };
}
