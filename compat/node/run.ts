/**
 * `deno task test:node`: the core tests and the README's "Use from Node"
 * example, run under Node (20 or later).
 *
 * 1. **Tests.** Every `*_test.ts` under {@linkcode NODE_TEST_ROOTS} (minus
 *    {@linkcode NODE_TEST_EXCLUDED}) is bundled with
 *    `deno bundle --platform node` (npm dependencies such as zod inlined,
 *    `node:` built-ins left as imports), and `node --test` runs the bundles
 *    with the `Deno.test` adapter (`deno_shim.ts`) loaded first.
 * 2. **A Node project.** Each of {@linkcode NODE_PACKAGES} is bundled on its
 *    own, with its imports of the other seam packages kept as imports, and
 *    laid out the way `npm install` lays out what `npx jsr add` asks for:
 *    `node_modules/@jsr/seam__subagent` (what the packages import each other
 *    by) and the alias `node_modules/@seam/subagent` (what the project
 *    imports), two copies as with npm. Each package carries the `.d.ts` of
 *    its sources (emitted file by file, as JSR does for npm) and points
 *    `types` at them. The README's `js` blocks under "Use from Node" are
 *    written to `main.mjs` and `gateway.mjs`, type-checked with `tsc`
 *    (`checkJs`, `strict`, against those declarations and `@types/node`) and
 *    run with plain `node`. TypeScript and `@types/node` are installed with
 *    npm from `compat/node/tools/package.json` into `compat/.out/node-tools/`
 *    on first use.
 *
 * Needs `--allow-read --allow-write --allow-run`. Output: `compat/.out/node/`.
 *
 * @module
 */
import { NODE_PACKAGES, NODE_TEST_EXCLUDED, NODE_TEST_PEERS, NODE_TEST_ROOTS } from "../targets.ts";
import {
  clean,
  deno,
  markdownBlock,
  type Member,
  memberOf,
  npmName,
  OUT,
  readWorkspace,
  relative,
  ROOT,
  run,
  type Workspace,
} from "../_workspace.ts";

const NODE_OUT = new URL("node/", OUT);
const TESTS_OUT = new URL("tests/", NODE_OUT);
const PROJECT = new URL("project/", NODE_OUT);
const TOOLS = new URL("node-tools/", OUT);
const SHIM = "compat/node/deno_shim.ts";
const DECLARATIONS = new URL("compat/node/declarations.mjs", ROOT);
const SHIM_CASES = "compat/testdata/shim_cases.ts";

/**
 * Bundle `files` (paths from the root) into `outdir` with `flags`; resolves
 * with each file's output, relative to `outdir`. Like esbuild, `deno bundle`
 * writes outputs below the entries' lowest common folder.
 */
async function bundle(
  files: readonly string[],
  outdir: URL,
  flags: readonly string[],
): Promise<Map<string, string>> {
  await deno(["bundle", "--quiet", ...flags, "--outdir", relative(outdir), ...files]);
  const folders = files.map((file) => file.split("/").slice(0, -1));
  let common = folders[0];
  for (const folder of folders) {
    let i = 0;
    while (i < common.length && common[i] === folder[i]) i++;
    common = common.slice(0, i);
  }
  const outputs = new Map<string, string>();
  for (const file of files) {
    const output = file.split("/").slice(common.length).join("/").replace(/\.ts$/, ".js");
    await Deno.stat(new URL(output, outdir)).catch(() => {
      throw new Error(
        `Cannot find the bundle of ${file}: expected ${relative(new URL(output, outdir))}`,
      );
    });
    outputs.set(file, output);
  }
  return outputs;
}

/** The test files the Node run covers, sorted, relative to the root. */
export async function nodeTestFiles(): Promise<string[]> {
  const files: string[] = [];
  async function walk(dir: URL): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.isDirectory ? `${entry.name}/` : entry.name, dir);
      if (entry.isDirectory && !entry.name.startsWith(".") && entry.name !== "testdata") {
        await walk(url);
      } else if (entry.isFile && entry.name.endsWith("_test.ts")) files.push(relative(url));
    }
  }
  for (const root of NODE_TEST_ROOTS) {
    const url = new URL(root, ROOT);
    const info = await Deno.stat(url);
    if (info.isDirectory) await walk(new URL(`${root}/`, ROOT));
    else files.push(root);
  }
  for (const excluded of Object.keys(NODE_TEST_EXCLUDED)) {
    if (!files.includes(excluded)) {
      throw new RangeError(`Cannot exclude "${excluded}": not among the Node test files`);
    }
  }
  return files.filter((file) => !(file in NODE_TEST_EXCLUDED)).sort();
}

