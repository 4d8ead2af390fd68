// One event of a server-sent event stream held to a size in bytes, as it
// arrives. The SDK client's own bound (4 MiB "bytes") counts UTF-16 code
// units of the decoded text, so an event of CJK text could be 12 MiB on the
// wire, all of it read and held before its bound is checked.

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;

/**
 * `body` (an event stream) with each event's field lines held to `max`
 * bytes together: past it the stream errors with `tooLarge()`. A blank line
 * ends an event; comment lines (`: keep-alive`) count for nothing, though
 * each is held to `max` bytes too.
 */
export function boundEvents(
  body: ReadableStream<Uint8Array>,
  max: number,
  tooLarge: () => Error,
): ReadableStream<Uint8Array> {
  let eventBytes = 0;
  let lineBytes = 0;
  let comment = false;
  let last = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let at = 0; at < chunk.length;) {
          const newline = chunk.indexOf(LF, at);
          const end = newline === -1 ? chunk.length : newline;
          if (end > at) {
            if (lineBytes === 0) comment = chunk[at] === COLON;
            if (!comment) eventBytes += end - at;
            lineBytes += end - at;
            last = chunk[end - 1];
            // A comment line is free only up to the bound: the SDK client holds a line whole.
            if (eventBytes > max || lineBytes > max) return controller.error(tooLarge());
          }
          if (newline === -1) break;
          // A blank line ("\n" or "\r\n") ends the event.
          if (lineBytes === 0 || (lineBytes === 1 && last === CR)) eventBytes = 0;
          lineBytes = 0;
          at = newline + 1;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}
