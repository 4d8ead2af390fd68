/**
 * `deno task check:folders`: the gateway's folders say what they hold, and
 * the always-there part does not reach into the optional features.
 *
 * 1. **Folder size.** No folder of `gateway/` or `gateway_postgres/` holds more
 *    than {@linkcode MAX_SOURCE_FILES} source files (`.ts`, tests aside).
 * 2. **One seam.** A file in `gateway/core/` or `gateway/http/` imports nothing
 *    from a feature folder ({@linkcode FEATURE_FOLDERS}); what they need of a
 *    feature, they take from {@linkcode SEAM}, which imports and exports types
 *    only. So an entry that passes no feature (`@seam/gateway/lite`) bundles
 *    none of their code, whatever the bundler does.
 * 3. **No test support shipped.** Every `*_test_support.ts` of the two
 *    packages matches their `publish.exclude`.
 * 4. **The features hang off the core.** No import circle among the
 *    gateway's files (type imports included) holds a file of `core/` or
 *    `http/` together with the seam or a file of a feature folder: a feature
 *    imports `core/` and `http/`, never the reverse (the engine knows a
 *    `TaskHome`, not the cluster; the inspector's routes an
 *    `InspectedEngine`).
 *
 * It also prints the import circles, largest first, as information.
 *
 * Usage: `deno run --allow-read compat/gateway_folders_check.ts`; exits 1 on
 * any failure.
 *
 * @module
 */

/** The most source files one folder may hold. */
export const MAX_SOURCE_FILES = 25;
/** The folders the rule keeps free of features. */
export const CORE_FOLDERS: readonly string[] = ["gateway/core/", "gateway/http/"];
/** The optional features, each in its folder. */
export const FEATURE_FOLDERS: readonly string[] = [
  "gateway/cluster/",
  "gateway/push/",
  "gateway/inspector/",
  "gateway/a2a03/",
  "gateway/mounts/",
  "gateway/tree/",
];
/** The one file through which core/ and http/ may name a feature's types. */
export const SEAM = "gateway/_features.ts";
const PACKAGES = ["gateway", "gateway_postgres"];

const ROOT = new URL("../", import.meta.url);

/** One import of a module: its target (relative to the root) and whether it is type-only. */
export interface ImportOf {
  readonly target: string;
  readonly typeOnly: boolean;
  readonly statement: string;
}

const STATEMENT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*"(\.{1,2}\/[^"]+)"|import\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g;

/** The relative imports (and re-exports) of `text`, a module at `path` (from the root). */
export function importsOf(path: string, text: string): ImportOf[] {
  const dir = path.slice(0, path.lastIndexOf("/") + 1);
  const found: ImportOf[] = [];
  for (const m of text.matchAll(STATEMENT)) {
    const spec = m[4] ?? m[5];
    const typeOnly = m[2] !== undefined ||
      (m[3] !== undefined && /^\{[^}]*\}$/s.test(m[3]) &&
        m[3].slice(1, -1).split(",").every((name) =>
          name.trim() === "" || /^type\s/.test(name.trim())
        ));
    found.push({ target: normalize(dir + spec), typeOnly, statement: m[0].trim() });
  }
  return found;
}

function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") out.pop();
    else if (part !== ".") out.push(part);
  }
  return out.join("/");
}

async function walk(dir: string, into: string[]): Promise<void> {
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    if (entry.isDirectory && entry.name !== "testdata") await walk(`${dir}${entry.name}/`, into);
    else if (entry.isFile && entry.name.endsWith(".ts")) into.push(`${dir}${entry.name}`);
  }
}

function isTest(path: string): boolean {
  return path.endsWith("_test.ts");
}

/** The strongly connected components of more than one file, largest first. */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return found.sort((a, b) => b.length - a.length);
}

function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      source += "(?:.*/)?";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") source += "[^/]*";
    else source += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}${glob.endsWith("/") ? "" : "$"}`);
}

/** Everything wrong with the gateway's folders: empty when nothing is. */
export async function checkFolders(): Promise<{ problems: string[]; cycles: string[][] }> {
  const problems: string[] = [];
  const files: string[] = [];
  for (const pkg of PACKAGES) await walk(`${pkg}/`, files);

  const perFolder = new Map<string, number>();
  for (const file of files.filter((f) => !isTest(f))) {
    const folder = file.slice(0, file.lastIndexOf("/") + 1);
    perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
  }
  for (const [folder, count] of perFolder) {
    if (count > MAX_SOURCE_FILES) {
      problems.push(`${folder} holds ${count} source files (at most ${MAX_SOURCE_FILES})`);
    }
  }

  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    const imports = importsOf(file, text);
    if (!isTest(file)) graph.set(file, imports.map((i) => i.target));
    const feature = (target: string) => FEATURE_FOLDERS.some((f) => target.startsWith(f));
    if (!isTest(file) && CORE_FOLDERS.some((folder) => file.startsWith(folder))) {
      for (const i of imports) {
        if (feature(i.target)) {
          problems.push(`${file} imports ${i.target}: take a feature's types from ${SEAM}`);
        }
      }
    }
    if (file === SEAM) {
      for (const i of imports) {
        if (!i.typeOnly) problems.push(`${SEAM} must import types only: ${i.statement}`);
      }
      for (const m of text.matchAll(/(?:^|\n)export\s+(?!type\s|interface\s)(\S+)/g)) {
        problems.push(`${SEAM} must export types only: export ${m[1]}…`);
      }
    }
  }

  for (const pkg of PACKAGES) {
    const config = JSON.parse(await Deno.readTextFile(new URL(`${pkg}/deno.json`, ROOT))) as {
      publish?: { exclude?: string[] };
    };
    const excludes = (config.publish?.exclude ?? []).map(globToRegExp);
    for (const file of files.filter((f) => f.startsWith(`${pkg}/`))) {
      const inPackage = file.slice(pkg.length + 1);
      if (/_test_support\.ts$/.test(file) && !excludes.some((re) => re.test(inPackage))) {
        problems.push(`${file} is test support but ${pkg}/deno.json publishes it`);
      }
    }
  }
  const cycles = circles(graph);
  const inFeature = (file: string) =>
    file === SEAM || FEATURE_FOLDERS.some((folder) => file.startsWith(folder));
  for (const cycle of cycles) {
    const features = cycle.filter(inFeature);
    const core = cycle.filter((file) => CORE_FOLDERS.some((folder) => file.startsWith(folder)));
    if (features.length > 0 && core.length > 0) {
      problems.push(
        `an import circle holds ${features.join(", ")} with ${core.join(", ")}: ${cycle.join(" ")}`,
      );
    }
  }
  return { problems, cycles };
}

if (import.meta.main) {
  const { problems, cycles } = await checkFolders();
  for (const cycle of cycles) {
    console.log(`check:folders: circle of ${cycle.length} files: ${cycle.join(" ")}`);
  }
  if (problems.length > 0) {
    for (const problem of problems) console.error(`check:folders: FAIL ${problem}`);
    Deno.exit(1);
  }
  console.log("check:folders: ok (folder sizes, the features' seam, test support unpublished)");
}