/** Rewrite the bundle's imports of seam packages to the npm names they get from JSR. */
export function rewriteImports(code: string, workspace: Workspace): string {
  return code.replace(
    /((?:\bfrom|\bimport)\s*\(?\s*)"(@seam\/[^"]+)"/g,
    (_, lead: string, specifier: string) => {
      const member = memberOf(workspace, specifier);
      return `${lead}"${npmName(member.name)}${specifier.slice(member.name.length)}"`;
    },
  );
}

/** Every file below `dir`, as URLs. */
async function filesBelow(dir: URL): Promise<URL[]> {
  const files: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) files.push(...await filesBelow(new URL(`${entry.name}/`, dir)));
    else if (entry.isFile) files.push(new URL(entry.name, dir));
  }
  return files;
}

/**
 * How {@linkcode buildPackage} names and links a package: `"jsr"`, as JSR's
 * npm compatibility builds it (`@jsr/seam__host`, npm dependencies bundled
 * in, siblings at `^version`); `"release"`, as `deno task pack` ships it
 * (`@seam/host`, npm dependencies left as imports and listed at the exact
 * versions the root `deno.json` pins, siblings at the exact same version).
 */
export type PackageFlavour = "jsr" | "release";

/** The npm packages of the root import map: bare specifier → `{ name, version }` (`npm:name@version`). */
export function npmImports(workspace: Workspace): Map<string, { name: string; version: string }> {
  const map = new Map<string, { name: string; version: string }>();
  for (const [key, value] of Object.entries(workspace.imports)) {
    const match = /^npm:(@?[^@]+)@([^/]+)$/.exec(value);
    if (match) map.set(key, { name: match[1], version: match[2] });
  }
  return map;
}

/** Bundle one package as its own ES modules, like the npm package JSR builds from it. */
export async function buildPackage(
  member: Member,
  workspace: Workspace,
  into: URL,
  flavour: PackageFlavour = "jsr",
): Promise<void> {
  const release = flavour === "release";
  const npm = npmImports(workspace);
  const entries = Object.entries(member.exports);
  const files = entries.map(([, file]) => relative(new URL(file, member.dir)));
  const outputs = await bundle(files, into, [
    "--platform",
    "node",
    "--external",
    "@seam/*",
    ...(release
      ? [...npm.keys()].flatMap((key) => ["--external", key, "--external", `${key}/*`])
      : []),
    ...(entries.length > 1 ? ["--code-splitting"] : []),
  ]);
  const types = await emitDeclarations(member, new URL("_types/", into));
  const exports: Record<string, { types: string; default: string }> = {};
  entries.forEach(([subpath, file], i) => {
    const source = relative(new URL(file, member.dir)).slice(relative(member.dir).length);
    exports[subpath] = {
      types: `./_types/${types.get(source)}`,
      default: `./${outputs.get(files[i])}`,
    };
  });
  let code = "";
  for (const file of await filesBelow(into)) {
    const declaration = file.pathname.endsWith(".d.ts");
    if (!declaration && !file.pathname.endsWith(".js")) continue;
    const text = await Deno.readTextFile(file);
    let rewritten = release ? text : rewriteImports(text, workspace);
    // As JSR does for npm: a relative `./x.ts` is the emitted `./x.js` (whose types are `./x.d.ts`).
    if (declaration) rewritten = tidyDeclaration(rewritten);
    await Deno.writeTextFile(file, rewritten);
    code += rewritten;
  }
  const nameOf = (jsrName: string) => release ? jsrName : npmName(jsrName);
  const dependencies: Record<string, string> = {};
  for (const dependency of workspace.members) {
    const name = nameOf(dependency.name);
    if (dependency !== member && (code.includes(`"${name}"`) || code.includes(`"${name}/`))) {
      dependencies[name] = release ? dependency.version : `^${dependency.version}`;
    }
  }
  for (const [key, { name, version }] of release ? npm : []) {
    if (code.includes(`"${key}"`) || code.includes(`"${key}/`)) {
      dependencies[key] = key === name ? version : `npm:${name}@${version}`;
    }
  }
  const manifest = {
    name: nameOf(member.name),
    version: member.version,
    type: "module",
    exports,
    dependencies,
  };
  await Deno.writeTextFile(new URL("package.json", into), JSON.stringify(manifest, null, 2) + "\n");
}

/**
 * A declaration as JSR ships it: a relative `./x.ts` is the emitted `./x.js`
 * (whose types are `./x.d.ts`). And one repair: TypeScript 5.9's
 * `transpileDeclaration` emits a static method named by a symbol
 * (`static [Symbol.hasInstance](v)`) twice, once as a property, which tsc
 * then reports as a duplicate; JSR's emitter does not, so drop the property.
 */
