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

/**
 * A base for a branded error class: the class names its brand in a static
 * `brand` (a `Symbol.for` key whose last segment is the class's name,
 * `"@seam/host/JsonCopyError"`); each error it makes carries that brand and
 * that name, and `instanceof` it asks {@linkcode hasBrand}, so an error made
 * by another copy of the same package is still recognised. An error of a
 * subclass carries its base's brand too, so it is an instance of both; one
 * of any class extending {@linkcode BrandedError} is an instance of
 * `BrandedError` itself (as the prototype chain says: this copy's only). See
 * {@linkcode BrandedError}, {@linkcode BrandedTypeError} and
 * {@linkcode BrandedRangeError}.
 */
export interface BrandedErrorClass<E extends Error> {
  /** Make an error named and branded as the class's `brand` says. */
  new (message?: string, options?: ErrorOptions): E;
  /** The prototype of the errors it makes. */
  readonly prototype: E;
  /** The class's brand: a `Symbol.for` key ending in its name; each class sets its own. */
  readonly brand: string;
}

type ErrorConstructorLike<E extends Error> = new (message?: string, options?: ErrorOptions) => E;

function brandedErrorClass<E extends Error>(Base: ErrorConstructorLike<E>): BrandedErrorClass<E> {
  const Branded = class extends (Base as ErrorConstructorLike<Error>) {
    static brand = "";
    static override [Symbol.hasInstance](value: unknown): boolean {
      // The base itself has no brand: its instances are those of its prototype chain.
      return this.brand
        ? hasBrand(value, Symbol.for(this.brand))
        : super[Symbol.hasInstance](value);
    }
    constructor(message?: string, options?: ErrorOptions) {
      super(message, options);
      const key = new.target.brand;
      this.name = key.slice(key.lastIndexOf("/") + 1);
      // Every branded class above it too: whoever catches a base catches a subclass's error.
      for (let at: { brand: string } = new.target; at.brand; at = Object.getPrototypeOf(at)) {
        brandError(this, Symbol.for(at.brand), this.name);
      }
    }
  };
  return Branded as unknown as BrandedErrorClass<E>;
}

/**
 * The base of a branded `Error` class: see {@linkcode BrandedErrorClass}.
 *
 * @example
 * ```ts
 * import { BrandedError } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * class QuotaError extends BrandedError {
 *   static override readonly brand = "example/QuotaError";
 * }
 * const error = new QuotaError("Cannot start: the quota is spent");
 * assert.ok(error instanceof QuotaError && error instanceof Error);
 * assert.equal(error.name, "QuotaError");
 * assert.ok(!(new Error("x") instanceof QuotaError));
 * ```
 */
export const BrandedError: BrandedErrorClass<Error> = brandedErrorClass(Error);

/** The base of a branded `TypeError` class: see {@linkcode BrandedErrorClass}. */
export const BrandedTypeError: BrandedErrorClass<TypeError> = brandedErrorClass(TypeError);

/** The base of a branded `RangeError` class: see {@linkcode BrandedErrorClass}. */
export const BrandedRangeError: BrandedErrorClass<RangeError> = brandedErrorClass(RangeError);
