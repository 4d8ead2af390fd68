// Newline-delimited JSON framing of the agent's stdout, tolerant of what real
// agents print: a line that is not a JSON object is logged and skipped (a
// stray banner or debug print must not end a run), while a line over the
// size limit breaks the protocol (it cannot be skipped without buffering it).

import { cut } from "./_failure.ts";

/** Where framed stdout goes. */
export interface FrameSink {
  /** A JSON object read from one line of `bytes` bytes. */
  message(message: Record<string, unknown>, bytes: number): void;
  /** A line that is not a JSON object (already cut to a loggable length). */
  garbage(line: string): void;
}

/** Thrown (via `push`) for a line longer than the limit. */
export class OversizedMessageError extends Error {
  /** The limit that was passed, in bytes. */
  readonly maxMessageBytes: number;
  /** Make the error for `maxMessageBytes`. */
  constructor(maxMessageBytes: number) {
    super(`the ACP agent sent a message larger than ${maxMessageBytes} bytes (maxMessageBytes)`);
    this.name = "OversizedMessageError";
    this.maxMessageBytes = maxMessageBytes;
  }
}

const NEWLINE = 0x0a;
const GARBAGE_CHARS = 200;

/** Splits stdout chunks into lines and parses each. */
export class LineFramer {
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #max: number;
  #sink: FrameSink;
  #decoder = new TextDecoder();

  constructor(maxMessageBytes: number, sink: FrameSink) {
    this.#max = maxMessageBytes;
    this.#sink = sink;
  }

  /**
   * Feed one chunk.
   *
   * @throws {OversizedMessageError} when a line outgrows the limit.
   */
  push(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.#pendingBytes + (end - start) > this.#max) {
        this.#pending = [];
        this.#pendingBytes = 0;
        throw new OversizedMessageError(this.#max);
      }
      if (newline === -1) {
        this.#pending.push(chunk.slice(start));
        this.#pendingBytes += chunk.length - start;
        return;
      }
      this.#line(this.#take(chunk.subarray(start, newline)));
      start = newline + 1;
    }
  }

  /** Parse a final line left without a newline. */
  flush(): void {
    if (this.#pendingBytes > 0) this.#line(this.#take(new Uint8Array(0)));
  }

  #take(tail: Uint8Array): Uint8Array {
    if (this.#pending.length === 0) return tail;
    const line = new Uint8Array(this.#pendingBytes + tail.length);
    let offset = 0;
    for (const part of this.#pending) {
      line.set(part, offset);
      offset += part.length;
    }
    line.set(tail, offset);
    this.#pending = [];
    this.#pendingBytes = 0;
    return line;
  }

  #line(bytes: Uint8Array): void {
    const text = this.#decoder.decode(bytes).trim();
    if (text === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      this.#sink.message(value as Record<string, unknown>, bytes.length);
    } else {
      this.#sink.garbage(cut(text, GARBAGE_CHARS));
    }
  }
}
