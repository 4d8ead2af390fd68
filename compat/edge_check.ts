/**
 * `deno task check:edge`: each edge entry, bundled as an edge host would load
 * it (`deno bundle --platform browser`, npm dependencies inlined), must
 *
 * - import no `node:` built-in (nor a bare Node built-in name such as `"fs"`),
 * - evaluate its top level with no timer, no I/O and no random value, and
 *   without `Deno` or Node's globals: what Cloudflare Workers forbid at
 *   global scope (see `_edge_sandbox.ts`, which runs with no permissions),
 * - with a budget in {@linkcode EDGE_BUDGETS}, weigh no more than it when
 *   minified (`deno bundle --platform browser --minify`).
 *
 * Usage: `deno run --allow-read --allow-write=compat/.out --allow-run compat/edge_check.ts [entry...]`,
 * where an entry is a JSR specifier of a workspace member (`@seam/host`), a
 * path from the repository root, or `README.md#Heading` (the first `ts`/`js`
 * block of that section); with none, it checks
 * {@linkcode EDGE_ENTRIES}. Reports every entry; exits 1 if any failed.
 *
 * @module
 */
import { builtinModules } from "node:module";
import { EDGE_BUDGETS, EDGE_ENTRIES } from "./targets.ts";
import { deno, materializeEntry, readWorkspace, relative } from "./_workspace.ts";

const SANDBOX = new URL("_edge_sandbox.ts", import.meta.url);
const NODE_BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith("_")));

/** The Node built-ins a bundle imports (`node:fs`, or a bare `"fs"`). */
export function nodeImports(bundle: string): string[] {
  const found = new Set<string>();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;
  for (const [, specifier] of bundle.matchAll(pattern)) {
    const bare = specifier.split("/")[0];
    if (specifier.startsWith("node:") || NODE_BUILTINS.has(bare) || NODE_BUILTINS.has(specifier)) {
      found.add(specifier);
    }
  }
  return [...found].sort();
}

/** Sizes in kB of 1,000 bytes, as issue 19's budget counts them (and as the output says). */
const KB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/** The size of `file`'s minified edge bundle in bytes, or why it could not be bundled. */
export async function minifiedSize(file: URL): Promise<number | string> {
  const bundled = await deno(
    ["bundle", "--quiet", "--platform", "browser", "--minify", relative(file)],
    { capture: true },
  );
  if (bundled.code !== 0) return `deno bundle --minify failed:\n${bundled.stderr.trim()}`;
  return new TextEncoder().encode(bundled.stdout).length;
}

/** What is wrong with one entry for an edge host: empty when nothing is. */
export async function checkEdgeEntry(
  file: URL,
  budget?: number,
): Promise<{ size: number; minified?: number; problems: string[] }> {
  const bundled = await deno(
    ["bundle", "--quiet", "--platform", "browser", relative(file)],
    { capture: true },
  );
  if (bundled.code !== 0) {
    return { size: 0, problems: [`deno bundle failed:\n${bundled.stderr.trim()}`] };
  }
  const problems = nodeImports(bundled.stdout).map((specifier) => `imports "${specifier}"`);
  const sandbox = await deno(
    ["run", "--no-prompt", "--no-config", "--no-lock", relative(SANDBOX)],
    { capture: true, stdin: bundled.stdout },
  );
  if (sandbox.code !== 0) {
    const lines = sandbox.stdout.trim() || sandbox.stderr.trim() || `exit code ${sandbox.code}`;
    problems.push(...lines.split("\n"));
  }
  if (budget === undefined) return { size: bundled.stdout.length, problems };
  const minified = await minifiedSize(file);
  if (typeof minified === "string") problems.push(minified);
  else if (minified > budget) {
    problems.push(
      `its minified bundle is ${minified} bytes (${
        KB(minified)
      }), over its budget of ${budget} bytes (${
        KB(budget)
      }; 1 kB = 1,000 bytes) (compat/targets.ts, EDGE_BUDGETS; bench/README.md "Edge bundle" says what weighs what)`,
    );
  }
  return {
    size: bundled.stdout.length,
    minified: typeof minified === "number" ? minified : undefined,
    problems,
  };
}

async function main(): Promise<void> {
  const workspace = await readWorkspace();
  const entries = Deno.args.length > 0 ? Deno.args : EDGE_ENTRIES;
  // One at a time: on a cold cache, concurrent `deno bundle`s race to install esbuild.
  const reports = [];
  for (const entry of entries) {
    const file = await materializeEntry(workspace, entry);
    reports.push({
      entry,
      budget: EDGE_BUDGETS[entry],
      ...await checkEdgeEntry(file, EDGE_BUDGETS[entry]),
    });
  }
  let failed = false;
  for (const { entry, size, minified, budget, problems } of reports) {
    if (problems.length === 0) {
      const weighed = minified === undefined || budget === undefined
        ? ""
        : `, ${KB(minified)} minified of its ${KB(budget)} budget`;
      console.log(`check:edge: ok ${entry} (${KB(size)} bundle${weighed}; 1 kB = 1,000 bytes)`);
    } else {
      failed = true;
      console.error(`check:edge: FAIL ${entry}`);
      for (const problem of problems) console.error(`  - ${problem}`);
    }
  }
  if (failed) {
    console.error(
      "check:edge: an edge entry must not import Node built-ins, and its module top level must not " +
        "set timers, do I/O or draw random values (Cloudflare Workers refuse them at global scope); " +
        "an entry with a budget must stay within it, minified.",
    );
    Deno.exit(1);
  }
}

if (import.meta.main) await main();
