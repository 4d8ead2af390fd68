// What a run has seen of its remote task, kept as digests in bounded sets, so
// that "news" can be told from progress: a remote that flips its task from
// WORKING to SUBMITTED and back, or between two words, changes something at
// every event and yet moves nowhere. Only what this run had not seen before is
// progress (what resets the re-attach retries, `_calls.ts`).
import type { Piece } from "./_wire.ts";

/** How many digests one set keeps; past it the oldest is forgotten. */
export const SEEN_CAP = 256;

/**
 * A running 53-bit content digest (cyrb53's mixing, fed a string at a time):
 * feeding "ab" and feeding "a" then "b" give the same value, so text appended
 * chunk by chunk digests as the same text given whole. Not a secret.
 */
export class Digest {
  #h1 = 0xdeadbeef;
  #h2 = 0x41c6ce57;

  /** Feed `text`; returns this digest. */
  update(text: string): this {
    let h1 = this.#h1;
    let h2 = this.#h2;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    this.#h1 = h1;
    this.#h2 = h2;
    return this;
  }

  /** Feed what `pieces` hold, text as is (so adjacent text pieces digest as one). */
  pieces(pieces: readonly Piece[]): this {
    for (const piece of pieces) {
      // A piece other than text is framed by NUL, which JSON never holds bare.
      this.update(piece.type === "text" ? piece.text : `\u0000${JSON.stringify(piece)}\u0000`);
    }
    return this;
  }

  /** The digest of what was fed so far (feeding may go on). */
  value(): number {
    let h1 = this.#h1;
    let h2 = this.#h2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return 4294967296 * (2097151 & h2) + (h1 >>> 0);
  }

  /** A digest that goes on from where this one is. */
  copy(): Digest {
    const copy = new Digest();
    copy.#h1 = this.#h1;
    copy.#h2 = this.#h2;
    return copy;
  }
}

/** A set of keys seen, at most `cap` of them: past it the oldest is forgotten. */
export class Seen<K> {
  readonly #keys = new Set<K>();
  readonly #cap: number;

  constructor(cap = SEEN_CAP) {
    this.#cap = cap;
  }

  /** Note `key`; `true` when it was not seen before (or was forgotten since). */
  add(key: K): boolean {
    if (this.#keys.has(key)) return false;
    this.#keys.add(key);
    if (this.#keys.size > this.#cap) {
      // A Set iterates in insertion order: its first key is the oldest.
      this.#keys.delete(this.#keys.values().next().value as K);
    }
    return true;
  }
}
