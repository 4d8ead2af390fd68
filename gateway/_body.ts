/**
 * Request bodies: JSON only, bounded in size, in read time (a slow-loris body
 * is cut off) and in nesting depth (checked on the text before it is parsed,
 * so no deep value ever reaches the store, a provider or a serializer).
 */
import { GatewayError } from "./_errors.ts";

/** How a body is bounded. */
export interface BodyLimits {
  /** The largest body, in bytes (413 beyond). */
  readonly maxBytes: number;
  /** How long reading it may take, in ms (408 beyond). */
  readonly timeoutMs: number;
  /** How deep its JSON may nest (objects and arrays; the body itself is level 1). */
  readonly maxDepth: number;
}

/** Whether a Content-Type is JSON (absent counts as JSON). */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return true;
  const type = header.split(";", 1)[0].trim().toLowerCase();
  return type === "application/json" || type === "application/a2a+json";
}

/** Refuse a body whose Content-Type is not JSON. */
export function assertJsonContentType(request: Request): void {
  const header = request.headers.get("content-type");
  if (!isJsonContentType(header)) {
    throw new GatewayError(
      "contentType",
      `Content type not supported: "${
        header!.slice(0, 100)
      }"; send the request as application/json`,
    );
  }
}

/** A JSON body (content type checked, size, time and depth bounded), or a -32700 parse error. */
export async function readJsonBody(request: Request, limits: BodyLimits): Promise<unknown> {
  assertJsonContentType(request);
  const text = await readBody(request, limits);
  if (exceedsDepth(text, limits.maxDepth)) {
    throw new GatewayError(
      "invalidParams",
      `Invalid params: the request nests deeper than ${limits.maxDepth} levels of objects and arrays (the limit for any body)`,
      { metadata: { limit: String(limits.maxDepth) } },
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError("parse", "Parse error: the request body is not valid JSON");
  }
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError(
    "invalidRequest",
    `Request body too large: the limit is ${limit} bytes`,
    { httpStatus: 413 },
  );
}

const decoder = new TextDecoder();

/** The body as text, refused with 413 beyond `maxBytes` (declared or streamed), 408 when slow. */
export async function readBody(request: Request, limits: BodyLimits): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    const length = Number(declared);
    if (!Number.isFinite(length) || length > limits.maxBytes) {
      discardBody(request);
      throw tooLarge(limits.maxBytes);
    }
  }
  const body = request.body;
  if (!body) return "";
  const reader = body.getReader();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, limits.timeoutMs);
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch {
        throw new GatewayError(
          "invalidRequest",
          "Invalid request: the request body could not be read (the client went away mid-body)",
        );
      }
      if (timedOut) {
        throw new GatewayError(
          "invalidRequest",
          `Request timeout: the body did not arrive within ${limits.timeoutMs} ms`,
          { httpStatus: 408 },
        );
      }
      if (step.done) break;
      size += step.value.byteLength;
      if (size > limits.maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(limits.maxBytes);
      }
      chunks.push(step.value);
    }
    if (chunks.length === 1) return decoder.decode(chunks[0]);
    const all = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return decoder.decode(all);
  } finally {
    clearTimeout(timer);
  }
}

/** Drop a body we will not read. */
export function discardBody(request: Request): void {
  if (!request.bodyUsed && request.body && !request.body.locked) {
    request.body.cancel().catch(() => {});
  }
}

/**
 * Whether JSON `text` nests objects and arrays deeper than `max` (brackets
 * inside strings do not count). Linear in the text, no allocation.
 */
export function exceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}
