// The updates an agent sends for a session before answering its
// `session/new` (an agent announces its commands, say): held until the
// answer names the session, within bounds, since until then nobody else
// would ever free them.

/**
 * Updates held at most: by count, and by the bytes of their lines (a few
 * huge ones would otherwise pass the count). Past either, the rest are
 * dropped, with a warning: before the prompt they are progress, never output.
 */
export const EARLY_UPDATES_MAX = 256;
/** See {@linkcode EARLY_UPDATES_MAX}. */
export const EARLY_UPDATES_MAX_BYTES: number = 4 * 1024 * 1024;

/** The updates held for sessions not open yet. */
export class EarlyUpdates {
  #held: { sessionId: string; update: unknown; bytes: number }[] = [];
  #bytes = 0;
  #dropped = 0;

  /**
   * Hold `update` (from a line of `bytes` bytes) for `sessionId`, or drop it
   * past the bounds; the warning to log for the first one dropped since
   * {@linkcode clear}, else `undefined`.
   */
  hold(sessionId: string, update: unknown, bytes: number): string | undefined {
    if (this.#held.length < EARLY_UPDATES_MAX && this.#bytes + bytes <= EARLY_UPDATES_MAX_BYTES) {
      this.#held.push({ sessionId, update, bytes });
      this.#bytes += bytes;
      return undefined;
    }
    if (this.#dropped++ > 0) return undefined;
    return `Dropped updates the ACP agent sent before answering session/new: it may send at most ${EARLY_UPDATES_MAX} updates or ${EARLY_UPDATES_MAX_BYTES} bytes of them before`;
  }

  /** Take the updates held for `sessionId`, in wire order. */
  take(sessionId: string): unknown[] {
    const taken = this.#held.filter((e) => e.sessionId === sessionId);
    if (taken.length === 0) return [];
    this.#held = this.#held.filter((e) => e.sessionId !== sessionId);
    for (const early of taken) this.#bytes -= early.bytes;
    return taken.map((e) => e.update);
  }

  /** Forget every update held (no `session/new` is waiting any more); how many there were. */
  clear(): number {
    const count = this.#held.length;
    this.#held = [];
    this.#bytes = 0;
    this.#dropped = 0;
    return count;
  }
}
