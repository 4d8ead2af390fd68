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
 *    imports), two copies as with npm. The README's `js` block under "Use
 *    from Node" is written to `main.mjs` and run with plain `node`.
 *
 * Needs `--allow-read --allow-write --allow-run`. Output: `compat/.out/node/`.
 *
 * @module
 */
import { NODE_PACKAGES, NODE_TEST_EXCLUDED, NODE_TEST_ROOTS } from "../targets.ts";
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
const SHIM = "compat/node/deno_shim.ts";
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
function rewriteImports(code: string, workspace: Workspace): string {
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

/** Bundle one package as its own ES modules, like the npm package JSR builds from it. */
async function buildPackage(member: Member, workspace: Workspace, into: URL): Promise<void> {
  const entries = Object.entries(member.exports);
  const files = entries.map(([, file]) => relative(new URL(file, member.dir)));
  const outputs = await bundle(files, into, [
    "--platform",
    "node",
    "--external",
    "@seam/*",
    ...(entries.length > 1 ? ["--code-splitting"] : []),
  ]);
  const exports: Record<string, string> = {};
  entries.forEach(([subpath], i) => exports[subpath] = `./${outputs.get(files[i])}`);
  let code = "";
  for (const file of await filesBelow(into)) {
    if (!file.pathname.endsWith(".js")) continue;
    const rewritten = rewriteImports(await Deno.readTextFile(file), workspace);
    await Deno.writeTextFile(file, rewritten);
    code += rewritten;
  }
  const dependencies: Record<string, string> = {};
  for (const dependency of workspace.members) {
    if (dependency !== member && code.includes(`"${npmName(dependency.name)}`)) {
      dependencies[npmName(dependency.name)] = `^${dependency.version}`;
    }
  }
  const manifest = {
    name: npmName(member.name),
    version: member.version,
    type: "module",
    exports,
    dependencies,
  };
  await Deno.writeTextFile(new URL("package.json", into), JSON.stringify(manifest, null, 2) + "\n");
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
  const bundles = await bundle(files, TESTS_OUT, ["--platform", "node"]);
  await Deno.writeTextFile(new URL("package.json", TESTS_OUT), '{ "type": "module" }\n');
  console.log(`test:node: node --test (${files.length} test files)`);
  await run("node", [
    "--import",
    shim.href,
    "--test",
    "--test-reporter=spec",
    ...files.map((file) => bundles.get(file)!),
  ], { cwd: TESTS_OUT });

  console.log(`test:node: laying out ${NODE_PACKAGES.join(", ")} as npm installs them`);
  await buildProject(await readWorkspace());
  console.log("test:node: node main.mjs (README, Use from Node)");
  await run("node", ["main.mjs"], { cwd: PROJECT });
  console.log("test:node: ok");
}

if (import.meta.main) await main();
