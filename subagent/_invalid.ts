/**
 * The service's refusals in the words they share: `Cannot <action>: <problem>`.
 *
 * @module
 */

/**
 * Refuse `action`: a TypeError (a RangeError with `range`) whose message is
 * `Cannot <action>: <problem>`.
 */
export function cannot(action: string, problem: string, range = false): never {
  const text = `Cannot ${action}: ${problem}`;
  throw range ? new RangeError(text) : new TypeError(text);
}
