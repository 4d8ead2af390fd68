/**
 * An MCP transport over a pair of byte streams, newline-delimited JSON-RPC
 * (the stdio framing): a line longer than {@linkcode MAX_LINE_BYTES} is
 * refused (the connection fails: a hostile client cannot grow the buffer),
 * writing goes through the stream's own queue. Unlike the
 * SDK's stdio transport on `node:process` (whose pipe writes are synchronous
 * on Linux, so a client that never reads stalls the whole process), a
 * client that never reads only leaves writes waiting here.
 */
import type { McpMessage, McpTransport } from "./types.ts";

/** The longest message line read (10 MiB, as the SDK's own stdio buffer). */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** A transport on `input` and `output`. */
export class StreamTransport implements McpTransport {
  onmessage?: (message: McpMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #input: ReadableStream<Uint8Array>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  #line = "";
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #state: "new" | "open" | "closed" = "new";

  constructor(input: ReadableStream<Uint8Array>, output: WritableStream<Uint8Array>) {
    this.#input = input;
    this.#writer = output.getWriter();
  }

  start(): Promise<void> {
    if (this.#state !== "new") {
      return Promise.reject(new Error("Cannot start the stdio transport: already started"));
    }
    this.#state = "open";
    this.#reader = this.#input.getReader();
    this.#read().catch((error) => this.onerror?.(error));
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    const reader = this.#reader!;
    try {
      while (this.#state === "open") {
        const { done, value } = await reader.read();
        if (done) break;
        this.#take(this.#decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      if (this.#state === "open") this.onerror?.(error as Error);
    } finally {
      await this.close();
    }
  }

  /** Split what arrived into lines; each is one message. */
  #take(text: string): void {
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      const line = (this.#line + text.slice(start, end)).replace(/\r$/, "");
      this.#line = "";
      start = end + 1;
      if (line.trim() === "") continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch (error) {
        this.onerror?.(new SyntaxError(`Cannot read a message: ${(error as Error).message}`));
        continue;
      }
      if (message === null || typeof message !== "object" || Array.isArray(message)) {
        this.onerror?.(new TypeError("Cannot read a message: it is not a JSON-RPC object"));
        continue;
      }
      this.onmessage?.(message as McpMessage);
      if (this.#state !== "open") return;
    }
    this.#line += text.slice(start);
    // A UTF-16 unit is at least one byte: the bound holds in bytes too.
    if (this.#line.length > MAX_LINE_BYTES) {
      this.#line = "";
      throw new RangeError(`Cannot read a message: longer than ${MAX_LINE_BYTES} bytes`);
    }
  }

  send(message: McpMessage): Promise<void> {
    if (this.#state !== "open") {
      return Promise.reject(new Error("Cannot send: the stdio transport is closed"));
    }
    return this.#writer.write(this.#encoder.encode(`${JSON.stringify(message)}\n`));
  }

  close(): Promise<void> {
    if (this.#state === "closed") return Promise.resolve();
    this.#state = "closed";
    this.#line = "";
    this.#reader?.cancel().catch(() => {});
    // The peer sees the end once what was written is flushed; not awaited: writes
    // still waiting for a peer that never reads are left to the stream.
    this.#writer.close().catch(() => {});
    this.onclose?.();
    return Promise.resolve();
  }
}
