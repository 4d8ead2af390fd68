/**
 * A map, owned by something long-lived, of values that live briefly: a
 * request's task while it runs, a body being read. V8 moves whatever was
 * stored in an old Map's (or Set's) table to the old generation at the next
 * scavenge, even when it was deleted or overwritten at once; a short-lived
 * value then drags its whole graph into the old generation, whose collection
 * is the expensive one. Held through a cell that `delete` empties, only the
 * cell is moved (bench/alloc.ts, column "promoted").
 */
interface Cell<V> {
  value: V | undefined;
}

/** A `Map` of short-lived values (see the module doc). */
export class ShortLivedMap<K, V> {
  readonly #cells = new Map<K, Cell<V>>();

  /** How many values it holds. */
  get size(): number {
    return this.#cells.size;
  }

  /** The value of `key`, if held. */
  get(key: K): V | undefined {
    return this.#cells.get(key)?.value;
  }

  /** Whether it holds `key`. */
  has(key: K): boolean {
    return this.#cells.has(key);
  }

  /** Hold `value` as `key`'s (in place of any before it). */
  set(key: K, value: V): void {
    const cell = this.#cells.get(key);
    if (cell) cell.value = value;
    else this.#cells.set(key, { value });
  }

  /** Let go of `key`'s value; false when none was held. */
  delete(key: K): boolean {
    const cell = this.#cells.get(key);
    if (!cell) return false;
    cell.value = undefined;
    return this.#cells.delete(key);
  }

  /** Let go of every value. */
  clear(): void {
    for (const cell of this.#cells.values()) cell.value = undefined;
    this.#cells.clear();
  }

  /** The values held, in insertion order. */
  *values(): IterableIterator<V> {
    for (const cell of this.#cells.values()) yield cell.value as V;
  }
}
