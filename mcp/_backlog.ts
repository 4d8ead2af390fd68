/**
 * What a session's POST event streams hold that the client has not read yet.
 *
 * The SDK's web-standard transport enqueues every message on the request's
 * event stream at once (its `send` never waits), so a client that never
 * reads would make the server hold all the progress it streamed. Here each
 * event stream is read on the server's side into a queue that is counted,
 * and handed to the client only as fast as it reads; a progress notification
 * is sent, then waits while the count is over the bound. The call's
 * `ProgressStream` keeps one notification in flight, so meanwhile its text
 * is coalesced, the oldest dropped past `maxProgressChars`, and the next
 * notification says how much was not delivered: as on stdio.
 */
import type { McpMessage, McpTransport } from "./types.ts";

/**
 * The unread bytes of one session's POST event streams (its GET stream,
 * which carries only list changes, is not counted).
 */
export class Backlog {
  readonly #max: number;
  #bytes = 0;
  #waiters: Array<() => void> = [];
  #state: "open" | "closed" = "open";

  constructor(maxBytes: number) {
    this.#max = maxBytes;
  }

  /** Bytes queued for the client, not yet taken by it. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Resolves once the backlog is within the bound (at once if it is, or once closed). */
  room(): Promise<void> {
    if (this.#state === "closed" || this.#bytes <= this.#max) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Wait no more: the session ended. */
  close(): void {
    this.#state = "closed";
    this.#wake();
  }

  /** `body` as the client gets it: read eagerly here, handed out as the client reads. */
  wrap(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    const queue: Uint8Array[] = [];
    let end: { error?: unknown } | undefined;
    let arrived: (() => void) | undefined;
    const pump = async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          queue.push(value);
          this.#add(value.byteLength);
          arrived?.();
        }
        end = {};
      } catch (error) {
        end = { error };
      }
      arrived?.();
    };
    const pumping = pump();
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        while (queue.length === 0 && end === undefined) {
          await new Promise<void>((resolve) => arrived = resolve);
        }
        arrived = undefined;
        const chunk = queue.shift();
        if (chunk !== undefined) {
          this.#add(-chunk.byteLength);
          controller.enqueue(chunk);
        } else if (end?.error !== undefined) controller.error(end.error);
        else controller.close();
      },
      cancel: async (reason) => {
        for (const chunk of queue.splice(0)) this.#add(-chunk.byteLength);
        await reader.cancel(reason);
        await pumping;
      },
    }, { highWaterMark: 0 });
  }

  #add(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes <= this.#max) this.#wake();
  }

  #wake(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}

/**
 * `transport`, with a progress notification waiting, once sent, until the
 * backlog is within its bound. Everything else goes out as before.
 */
export class BoundedTransport implements McpTransport {
  readonly #inner: McpTransport;
  readonly #backlog: Backlog;

  constructor(inner: McpTransport, backlog: Backlog) {
    this.#inner = inner;
    this.#backlog = backlog;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }
  set onmessage(handler: McpTransport["onmessage"]) {
    this.#inner.onmessage = handler;
  }
  get onmessage(): McpTransport["onmessage"] {
    return this.#inner.onmessage;
  }
  set onclose(handler: McpTransport["onclose"]) {
    this.#inner.onclose = handler;
  }
  get onclose(): McpTransport["onclose"] {
    return this.#inner.onclose;
  }
  set onerror(handler: McpTransport["onerror"]) {
    this.#inner.onerror = handler;
  }
  get onerror(): McpTransport["onerror"] {
    return this.#inner.onerror;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  async send(message: McpMessage, options?: unknown): Promise<void> {
    await this.#inner.send(message, options);
    if (message.method === "notifications/progress") await this.#backlog.room();
  }

  close(): Promise<void> {
    this.#backlog.close();
    return this.#inner.close();
  }
}
