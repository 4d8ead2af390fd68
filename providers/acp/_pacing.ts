// Backpressure between the ACP server and its client. The SDK chains every
// message it sends on a promise and reads the client's input as fast as it
// comes, so a client that sends requests and never reads the answers grew
// the server's memory without bound (one queued answer per request). Here
// what the server writes queues where it can be measured, and the client's
// input is read only while less than a bound of it waits for the client.
// Output the client's input did not ask for (the updates of turns already
// running) still comes: past a hard bound of it unread, the client is let go.

/** Output waiting for the client past which the server stops reading the client's input. */
export const MAX_QUEUED_BYTES = 1024 * 1024;

/**
 * Output waiting for the client past which more output breaks the
 * connection (the running turns' updates, which reading less does not stop).
 */
export const MAX_UNREAD_BYTES = 16 * MAX_QUEUED_BYTES;

/** The client left {@linkcode MAX_UNREAD_BYTES} of output unread: the output is given up. */
export class UnreadOutputError extends Error {
  constructor() {
    super(
      `the ACP client left ${MAX_UNREAD_BYTES} bytes of output unread (it does not read what it is sent): closing the connection`,
    );
    this.name = "UnreadOutputError";
  }
}

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
 * `onBroken` hears once when writing to the client fails, or with an
 * {@linkcode UnreadOutputError} when more output comes while
 * {@linkcode MAX_UNREAD_BYTES} of it wait (the output is then aborted).
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

  /** Drop what waits and abort the output (its pending write too, so the pump ends). */
  const giveUp = (reason: unknown) => {
    broken ??= { error: reason };
    queue.length = 0;
    queued = 0;
    wake?.();
    writer.abort(reason).catch(noop);
  };

  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      if (broken) throw broken.error;
      // Behind the message being written (one may be large, and take long to
      // read): a client that leaves this much unread there does not read.
      if (queued - (queue[0]?.length ?? 0) >= MAX_UNREAD_BYTES) {
        const error = new UnreadOutputError();
        giveUp(error);
        onBroken(error);
        throw error;
      }
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
      giveUp(reason);
    },
  };
}
