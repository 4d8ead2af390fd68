/**
 * `deno task pack`: an npm tarball per package of the workspace, in
 * `dist/npm/` (`seam-host-0.2.0.tgz`, …), for a Node project to install from
 * a checkout or a release asset: `npm install dist/npm/*.tgz`.
 *
 * Each package is built by the Node run's machinery (`compat/node/run.ts`,
 * {@linkcode buildPackage} in its `"release"` flavour): its entries bundled
 * for Node as ES modules with the other seam packages and the npm packages
 * left as imports, the `.d.ts` of every source, and a `package.json` named as
 * on JSR (`@seam/host`) whose dependencies are exact: the npm packages at the
 * versions the root `deno.json` pins, the seam siblings at the same version.
 * The packages come from the root workspace, so a new one is packed without
 * an edit here.
 *
 * `deno task pack:check` packs, then proves the tarballs work as a Node user
 * gets them: a fresh project `npm install`s them (npm fetches only the
 * third-party dependencies), every export of every package is imported under
 * `node`, and the README's "Use from Node" blocks are type-checked with
 * `tsc --strict` and run with `node`.
 *
 * Usage: `deno run --allow-read --allow-write --allow-run release/pack.ts [--check]`
 *
 * @module
 */
import { buildPackage, installTools, typeCheckProject } from "../compat/node/run.ts";
import {
  clean,
  markdownBlock,
  type Member,
  OUT,
  readWorkspace,
  relative,
  ROOT,
  run,
} from "../compat/_workspace.ts";

/** Where the tarballs go. */
export const DIST: URL = new URL("dist/npm/", ROOT);
const BUILD = new URL("pack/", OUT);
const PROJECT = new URL("project/", BUILD);

/** Executables a package ships (npm's `bin`): package → command → export of its deno.json. */
const BINS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "@seam/cli": { seam: "./main" },
};

/** The README sections whose `js` block a Node user runs, and the file each becomes. */
const README_BLOCKS: Readonly<Record<string, string>> = {
  "Use from Node": "main.mjs",
  "The gateway and A2A from Node": "gateway.mjs",
};

/** `@seam/subagent-acp` → `seam-subagent-acp`, npm's tarball prefix. */
function slug(name: string): string {
  return name.replace(/^@/, "").replace("/", "-");
}

async function packOne(member: Member, workspace: Awaited<ReturnType<typeof readWorkspace>>) {
  const into = new URL(`${slug(member.name)}/`, BUILD);
  await clean(into);
  await buildPackage(member, workspace, into, "release");
  const manifestUrl = new URL("package.json", into);
  const manifest = JSON.parse(await Deno.readTextFile(manifestUrl));
  const bin: Record<string, string> = {};
  for (const [command, subpath] of Object.entries(BINS[member.name] ?? {})) {
    const target = manifest.exports[subpath]?.default;
    if (target === undefined) {
      throw new RangeError(
        `Cannot pack ${member.name}: its bin "${command}" names no ${subpath} export`,
      );
    }
    bin[command] = target;
    const file = new URL(target, into);
    const code = await Deno.readTextFile(file);
    // npm's bin runs under node, whatever the source's own `#!` says.
    const body = code.startsWith("#!") ? code.slice(code.indexOf("\n") + 1) : code;
    await Deno.writeTextFile(file, `#!/usr/bin/env node\n${body}`);
  }
  const complete = {
    ...manifest,
    description: `${member.name} ${member.version}, built for Node 20+ by deno task pack`,
    license: "MIT",
    engines: { node: ">=20" },
    ...(Object.keys(bin).length > 0 ? { bin } : {}),
  };
  await Deno.writeTextFile(manifestUrl, JSON.stringify(complete, null, 2) + "\n");
  await Deno.copyFile(new URL("LICENSE", ROOT), new URL("LICENSE", into));
  await Deno.copyFile(new URL("README.md", member.dir), new URL("README.md", into)).catch(() => {});
  const { code, stdout, stderr } = await run(
    "npm",
    ["pack", "--silent", "--pack-destination", DIST.pathname],
    { cwd: into, capture: true },
  );
  if (code !== 0) throw new Error(`Cannot pack ${member.name}: npm pack exited ${code}\n${stderr}`);
  return new URL(stdout.trim().split("\n").at(-1)!, DIST);
}

/** Build and pack every workspace package; resolves with the tarballs. */
export async function pack(): Promise<URL[]> {
  const workspace = await readWorkspace();
  await installTools();
  await clean(DIST);
  await Deno.mkdir(DIST, { recursive: true });
  const tarballs: URL[] = [];
  for (const member of workspace.members) {
    tarballs.push(await packOne(member, workspace));
    console.log(`pack: ${relative(tarballs.at(-1)!)}`);
  }
  return tarballs;
}

