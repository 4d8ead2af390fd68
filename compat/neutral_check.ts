/**
 * `deno task check:neutral`: the runtime-neutral entries stay runtime-neutral.
 *
 * 1. **Types without Deno.** `deno check` of the entries under a generated
 *    config whose `lib` is `["es2023", "webworker"]`: web APIs only, no
 *    `deno.ns` (a stray `Deno.*` is a type error), and no built-in newer than
 *    ES2023, the level of Node 20 (`Promise.withResolvers` is an error).
 * 2. **No Node or remote modules.** Their module graph (`deno info`) holds no
 *    `node:` import and nothing from `jsr:` or `http(s):` (npm packages are
 *    fine: JSR's npm compatibility and bundlers carry them).
 * 3. **No permissions.** A script importing every entry by its JSR name runs
 *    under `deno run --no-prompt` with no `--allow-*` flag: nothing reads the
 *    environment, the file system or the network while being imported.
 *
 * Usage: `deno run --allow-read --allow-write --allow-run compat/neutral_check.ts [entry...]`,
 * an entry being a JSR specifier of a workspace member or a path from the
 * repository root; with none, it checks {@linkcode NEUTRAL_ENTRIES}. The
 * generated config and script live in a temporary folder, removed at the end.
 *
 * @module
 */
import { NEUTRAL_ENTRIES } from "./targets.ts";
import { deno, relative, resolveEntry, ROOT, type Workspace } from "./_workspace.ts";
import { readWorkspace } from "./_workspace.ts";

/** The `lib` of the neutral type check: the web platform and ES2023, nothing of Deno. */
export const NEUTRAL_LIB: readonly string[] = ["es2023", "webworker"];

/** A config mapping every member export (and the root imports) to files, with {@linkcode NEUTRAL_LIB}. */
export function neutralConfig(workspace: Workspace): string {
  const imports: Record<string, string> = {};
  for (const [name, target] of Object.entries(workspace.imports)) {
    imports[name] = target.startsWith("./") ? new URL(target, ROOT).href : target;
  }
  for (const member of workspace.members) {
    for (const [subpath, file] of Object.entries(member.exports)) {
      imports[`${member.name}${subpath.slice(1)}`] = new URL(file, member.dir).href;
    }
  }
  return JSON.stringify({ compilerOptions: { lib: NEUTRAL_LIB }, imports }, null, 2);
}

/** One failed part of the check, with the tool output that shows why. */
export interface Failure {
  readonly part: "types" | "graph" | "permissions";
  readonly detail: string;
}

/** Run the three parts over `entries`; resolves with what failed (empty: all passed). */
export async function checkNeutral(
  workspace: Workspace,
  entries: readonly string[],
): Promise<Failure[]> {
  const files = entries.map((entry) => resolveEntry(workspace, entry));
  const dir = await Deno.makeTempDir({ prefix: "seam-neutral-" });
  const failures: Failure[] = [];
  try {
    const config = `${dir}/deno.json`;
    await Deno.writeTextFile(config, neutralConfig(workspace));

    const types = await deno(
      ["check", "--quiet", "--config", config, "--no-lock", ...files.map(relative)],
      { capture: true },
    );
    if (types.code !== 0) failures.push({ part: "types", detail: types.stderr + types.stdout });

    for (const file of files) {
      const info = await deno(["info", "--json", relative(file)], { capture: true });
      if (info.code !== 0) {
        failures.push({ part: "graph", detail: info.stderr });
        continue;
      }
      const graph = JSON.parse(info.stdout) as {
        modules: { specifier: string; dependencies?: { specifier: string }[] }[];
      };
      for (const module of graph.modules) {
        if (/^(jsr|https?):/.test(module.specifier)) {
          failures.push({ part: "graph", detail: `${relative(file)} loads ${module.specifier}` });
        }
        for (const dependency of module.dependencies ?? []) {
          if (dependency.specifier.startsWith("node:")) {
            const from = module.specifier.startsWith(ROOT.href)
              ? module.specifier.slice(ROOT.href.length)
              : module.specifier;
            failures.push({
              part: "graph",
              detail: `${from} imports ${dependency.specifier}`,
            });
          }
        }
      }
    }

    const script = `${dir}/import_all.ts`;
    await Deno.writeTextFile(
      script,
      files.map((file, i) => `import * as m${i} from "${file.href}";\n`).join("") +
        `const modules: Record<string, object> = {${
          entries.map((entry, i) => `${JSON.stringify(entry)}: m${i}`).join(", ")
        }};\n` +
        "for (const [name, module] of Object.entries(modules)) {\n" +
        "  if (Object.keys(module).length === 0) throw new Error(`${name} exports nothing`);\n" +
        "}\n",
    );
    const imported = await deno(
      ["run", "--no-prompt", "--quiet", "--config", config, "--no-lock", script],
      { capture: true },
    );
    if (imported.code !== 0) {
      failures.push({ part: "permissions", detail: imported.stderr + imported.stdout });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return failures;
}

async function main(): Promise<void> {
  const entries = Deno.args.length > 0 ? Deno.args : NEUTRAL_ENTRIES;
  const failures = await checkNeutral(await readWorkspace(), entries);
  if (failures.length === 0) {
    console.log(
      `check:neutral: ok ${entries.join(", ")} (lib ${NEUTRAL_LIB.join(" + ")}; ` +
        "no node:, jsr: or remote imports; imported with no permissions)",
    );
    return;
  }
  const why = {
    types: `do not type-check with lib ${NEUTRAL_LIB.join(" + ")} (a Deno.* API, or a built-in ` +
      "newer than ES2023, the level of Node 20?)",
    graph: "import a Node built-in or a remote module",
    permissions: "need a permission while being imported (no --allow-* flag was given)",
  };
  for (const failure of failures) {
    console.error(`check:neutral: FAIL the runtime-neutral entries ${why[failure.part]}`);
    console.error(failure.detail.trim().replace(/^/gm, "  "));
  }
  Deno.exit(1);
}

if (import.meta.main) await main();
