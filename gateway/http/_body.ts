/**
 * Request bodies: JSON only, bounded in size, in read time (a slow-loris body
 * is cut off) and in nesting depth (checked on the text before it is parsed,
 * so no deep value ever reaches the store, a provider or a serializer).
 */
import { GatewayError, invalidParams, invalidRequest, refusedWith } from "../core/_errors.ts";

/** How a body is bounded. */
export interface BodyLimits {
  /** The largest body, in bytes (413 beyond). */
  readonly maxBytes: number;
  /** How long reading it may take, in ms (408 beyond). */
  readonly timeoutMs: number;
  /** How deep its JSON may nest (objects and arrays; the body itself is level 1). */
  readonly maxDepth: number;
  /** The reads under way, timed out together. */
  readonly deadlines: BodyDeadlines;
}

/**
 * A read under way and how to stop it; `expire` is let go once it is done,
 * so the set's entry does not keep the read's graph (_short_lived_map.ts).
 */
interface PendingRead {
  readonly at: number;
  expire: (() => void) | undefined;
}

/**
 * The deadlines of the body reads under way, checked by one timer that runs
 * only while reads are pending (every quarter of the timeout, at most once a
 * second): a timer per request cost more than the rest of reading a small
 * body (bench/gateway_cpu.ts: a setTimeout per request added ~20% CPU per
 * SendMessage). A read is cut off between its timeout and a tick later.
 */
export class BodyDeadlines {
  readonly #pending = new Set<PendingRead>();
  readonly #timeoutMs: number;
  readonly #tickMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#tickMs = Math.max(5, Math.min(1_000, Math.floor(timeoutMs / 4)));
  }

  /** Watch a read; `expire` runs once if it is still pending past the timeout. */
  watch(expire: () => void): PendingRead {
    const read: PendingRead = { at: Date.now() + this.#timeoutMs, expire };
    this.#pending.add(read);
    this.#timer ??= setTimeout(this.#tick, this.#tickMs);
    return read;
  }

  /**
   * The read finished (or failed). The timer is left to its next tick, which
   * stops it when nothing is pending: arming and clearing it per request is
   * what this class exists to avoid.
   */
  done(read: PendingRead): void {
    read.expire = undefined;
    this.#pending.delete(read);
  }

  /** Stop the timer (the gateway closes). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
  }

  readonly #tick = (): void => {
    this.#timer = undefined;
    const now = Date.now();
    for (const read of this.#pending) {
      if (read.at > now) continue;
      const expire = read.expire;
      this.done(read);
      expire?.();
    }
    if (this.#pending.size > 0) this.#timer = setTimeout(this.#tick, this.#tickMs);
  };
}

/** Whether a Content-Type is JSON (absent counts as JSON). */
export function isJsonContentType(header: string | null): boolean {
  // The common header, answered without splitting and lower-casing it (an array and two strings).
  if (header === null || header === "application/json") return true;
  const type = header.split(";", 1)[0].trim().toLowerCase();
  return type === "application/json" || type === "application/a2a+json";
}

/** Refuse a body whose Content-Type is not JSON. */
export function assertJsonContentType(request: Request): void {
  const header = request.headers.get("content-type");
  if (!isJsonContentType(header)) {
    throw new GatewayError(
      "contentType",
      `Content type not supported: "${header!.slice(0, 100)}"; send application/json`,
    );
  }
}

/**
 * A JSON body (content type checked, size, time and depth bounded), or a
 * -32700 parse error. Not an `async` function over an `async` read: a
 * declared body (what every HTTP/1.1 client sends) is read, checked and
 * parsed in one callback of `request.text()` (bench/README.md, "Gateway",
 * session 6: two promises and two awaits fewer per request). A failure
 * before the read (content type, declared size) throws at once.
 */
export function readJsonBody(request: Request, limits: BodyLimits): Promise<unknown> {
  assertJsonContentType(request);
  const parse = (text: string) => parseJson(text, limits);
  const declared = request.headers.get("content-length");
  if (declared === null) return readStreamed(request, limits).then(parse);
  const length = Number(declared);
  if (!Number.isFinite(length) || length > limits.maxBytes) {
    discardBody(request);
    throw tooLarge(limits.maxBytes);
  }
  return readDeclared(request, limits, parse);
}

/** `text` parsed, once its depth is checked. */
function parseJson(text: string, limits: BodyLimits): unknown {
  if (exceedsDepth(text, limits.maxDepth)) {
    throw invalidParams(
      `the request nests deeper than ${limits.maxDepth} levels of objects and arrays`,
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
  return refusedWith(413, `Request body too large: the limit is ${limit} bytes`);
}

const decoder = new TextDecoder();

/** A body of undeclared length as text, refused with 413 beyond `maxBytes`, 408 when slow. */
async function readStreamed(request: Request, limits: BodyLimits): Promise<string> {
  const body = request.body;
  if (!body) return "";
  const reader = body.getReader();
  let expired = false;
  const watched = limits.deadlines.watch(() => {
    expired = true;
    reader.cancel().catch(() => {});
  });
  try {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch {
        throw unreadable();
      }
      if (expired) throw timedOut(limits.timeoutMs);
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
    limits.deadlines.done(watched);
  }
}

/**
 * A body whose length was declared (and checked), as `then` makes of its
 * text: `request.text()`, the runtime's fast path (bench/gateway_cpu.ts: a
 * reader loop per request cost more CPU per SendMessage under Deno.serve),
 * cut off at the read timeout.
 */
function readDeclared<T>(
  request: Request,
  limits: BodyLimits,
  then: (text: string) => T,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const read = limits.deadlines.watch(() => reject(timedOut(limits.timeoutMs)));
    request.text().then((text) => {
      limits.deadlines.done(read);
      try {
        resolve(then(text));
      } catch (error) {
        reject(error);
      }
    }, () => {
      limits.deadlines.done(read);
      reject(unreadable());
    });
  });
}

function unreadable(): GatewayError {
  return invalidRequest("the request body could not be read (the client went away)");
}

function timedOut(timeoutMs: number): GatewayError {
  return refusedWith(408, `Request timeout: the body did not arrive within ${timeoutMs} ms`);
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
  // A text with no more than `max` opening brackets cannot nest deeper: a
  // few native searches clear the common small body without the scan.
  let opens = 0;
  for (let at = text.indexOf("{"); at !== -1 && opens <= max; at = text.indexOf("{", at + 1)) {
    opens++;
  }
  for (let at = text.indexOf("["); at !== -1 && opens <= max; at = text.indexOf("[", at + 1)) {
    opens++;
  }
  if (opens <= max) return false;
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