function tidyDeclaration(text: string): string {
  return text
    .replace(/(["']\.{1,2}\/[^"']*)\.ts(["'])/g, "$1.js$2")
    .replace(
      /^\s*static \[(Symbol\.\w+)\]: \(.*\) => .*;\n(?=(?:\s*\/\*\*.*\*\/\n)*\s*static \[\1\]\()/gm,
      "",
    );
}

/** The TypeScript sources of `member` a package ships (no tests, no fixtures), relative to its folder. */
async function sourcesOf(member: Member): Promise<string[]> {
  const base = relative(member.dir);
  return (await filesBelow(member.dir))
    .map((file) => relative(file).slice(base.length))
    .filter((path) =>
      path.endsWith(".ts") && !path.endsWith("_test.ts") && !path.includes("testdata/") &&
      !path.endsWith("_test_fixtures.ts")
    )
    .sort();
}

/** Write the `.d.ts` of every source of `member` below `into`; maps each source to its declaration. */
async function emitDeclarations(member: Member, into: URL): Promise<Map<string, string>> {
  const sources = await sourcesOf(member);
  const map = new Map(sources.map((path) => [path, path.replace(/\.ts$/, ".d.ts")]));
  const pairs = sources.map((path) => [
    new URL(path, member.dir).pathname,
    new URL(map.get(path)!, into).pathname,
  ]);
  const list = new URL(`declarations-${npmName(member.name).replace("/", "_")}.json`, NODE_OUT);
  await Deno.mkdir(NODE_OUT, { recursive: true });
  await Deno.writeTextFile(list, JSON.stringify(pairs));
  // Run from the tools folder, where `typescript` resolves.
  const script = new URL("declarations.mjs", TOOLS);
  await Deno.copyFile(DECLARATIONS, script);
  await run("node", [script.pathname, list.pathname], { cwd: TOOLS });
  return map;
}

/** Install TypeScript and `@types/node` into `compat/.out/node-tools/` unless the pinned versions are there. */
export async function installTools(): Promise<void> {
  const manifest = await Deno.readTextFile(new URL("compat/node/tools/package.json", ROOT));
  const wanted: Record<string, string> = JSON.parse(manifest).dependencies;
  let current = true;
  for (const [name, version] of Object.entries(wanted)) {
    const installed = await Deno.readTextFile(new URL(`node_modules/${name}/package.json`, TOOLS))
      .then((text) => JSON.parse(text).version, () => undefined);
    if (installed !== version) current = false;
  }
  if (current) return;
  await Deno.mkdir(TOOLS, { recursive: true });
  await Deno.writeTextFile(new URL("package.json", TOOLS), manifest);
  console.log(`test:node: npm install ${Object.keys(wanted).join(", ")}`);
  const result = await run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error"],
    { cwd: TOOLS, capture: true },
  );
  if (result.code !== 0) {
    throw new Error(`Cannot install the Node tools: npm exited ${result.code}\n${result.stderr}`);
  }
}

/** Type-check the programs of the project in `project` with `tsc`, as its author would. */
export async function typeCheckProject(
  programs: readonly string[],
  project: URL = PROJECT,
): Promise<void> {
  const config = {
    compilerOptions: {
      allowJs: true,
      checkJs: true,
      noEmit: true,
      strict: true,
      target: "es2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      lib: ["es2023", "dom", "dom.iterable", "dom.asynciterable"],
      types: ["node"],
      typeRoots: [new URL("node_modules/@types/", TOOLS).pathname],
    },
    files: programs,
  };
  await Deno.writeTextFile(new URL("tsconfig.json", project), JSON.stringify(config, null, 2));
  const tsc = new URL("node_modules/typescript/bin/tsc", TOOLS).pathname;
  const { code, stdout, stderr } = await run("node", [
    tsc,
    "-p",
    "tsconfig.json",
    "--pretty",
    "false",
  ], {
    cwd: project,
    capture: true,
  });
  if (code !== 0) {
    throw new Error(`tsc found errors in ${programs.join(", ")}:\n${stdout}${stderr}`);
  }
}

