/**
 * Short names for the builtins the package's modules call most, declared once here rather than in
 * each module: every declaration, and every `Object.freeze`, `Array.isArray` or `JSON.stringify`
 * written out, ships in the edge bundle (README.md#One entry for every host).
 *
 * @module
 */

/** `Object.freeze`. */
export const { freeze } = Object;

/** `Array.isArray`. */
export const { isArray } = Array;

/** `JSON.stringify`. */
export const { stringify } = JSON;
