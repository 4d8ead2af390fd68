/**
 * Whether `value` carries `brand` (a `Symbol.for` key). Error classes use it
 * for `instanceof`, so an error made by another copy of the same package (npm
 * can install a JSR package twice, under two names) is still recognised.
 *
 * @example
 * ```ts
 * import { hasBrand } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const brand = Symbol.for("example/MyError");
 * class MyError extends Error {
 *   static override [Symbol.hasInstance](value: unknown): boolean {
 *     return hasBrand(value, brand);
 *   }
 *   constructor(message: string) {
 *     super(message);
 *     Object.defineProperty(this, brand, { value: true });
 *   }
 * }
 * assert.ok(new MyError("x") instanceof MyError);
 * assert.ok(!(new Error("x") instanceof MyError));
 * ```
 */
export function hasBrand(value: unknown, brand: symbol): boolean {
  return value !== null && typeof value === "object" &&
    (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * Mark `error` with `brand` (for {@linkcode hasBrand}) and name it `name`:
 * what every branded error's constructor does, written once (the edge
 * bundle's bytes, bench/README.md "Edge bundle").
 *
 * @example
 * ```ts
 * import { brandError, hasBrand } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const brand = Symbol.for("example/MyError");
 * const error = new Error("x");
 * brandError(error, brand, "MyError");
 * assert.ok(hasBrand(error, brand));
 * assert.equal(error.name, "MyError");
 * ```
 */
export function brandError(error: Error, brand: symbol, name: string): void {
  Object.defineProperty(error, brand, { value: true });
  error.name = name;
}