/** Lay out a Node project depending on {@linkcode NODE_PACKAGES} as `npx jsr add` would. */
async function buildProject(workspace: Workspace): Promise<void> {
  const dependencies: Record<string, string> = {};
  for (const name of NODE_PACKAGES) {
    const member = memberOf(workspace, name);
    const installed = new URL(`node_modules/${npmName(member.name)}/`, PROJECT);
    await buildPackage(member, workspace, installed);
    // npm installs an aliased dependency as a copy under the alias.
    const alias = new URL(`node_modules/${member.name}/`, PROJECT);
    for (const file of await filesBelow(installed)) {
      const copy = new URL(file.href.slice(installed.href.length), alias);
      await Deno.mkdir(new URL(".", copy), { recursive: true });
      await Deno.copyFile(file, copy);
    }
    dependencies[member.name] = `npm:${npmName(member.name)}@^${member.version}`;
  }
  const manifest = { name: "seam-node-example", private: true, type: "module", dependencies };
  await Deno.writeTextFile(new URL("package.json", PROJECT), JSON.stringify(manifest, null, 2));
  await Deno.writeTextFile(new URL(".npmrc", PROJECT), "@jsr:registry=https://npm.jsr.io\n");
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const example = markdownBlock(readme, "Use from Node", ["js"]).code;
  await Deno.writeTextFile(new URL("main.mjs", PROJECT), example);
  const served = markdownBlock(readme, "The gateway and A2A from Node", ["js"]).code;
  await Deno.writeTextFile(new URL("gateway.mjs", PROJECT), served);
}

/**
 * Prove the adapter reports what Deno would before trusting it: the cases of
 * `compat/testdata/shim_cases.ts` must pass, skip and fail exactly as listed.
 */
async function checkShim(shim: URL): Promise<void> {
  const cases = new URL("shim_cases.mjs", NODE_OUT);
  await deno(["bundle", "--quiet", "--platform", "node", "-o", relative(cases), SHIM_CASES]);
  const { code, stdout, stderr } = await run(
    "node",
    ["--import", shim.href, "--test", "--test-reporter=tap", cases.pathname],
    { capture: true },
  );
  const lines = stdout.split("\n").map((line) => line.trim());
  const expected = [
    "ok 1 - shim: a plain test passes",
    "ok 1 - shim: inner step passes",
    "ok 2 - shim: a passing step resolves true",
    "ok 3 - shim: an ignored test is skipped # SKIP",
    "ok 1 - shim: a step definition runs",
    "ok 4 - shim: options and function",
    "not ok 1 - shim: inner step fails",
    "not ok 5 - shim: a failing step resolves false and fails its test",
    "# fail 2",
  ];
  const missing = expected.filter((line) => !lines.includes(line));
  if (code === 0 || missing.length > 0 || stdout.includes("did not resolve")) {
    throw new Error(
      `Cannot trust the Deno.test adapter: node exited ${code}, missing ${
        JSON.stringify(missing)
      }\n` +
        stdout + stderr,
    );
  }
}

async function main(): Promise<void> {
  const node = await run("node", ["--version"], { capture: true }).catch(() => {
    throw new Error("Cannot run the Node checks: `node` is not on PATH");
  });
  console.log(`test:node: node ${node.stdout.trim()}`);
  await clean(NODE_OUT);

  const shim = new URL("deno_shim.mjs", NODE_OUT);
  await deno(["bundle", "--quiet", "--platform", "node", "-o", relative(shim), SHIM]);
  await checkShim(shim);
  console.log("test:node: the Deno.test adapter reports passes, skips and failures as Deno does");

  const files = await nodeTestFiles();
  for (const [file, reason] of Object.entries(NODE_TEST_EXCLUDED)) {
    console.log(`test:node: excluded ${file}: ${reason}`);
  }
  // Peers (programs the tests start) are bundled in the same call, so they
  // keep their place relative to the test bundles.
  const bundles = await bundle([...files, ...Object.keys(NODE_TEST_PEERS)], TESTS_OUT, [
    "--platform",
    "node",
  ]);
  await Deno.writeTextFile(new URL("package.json", TESTS_OUT), '{ "type": "module" }\n');
  console.log(`test:node: node --test (${files.length} test files)`);
  await run("node", [
    "--import",
    shim.href,
    "--test",
    "--test-reporter=spec",
    ...files.map((file) => bundles.get(file)!),
  ], { cwd: TESTS_OUT });

  await installTools();
  console.log(`test:node: laying out ${NODE_PACKAGES.join(", ")} as npm installs them`);
  await buildProject(await readWorkspace());
  console.log("test:node: tsc main.mjs gateway.mjs (checkJs, strict, the packages' .d.ts)");
  await typeCheckProject(["main.mjs", "gateway.mjs"]);
  console.log("test:node: node main.mjs (README, Use from Node)");
  await run("node", ["main.mjs"], { cwd: PROJECT });
  console.log("test:node: node gateway.mjs (README, The gateway and A2A from Node)");
  await run("node", ["gateway.mjs"], { cwd: PROJECT });
  console.log("test:node: ok");
}

if (import.meta.main) await main();
