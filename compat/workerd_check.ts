/**
 * `deno task check:workerd`: each workerd entry (a module whose default
 * export is `{fetch}`, the README's edge entry) runs in real workerd, the
 * runtime of Cloudflare Workers, through Miniflare: bundled as Wrangler
 * would (`deno bundle --platform browser`), loaded without `nodejs_compat`,
 * its agent card fetched, a `SendMessage` sent, and a completed task with
 * the text sent expected back. Beside `check:edge`, whose sandbox only
 * imitates what workerd refuses at global scope, this is workerd itself.
 *
 * Miniflare (and the workerd binary it ships, an npm package) is installed
 * with `npm` from `compat/workerd/package.json` into `compat/.out/workerd/`
 * on first use. Needs Node 20+ and npm.
 *
 * Usage: `deno run --allow-read --allow-write=compat/.out --allow-run --allow-env
 * compat/workerd_check.ts [entry...]` (an entry as for `check:edge`); with
 * none, it checks {@linkcode WORKERD_ENTRIES}. Exits 1 if any failed.
 *
 * @module
 */
import { WORKERD_ENTRIES } from "./targets.ts";
import { deno, materializeEntry, OUT, readWorkspace, relative, ROOT, run } from "./_workspace.ts";

const DIR = new URL("workerd/", OUT);
const DRIVER = new URL("compat/workerd/drive.mjs", ROOT);

/** Install Miniflare into `compat/.out/workerd/` unless the pinned version is there. */
async function installMiniflare(): Promise<void> {
  const manifest = await Deno.readTextFile(new URL("compat/workerd/package.json", ROOT));
  const wanted = JSON.parse(manifest).dependencies.miniflare;
  const installed = await Deno.readTextFile(new URL("node_modules/miniflare/package.json", DIR))
    .then((text) => JSON.parse(text).version, () => undefined);
  if (installed === wanted) return;
  await Deno.mkdir(DIR, { recursive: true });
  await Deno.writeTextFile(new URL("package.json", DIR), manifest);
  await Deno.copyFile(DRIVER, new URL("drive.mjs", DIR));
  console.log(`check:workerd: npm install miniflare@${wanted}`);
  const result = await run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error"],
    { cwd: DIR, capture: true },
  );
  if (result.code !== 0) {
    throw new Error(`Cannot install Miniflare: npm exited ${result.code}\n${result.stderr}`);
  }
}

/** Run `file` in workerd; resolves with what went wrong (empty when nothing). */
export async function checkWorkerdEntry(file: URL, text: string): Promise<string[]> {
  const bundle = new URL(`${crypto.randomUUID()}.js`, DIR);
  const bundled = await deno(
    ["bundle", "--quiet", "--platform", "browser", "-o", relative(bundle), relative(file)],
    { capture: true },
  );
  if (bundled.code !== 0) return [`deno bundle failed:\n${bundled.stderr.trim()}`];
  try {
    await Deno.copyFile(DRIVER, new URL("drive.mjs", DIR));
    const driven = await run("node", ["drive.mjs", bundle.pathname, text], {
      cwd: DIR,
      capture: true,
    });
    const line = driven.stdout.trim().split("\n").at(-1) ?? "";
    let report: { problems?: string[] };
    try {
      report = JSON.parse(line);
    } catch {
      return [`the Miniflare driver exited ${driven.code}: ${driven.stdout}${driven.stderr}`];
    }
    return report.problems ?? [];
  } finally {
    await Deno.remove(bundle).catch(() => {});
  }
}

async function main(): Promise<void> {
  await installMiniflare();
  const workspace = await readWorkspace();
  const entries = Deno.args.length > 0 ? Deno.args : WORKERD_ENTRIES;
  let failed = false;
  for (const entry of entries) {
    const text = `Hello from workerd (${entry})`;
    const problems = await checkWorkerdEntry(await materializeEntry(workspace, entry), text);
    if (problems.length === 0) {
      console.log(`check:workerd: ok ${entry} (agent card, SendMessage → TASK_STATE_COMPLETED)`);
    } else {
      failed = true;
      console.error(`check:workerd: FAIL ${entry}`);
      for (const problem of problems) console.error(`  - ${problem}`);
    }
  }
  if (failed) Deno.exit(1);
}

if (import.meta.main) await main();
