import assert from "node:assert/strict";
import {
  BrandedError,
  BrandedRangeError,
  BrandedTypeError,
  brandError,
  JsonCopyError,
} from "./mod.ts";

Deno.test("JsonCopyError is recognised across copies of the package", async () => {
  const copy: typeof import("./json.ts") = await import("./json.ts?second-install");
  assert.notEqual(copy.JsonCopyError, JsonCopyError);
  assert.throws(
    () => copy.jsonCopy({ f: () => 1 }),
    (error: unknown) => error instanceof JsonCopyError,
  );
  assert.ok(!(new TypeError("x") instanceof JsonCopyError));
});

Deno.test("BrandedTypeError brands and names each error after its class's brand", async (t) => {
  class ParseError extends BrandedTypeError {
    static override readonly brand: string = "@seam/test/ParseError";
    constructor(readonly line: number) {
      super(`Cannot parse line ${line}`, { cause: "x" });
    }
  }
  class OtherError extends BrandedTypeError {
    static override readonly brand: string = "@seam/test/OtherError";
  }
  const error = new ParseError(3);
  await t.step("the error is its class's, the base's and TypeError's", () => {
    assert.ok(error instanceof ParseError);
    assert.ok(error instanceof TypeError && error instanceof Error);
    assert.equal(error.name, "ParseError");
    assert.equal(error.line, 3);
    assert.equal(error.cause, "x");
  });
  await t.step("instanceof asks the brand, not the prototype", () => {
    const alike = new TypeError("made by another copy");
    brandError(alike, Symbol.for("@seam/test/ParseError"), "ParseError");
    assert.ok(alike instanceof ParseError);
    assert.ok(!(new OtherError("y") instanceof ParseError));
    assert.ok(!(error instanceof OtherError));
    assert.ok(!(new TypeError("z") instanceof ParseError));
  });
});

Deno.test("BrandedError and BrandedRangeError keep the builtin they extend", () => {
  class Plain extends BrandedError {
    static override readonly brand: string = "@seam/test/Plain";
  }
  class Range extends BrandedRangeError {
    static override readonly brand: string = "@seam/test/Range";
  }
  assert.ok(new Plain("a") instanceof Error && !(new Plain("a") instanceof TypeError));
  assert.ok(new Range("b") instanceof RangeError && new Range("b") instanceof Range);
  assert.equal(new Range("b").name, "Range");
  assert.ok(!(new Plain("a") instanceof Range));
});

Deno.test("an error of a branded subclass is also its branded base's", () => {
  class QuotaError extends BrandedRangeError {
    static override readonly brand: string = "@seam/test/QuotaError";
    constructor(readonly limit: string) {
      super(`Cannot start: the ${limit} quota is spent`);
    }
  }
  class TenantQuotaError extends QuotaError {
    static override readonly brand: string = "@seam/test/TenantQuotaError";
  }
  class SameBrand extends QuotaError {}
  const error = new TenantQuotaError("tokens");
  assert.ok(error instanceof TenantQuotaError);
  assert.ok(error instanceof QuotaError, "whoever catches the base still catches it");
  assert.ok(error instanceof RangeError);
  assert.equal(error.name, "TenantQuotaError");
  assert.equal(error.limit, "tokens");
  assert.ok(!(new QuotaError("tokens") instanceof TenantQuotaError));
  // A subclass that names no brand of its own is its base's, by name too.
  assert.ok(new SameBrand("tokens") instanceof QuotaError);
  assert.equal(new SameBrand("tokens").name, "QuotaError");
});

Deno.test("an error of any branded class is an instance of the base it extends", () => {
  class QuotaError extends BrandedRangeError {
    static override readonly brand: string = "@seam/test/QuotaError";
  }
  assert.ok(new QuotaError("x") instanceof BrandedRangeError);
  assert.ok(new JsonCopyError("value", "a function") instanceof BrandedTypeError);
  assert.ok(!(new JsonCopyError("value", "a function") instanceof BrandedRangeError));
  assert.ok(!(new RangeError("x") instanceof BrandedRangeError));
  assert.ok(!(new TypeError("x") instanceof BrandedError));
});
