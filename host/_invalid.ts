// The errors of the host's checks, in the words every such message starts
// with ("Invalid output[0].type: ...", "Cannot register tool "x": ..."):
// written once for the checks of content, sessions, options and registries.

/** Throw a `TypeError` whose message is `Invalid ${message}`. */
export function invalid(message: string): never {
  throw new TypeError(`Invalid ${message}`);
}

/**
 * Throw a `TypeError` (a `RangeError` with `range`) whose message is
 * `Cannot ${action}: ${problem}`.
 */
export function cannot(action: string, problem: string, range = false): never {
  const message = `Cannot ${action}: ${problem}`;
  throw range ? new RangeError(message) : new TypeError(message);
}
