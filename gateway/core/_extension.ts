/** Reading the seam extension from a message. */
import { isRecord } from "@seam/host";
import { assertSubagentMaxDepth, SUBAGENT_START_FIELDS } from "@seam/subagent";
import { invalidParams } from "./_errors.ts";
import { type A2AMetadata, SEAM_EXTENSION_URI } from "../types.ts";
import { freeze, isArray } from "./_builtins.ts";

const FIELDS = [
  "outputSchema",
  "maxDepth",
  "toolFilter",
  "persona",
  "budget",
  "depth",
  "path",
  "answer",
] as const;
const KNOWN: ReadonlySet<string> = new Set(FIELDS);

/** The seam extension of one message, as accepted. */
export interface AcceptedExtension {
  /** Whether the message carried the extension at all. */
  readonly used: boolean;
  /** The caller's depth (0 when not given). */
  readonly depth: number;
  /** The start-time request fields, each as given (the service checks them). */
  readonly outputSchema?: unknown;
  readonly maxDepth?: unknown;
  readonly toolFilter?: unknown;
  readonly persona?: unknown;
  /** The caller's run budget (already tightened over there); the service checks and enforces it. */
  readonly budget?: unknown;
  /** The caller's run path (the run ids from its root down to its own run), when given. */
  readonly path?: readonly string[];
  /** On a message to an interrupted task: the answer to the input request it waits on. */
  readonly answer?: unknown;
}

const UNUSED: AcceptedExtension = freeze({ used: false, depth: 0 });

function invalid(message: string): never {
  throw invalidParams(message);
}

/**
 * Read the seam extension from `message.metadata`. A wrongly placed one (in
 * the request's metadata), a non-object, an unknown field or a malformed
 * `depth` is rejected loudly.
 */
export function readExtension(
  messageMetadata: A2AMetadata | undefined,
  requestMetadata: A2AMetadata | undefined,
): AcceptedExtension {
  if (requestMetadata && requestMetadata[SEAM_EXTENSION_URI] !== undefined) {
    invalid(
      `the seam extension belongs in message.metadata["${SEAM_EXTENSION_URI}"], not the request's metadata`,
    );
  }
  const value = messageMetadata?.[SEAM_EXTENSION_URI];
  if (value === undefined) return UNUSED;
  const path = `message.metadata["${SEAM_EXTENSION_URI}"]`;
  if (!isRecord(value)) {
    invalid(`${path} must be an object`);
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KNOWN.has(key)) {
      invalid(`${path} has unknown field "${key.slice(0, 60)}" (known: ${FIELDS.join(", ")})`);
    }
  }
  const depth = record.depth;
  try {
    assertSubagentMaxDepth(depth, `${path}.depth`);
  } catch (error) {
    invalid((error as Error).message);
  }
  return {
    used: true,
    path: readPath(record.path, `${path}.path`),
    depth: depth ?? 0,
    outputSchema: record.outputSchema,
    maxDepth: record.maxDepth,
    toolFilter: record.toolFilter,
    persona: record.persona,
    budget: record.budget,
    answer: record.answer,
  };
}

/** The most run ids a caller's `path` may hold, and the longest id. */
export const MAX_RUN_PATH = 64;
const MAX_RUN_ID = 256;

function readPath(value: unknown, where: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!isArray(value) || value.length > MAX_RUN_PATH) {
    invalid(`${where} must be an array of at most ${MAX_RUN_PATH} run ids`);
  }
  for (const [i, id] of value.entries()) {
    if (typeof id !== "string" || id === "" || id.length > MAX_RUN_ID) {
      invalid(`${where}[${i}] must be a non-empty string of at most ${MAX_RUN_ID} characters`);
    }
  }
  return freeze([...value as string[]]);
}

/** The extension without its `maxDepth` (which a continuation may repeat). */
export function withoutMaxDepth(ext: AcceptedExtension): AcceptedExtension {
  return { ...ext, maxDepth: undefined };
}

/** Whether the extension carries any start-time field (anything but `depth`). */
export function hasStartFields(ext: AcceptedExtension): boolean {
  return SUBAGENT_START_FIELDS.some((spec) => ext[spec.field] !== undefined);
}
