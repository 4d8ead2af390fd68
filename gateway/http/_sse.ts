/**
 * One subscriber of a live task as a Server-Sent Events body: the frames go
 * straight into the response stream's queue, which is bounded in bytes, so a
 * client that stops reading is closed with an error event instead of being
 * buffered without end.
 */
import { type GatewayError, internalError } from "../core/_errors.ts";
import { unserializable, utf8 } from "./_http.ts";

/** A stream frame (`StreamResponse` JSON): a task, a status update or an artifact update. */
export type StreamEvent = Record<string, unknown>;

/** How a binding writes one event of a stream, and the error that ends one. */
export interface StreamFraming {
  /** The `data:` text of one event. */
  event(event: StreamEvent): string;
  /** The `data:` text of the error that ends the stream. */
  error(error: GatewayError): string;
  /** The SSE `event:` type of that error frame, if it has one (A2A 0.3 HTTP+JSON: `error`). */
  readonly errorEvent?: string;
}

/**
 * Bytes of one SSE frame: its `event:` type, if any, and its `id` (a task's
 * generation: what `Last-Event-ID` resumes after), if any.
 */
export function sseFrame(data: string, event?: string, id?: number): Uint8Array {
  const head = (event ? `event: ${event}\n` : "") + (id === undefined ? "" : `id: ${id}\n`);
  return utf8(`${head}data: ${data}\n\n`);
}

/** Where a subscriber is: taking events, or done (ended, failed or gone). */
type SubscriberState = "open" | "closed";

/**
 * The SSE body of one subscriber. `deliver` writes an event (the last one
 * closes the stream); once more than `maxBufferedBytes` wait unread, the
 * next event closes the stream with an error frame instead. Each `onClose`
 * runs once, however the subscriber ends.
 */
export class TaskSubscriber {
  readonly body: ReadableStream<Uint8Array>;
  /** Its client activated the seam extension: it hears the task's descendants. */
  seam = false;
  #state: SubscriberState = "open";
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly #framing: StreamFraming;
  readonly #maxBufferedBytes: number;
  #onClose: (() => void) | undefined;

  constructor(framing: StreamFraming, maxBufferedBytes: number) {
    this.#framing = framing;
    this.#maxBufferedBytes = maxBufferedBytes;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.#close(), // the client went away; the task goes on
    }, { highWaterMark: maxBufferedBytes, size: (chunk) => chunk.byteLength });
  }

  /** Whether the subscriber still takes events. */
  get open(): boolean {
    return this.#state === "open";
  }

  /**
   * Run `fn` once when the subscriber ends (at once if it has ended), after
   * those given before it: the task forgets it, and its principal's stream
   * slot is released (_operations.ts), whichever way it ends.
   */
  set onClose(fn: () => void) {
    const before = this.#onClose;
    if (this.#state === "closed") fn();
    else this.#onClose = before ? () => (before(), fn()) : fn;
  }

  /** Write `event` (with its SSE `id`, when given); `final` closes the stream after it. */
  deliver(event: StreamEvent, final: boolean, id?: number): void {
    if (this.#state !== "open") return;
    let frame: Uint8Array;
    try {
      frame = sseFrame(this.#framing.event(event), undefined, id);
    } catch (error) {
      this.fail(
        unserializable(error, "a task event"),
      );
      return;
    }
    const queued = this.#maxBufferedBytes - (this.#controller.desiredSize ?? 0);
    // One event always fits an empty queue, whatever its size; beyond that
    // the client is not keeping up.
    if (queued > 0 && queued + frame.byteLength > this.#maxBufferedBytes) {
      this.fail(
        internalError(
          `Stream closed: the client is not reading it (more than ${this.#maxBufferedBytes} bytes wait unread); the task goes on (GetTask, SubscribeToTask)`,
          { metadata: { reason: "SLOW_CONSUMER", limit: String(this.#maxBufferedBytes) } },
        ),
      );
      return;
    }
    this.#controller.enqueue(frame);
    if (final) this.#end();
  }

  /** End the stream (after its last event, when nothing more will come). */
  end(): void {
    if (this.#state === "open") this.#end();
  }

  /** End the stream with an error frame. */
  fail(error: GatewayError): void {
    if (this.#state !== "open") return;
    try {
      this.#controller.enqueue(sseFrame(this.#framing.error(error), this.#framing.errorEvent));
    } catch {
      // Nothing more can be written; closing is all that is left.
    }
    this.#end();
  }

  #end(): void {
    try {
      this.#controller.close();
    } catch {
      // Already closed by the client.
    }
    this.#close();
  }

  #close(): void {
    if (this.#state === "closed") return;
    this.#state = "closed";
    const onClose = this.#onClose;
    this.#onClose = undefined;
    onClose?.();
  }
}

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;

/** The SSE response for a subscriber's body. */
export function sseResponse(
  body: ReadableStream<Uint8Array>,
  headers?: Record<string, string>,
): Response {
  return new Response(body, { headers: headers ? { ...SSE_HEADERS, ...headers } : SSE_HEADERS });
}