/** Install `tarballs` into a fresh Node project and run what a Node user would. */
export async function checkTarballs(tarballs: readonly URL[]): Promise<void> {
  const workspace = await readWorkspace();
  await clean(PROJECT);
  await Deno.mkdir(PROJECT, { recursive: true });
  const manifest = { name: "seam-from-tarballs", private: true, type: "module" };
  await Deno.writeTextFile(new URL("package.json", PROJECT), JSON.stringify(manifest, null, 2));
  console.log(`pack:check: npm install ${tarballs.length} tarballs into ${relative(PROJECT)}`);
  const installed = await run("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    ...tarballs.map((tarball) => tarball.pathname),
  ], { cwd: PROJECT, capture: true });
  if (installed.code !== 0) {
    throw new Error(
      `Cannot install the tarballs: npm exited ${installed.code}\n${installed.stderr}`,
    );
  }
  for (const member of workspace.members) {
    const manifest = JSON.parse(
      await Deno.readTextFile(new URL(`node_modules/${member.name}/package.json`, PROJECT)),
    );
    for (const [name, range] of Object.entries<string>(manifest.dependencies ?? {})) {
      const sibling = workspace.members.find((other) => other.name === name);
      const exact = sibling ? range === sibling.version : /^(npm:.+@)?\d+\.\d+\.\d+$/.test(range);
      if (!exact) {
        throw new Error(
          `Cannot ship ${member.name}: its dependency ${name} is "${range}", not an exact version` +
            (sibling ? ` (the seam packages are at ${sibling.version})` : ""),
        );
      }
    }
  }
  // Every export of every package loads under node and type-checks under tsc.
  const specifiers = workspace.members.flatMap((member) =>
    Object.keys(member.exports).map((subpath) => `${member.name}${subpath.slice(1)}`)
  );
  const imports = specifiers.map((specifier, i) => `import * as m${i} from "${specifier}";`);
  // A package's main entry exports its API (a subpath may be a program, exporting nothing).
  const checks = specifiers.flatMap((specifier, i) =>
    workspace.members.some((member) => member.name === specifier)
      ? [`assert.ok(Object.keys(m${i}).length > 0, "${specifier} exports nothing");`]
      : []
  );
  await Deno.writeTextFile(
    new URL("imports.mjs", PROJECT),
    [`import assert from "node:assert/strict";`, ...imports, ...checks, ""].join("\n"),
  );
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  for (const [heading, file] of Object.entries(README_BLOCKS)) {
    await Deno.writeTextFile(new URL(file, PROJECT), markdownBlock(readme, heading, ["js"]).code);
  }
  const programs = ["imports.mjs", ...Object.values(README_BLOCKS)];
  console.log(`pack:check: tsc --strict ${programs.join(" ")}`);
  await typeCheckProject(programs, PROJECT);
  for (const program of programs) {
    console.log(`pack:check: node ${program}`);
    await run("node", [program], { cwd: PROJECT });
  }
  // Every executable answers its --help, as npm linked it.
  for (const [name, bins] of Object.entries(BINS)) {
    if (!workspace.members.some((member) => member.name === name)) continue;
    for (const command of Object.keys(bins)) {
      console.log(`pack:check: node_modules/.bin/${command} --help`);
      const bin = new URL(`node_modules/.bin/${command}`, PROJECT).pathname;
      const help = await run(bin, ["--help"], { cwd: PROJECT, capture: true });
      if (help.code !== 0 || !help.stdout.includes(`usage: ${command}`)) {
        throw new Error(
          `Cannot run ${command} from the tarball: exit ${help.code}\n${help.stdout}${help.stderr}`,
        );
      }
    }
  }
  if (BINS["@seam/cli"] && workspace.members.some((member) => member.name === "@seam/cli")) {
    await sendFromNode();
  }
  console.log(
    `pack:check: ok (${specifiers.length} entries of ${workspace.members.length} packages)`,
  );
}

/**
 * The installed `seam` under Node delegates to a gateway: `seam serve` from
 * this checkout (Deno) on a free loopback port, `node_modules/.bin/seam
 * send` from the project (Node) streaming its answer.
 */
async function sendFromNode(): Promise<void> {
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "cli/main.ts", "serve", "--host", "127.0.0.1", "--port", "0"],
    cwd: ROOT,
    env: { DATABASE_URL: "", SEAM_GATEWAY_TOKEN: "", DEEPSEEK_API_KEY: "", OPENAI_API_KEY: "" },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let banner = "";
    const deadline = Date.now() + 30_000;
    while (!/listening on (http:\/\/\S+)/.test(banner)) {
      const { value, done } = await reader.read();
      if (done || Date.now() > deadline) throw new Error(`Cannot start seam serve: ${banner}`);
      banner += value;
    }
    await reader.cancel(); // the rest of the banner is not needed
    const url = /listening on (http:\/\/\S+)/.exec(banner)![1];
    console.log(`pack:check: node_modules/.bin/seam send ${url} (under node)`);
    const bin = new URL("node_modules/.bin/seam", PROJECT).pathname;
    const sent = await run(bin, ["send", url, "@reply hello from the tarball"], {
      cwd: PROJECT,
      capture: true,
    });
    if (sent.code !== 0 || sent.stdout !== "hello from the tarball\n") {
      throw new Error(`Cannot send from node: exit ${sent.code}\n${sent.stdout}${sent.stderr}`);
    }
  } finally {
    server.kill("SIGTERM");
    await server.status;
  }
}

if (import.meta.main) {
  const known = ["--check"];
  const unknown = Deno.args.find((arg) => !known.includes(arg));
  if (unknown !== undefined) {
    console.error(`pack: unknown option ${unknown} (known: ${known.join(", ")})`);
    Deno.exit(2);
  }
  const tarballs = await pack();
  if (Deno.args.includes("--check")) await checkTarballs(tarballs);
}
