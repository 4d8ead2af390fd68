/**
 * The `data` of each server-sent event of `body`, in order (multi-line data
 * joined with `\n`; comments and other fields ignored; an event cut off by
 * the end of the stream is dropped). Releases the body when the consumer
 * stops early. `onChunk` is called for each chunk read (an idle timer's
 * heartbeat: comments count, so a server's keep-alives keep it alive).
 */
export async function* sseData(
  body: ReadableStream<Uint8Array>,
  onChunk?: () => void,
): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] | undefined;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      onChunk?.();
      if (done) {
        finished = true;
        buffer += decoder.decode();
      } else {
        buffer += decoder.decode(value, { stream: true });
      }
      let start = 0;
      for (;;) {
        let end = -1;
        let next = -1;
        for (let i = start; i < buffer.length; i++) {
          const c = buffer.charCodeAt(i);
          if (c === 10) {
            end = i;
            next = i + 1;
            break;
          }
          if (c === 13) {
            // A lone \r at the very end may be half of \r\n: wait for more.
            if (i + 1 === buffer.length && !finished) break;
            end = i;
            next = buffer.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
            break;
          }
        }
        if (end === -1) break;
        const line = buffer.slice(start, end);
        start = next;
        if (line === "") {
          if (data) {
            const payload = data.join("\n");
            data = undefined;
            yield payload;
          }
          continue;
        }
        if (line.charCodeAt(0) === 58) continue; // ":" comment
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        if (field !== "data") continue;
        let value = colon === -1 ? "" : line.slice(colon + 1);
        if (value.charCodeAt(0) === 32) value = value.slice(1);
        (data ??= []).push(value);
      }
      buffer = buffer.slice(start);
      // As the spec says, an event the stream ends in the middle of is dropped.
      if (finished) return;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
