/**
 * `Deno.test` (with `t.step`) on top of `node:test`, so the repository's test
 * files run unchanged under Node. The Node run bundles this file and loads it
 * with `node --import` before any test bundle, which installs a global `Deno`
 * whose only member is `test`: a test that reaches for another `Deno.*` API
 * fails loudly under Node (such files are listed in `compat/targets.ts` as
 * excluded, with the reason).
 *
 * Mapping: `Deno.test(name, fn)`, `Deno.test(name, options, fn)`,
 * `Deno.test({name, fn, ...})` and `Deno.test(fn)` become top-level
 * `node:test` tests; `ignore` maps to `skip`, `only` to `only`; the sanitizer
 * and permission options have no Node counterpart and are ignored.
 * `t.step(...)` becomes a subtest and resolves `true` or `false` as in Deno; a
 * failed step fails its test in both runtimes.
 *
 * @module
 */
import { test as nodeTest, type TestContext as NodeTestContext } from "node:test";

type TestFn = (t: ShimTestContext) => void | Promise<void>;

/** The subset of `Deno.TestDefinition` the shim understands. */
interface TestDefinition {
  name?: string;
  fn?: TestFn;
  ignore?: boolean;
  only?: boolean;
  [option: string]: unknown;
}

/** The subset of `Deno.TestContext` the shim provides. */
interface ShimTestContext {
  readonly name: string;
  readonly origin: string;
  readonly parent?: ShimTestContext;
  step(
    nameOrDefinition: string | TestDefinition | TestFn,
    fn?: TestFn,
  ): Promise<boolean>;
}

/** Normalize every `Deno.test`/`t.step` call shape to one definition. */
function definitionOf(
  a: string | TestDefinition | TestFn,
  b?: TestDefinition | TestFn,
  c?: TestFn,
): Required<Pick<TestDefinition, "name" | "fn">> & TestDefinition {
  if (typeof a === "function") return { name: a.name || "anonymous", fn: a };
  if (typeof a === "string") {
    if (typeof b === "function") return { name: a, fn: b };
    if (b !== undefined && typeof c === "function") return { ...b, name: a, fn: c };
    throw new TypeError(`Cannot register test "${a}": missing test function`);
  }
  const fn = a.fn ?? (typeof b === "function" ? b : undefined);
  if (typeof fn !== "function" || typeof a.name !== "string") {
    throw new TypeError("Cannot register test: a definition needs a name and a function");
  }
  return { ...a, name: a.name, fn };
}

function contextOf(node: NodeTestContext, name: string, parent?: ShimTestContext): ShimTestContext {
  const context: ShimTestContext = {
    name,
    origin: "node:test",
    ...(parent ? { parent } : {}),
    async step(a, b) {
      const step = definitionOf(a, b);
      let passed = !step.ignore;
      await node.test(step.name, step.ignore ? { skip: true } : {}, async (sub) => {
        try {
          await step.fn(contextOf(sub, step.name, context));
        } catch (error) {
          passed = false;
          throw error;
        }
      });
      return passed;
    },
  };
  return context;
}

/** `Deno.test`, registered as a top-level `node:test` test. */
function test(
  a: string | TestDefinition | TestFn,
  b?: TestDefinition | TestFn,
  c?: TestFn,
): void {
  const definition = definitionOf(a, b, c);
  void nodeTest(
    definition.name,
    { ...(definition.ignore ? { skip: true } : {}), ...(definition.only ? { only: true } : {}) },
    (t) => definition.fn(contextOf(t, definition.name)),
  );
}

// Test code may use `Promise.withResolvers` (ES2024, Node 22+); library code may
// not: `deno task check:neutral` type-checks it at ES2023, Node 20's level, and
// the README's Node example runs without this file. So the gap is filled here,
// for the tests only.
if (typeof Promise.withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

if (!("Deno" in globalThis)) {
  Object.defineProperty(globalThis, "Deno", {
    value: Object.freeze({ test }),
    configurable: true,
    writable: false,
  });
}
