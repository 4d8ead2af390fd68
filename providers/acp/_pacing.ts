// Backpressure between the ACP server and its client. The SDK chains every
// message it sends on a promise and reads the client's input as fast as it
// comes, so a client that sends requests and never reads the answers grew
// the server's memory without bound (one queued answer per request). Here
// what the server writes queues where it can be measured, and the client's
// input is read only while less than a bound of it waits for the client.

/** Output waiting for the client past which the server stops reading the client's input. */
export const MAX_QUEUED_BYTES = 1024 * 1024;

const noop = () => {};

/** The two ends the SDK's framing is given, paced against each other. */
export interface Pacing {
  /** The client's input, read from only while the queued output is under {@linkcode MAX_QUEUED_BYTES}. */
  readonly readable: ReadableStream<Uint8Array>;
  /** Where the server's framed messages go: queued, then written to the client in order. */
  readonly writable: WritableStream<Uint8Array>;
  /** Write out what is queued, then close the output. Rejects when the output broke. */
  close(): Promise<void>;
  /**
   * Close the output at once if nothing waits for the client, else drop what
   * does and abort it (not awaited: a client that never reads would hold it).
   */
  stop(reason: unknown): Promise<void>;
}

/**
 * Pace `writer` (the output, held for the server's whole life) and `input`.
 * `onBroken` hears once when writing to the client fails.
 */
export function pace(
  input: ReadableStream<Uint8Array>,
  writer: WritableStreamDefaultWriter<Uint8Array>,
  onBroken: (error: unknown) => void,
): Pacing {
  const queue: Uint8Array[] = [];
  let queued = 0;
  let broken: { error: unknown } | undefined;
  let pumping: Promise<void> | undefined;
  /** Wakes the input once the queue shrinks (or the output breaks). */
  let wake: (() => void) | undefined;

  const pump = async () => {
    while (queue.length > 0 && !broken) {
      const chunk = queue[0];
      try {
        await writer.write(chunk);
      } catch (error) {
        if (!broken) { // not aborted: the client's end broke
          broken = { error };
          onBroken(error);
        }
      }
      if (broken) break;
      queue.shift();
      queued -= chunk.length;
      wake?.();
    }
    if (broken) {
      queue.length = 0;
      queued = 0;
      wake?.();
    }
    pumping = undefined;
  };

  const reader = input.getReader();
  const readable = new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (queued >= MAX_QUEUED_BYTES && !broken) {
        await new Promise<void>((resolve) => wake = resolve);
        wake = undefined;
      }
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });

  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      if (broken) throw broken.error;
      queue.push(chunk);
      queued += chunk.length;
      pumping ??= pump();
    },
  });

  return {
    readable,
    writable,
    async close() {
      await pumping;
      if (broken) throw broken.error;
      await writer.close();
    },
    async stop(reason) {
      if (queued === 0 && !broken) return await writer.close();
      broken ??= { error: reason };
      queue.length = 0;
      queued = 0;
      wake?.();
      writer.abort(reason).catch(noop);
    },
  };
}
