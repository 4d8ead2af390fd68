/** Text cut to a bound without breaking it. */

/**
 * The first `max` UTF-16 code units of `text`, one fewer where the cut would
 * fall between the halves of a surrogate pair (a lone half is not text: JSON
 * carries it as an escape, UTF-8 as U+FFFD).
 *
 * @example
 * ```ts
 * import { textHead } from "@seam/host";
 * textHead("ab😀", 3); // "ab": the emoji's two halves stay together
 * ```
 */
export function textHead(text: string, max: number): string {
  if (text.length <= max) return text;
  const high = text.charCodeAt(max - 1);
  return text.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max);
}
