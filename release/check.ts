/**
 * `deno task release:check`: the release is consistent. Every package of the
 * root `deno.json` workspace carries the same version (one version for all,
 * semver), `@seam/host`'s `SEAM_VERSION` (`host/version.ts`, where the
 * workspace has one) says it too, and `CHANGELOG.md` has a section for it (`## [x.y.z] - date`, as
 * Keep a Changelog writes it). With `--tag vX.Y.Z` (the publish workflow
 * passes the pushed tag) the tag must name that version too.
 *
 * Prints each problem and exits 1; prints the version and exits 0 when there
 * is none. The packages come from the workspace, never from a list kept here,
 * so a new package is checked without an edit.
 *
 * Usage: `deno run --allow-read release/check.ts [--root DIR] [--tag vX.Y.Z]`
 *
 * @module
 */
import { readWorkspace, ROOT } from "../compat/_workspace.ts";

/** A reason the release is not consistent, with a stable code. */
export interface ReleaseProblem {
  readonly code:
    | "VERSION_MISMATCH"
    | "VERSION_INVALID"
    | "CHANGELOG_MISSING"
    | "TAG_MISMATCH"
    | "CONSTANT_STALE";
  readonly message: string;
}

/** What {@linkcode checkRelease} found: the one version (when they agree) and the problems. */
export interface ReleaseCheck {
  readonly version: string | undefined;
  readonly packages: readonly string[];
  readonly problems: readonly ReleaseProblem[];
}

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Check the workspace at `root` (a folder URL ending in `/`); `tag` is a pushed tag, if any. */
export async function checkRelease(root: URL, tag?: string): Promise<ReleaseCheck> {
  const workspace = await readWorkspace(root);
  const problems: ReleaseProblem[] = [];
  const byVersion = new Map<string, string[]>();
  for (const member of workspace.members) {
    byVersion.set(member.version, [...byVersion.get(member.version) ?? [], member.name]);
  }
  const versions = [...byVersion.keys()];
  if (versions.length > 1) {
    const groups = versions.map((version) => `${version}: ${byVersion.get(version)!.join(", ")}`);
    problems.push({
      code: "VERSION_MISMATCH",
      message: `Cannot release: the packages' versions disagree (${
        groups.join("; ")
      }); set the same "version" in every package's deno.json`,
    });
  }
  const version = versions.length === 1 ? versions[0] : undefined;
  if (version !== undefined && !SEMVER.test(version)) {
    problems.push({
      code: "VERSION_INVALID",
      message: `Cannot release: version "${version}" is not semver (MAJOR.MINOR.PATCH)`,
    });
  }
  if (version !== undefined) {
    const changelog = await Deno.readTextFile(new URL("CHANGELOG.md", root)).catch(() => undefined);
    const escaped = version.replaceAll(".", "\\.");
    if (changelog === undefined) {
      problems.push({
        code: "CHANGELOG_MISSING",
        message: `Cannot release ${version}: there is no CHANGELOG.md at the workspace root`,
      });
    } else if (!new RegExp(`^## \\[${escaped}\\]`, "m").test(changelog)) {
      problems.push({
        code: "CHANGELOG_MISSING",
        message: `Cannot release ${version}: CHANGELOG.md has no "## [${version}] - YYYY-MM-DD" ` +
          `section; move the [Unreleased] entries under one`,
      });
    }
    const constant = await Deno.readTextFile(new URL("host/version.ts", root)).catch(() =>
      undefined
    );
    const stated = constant?.match(/SEAM_VERSION: string = "([^"]*)"/)?.[1];
    if (constant !== undefined && stated !== version) {
      problems.push({
        code: "CONSTANT_STALE",
        message: `Cannot release ${version}: host/version.ts says SEAM_VERSION is ${
          stated === undefined ? "nothing this check can read" : `"${stated}"`
        }; set it to "${version}"`,
      });
    }
    if (tag !== undefined && tag !== `v${version}`) {
      problems.push({
        code: "TAG_MISMATCH",
        message: `Cannot release tag "${tag}": the packages are at ${version} (tag v${version})`,
      });
    }
  }
  return { version, packages: workspace.members.map((member) => member.name), problems };
}

function parseArgs(args: readonly string[]): { root: URL; tag?: string } {
  let root = ROOT;
  let tag: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1];
    if ((args[i] === "--root" || args[i] === "--tag") && value === undefined) {
      throw new RangeError(`Cannot parse ${args[i]}: it needs a value`);
    }
    if (args[i] === "--root") {
      root = new URL(`${value.replace(/\/?$/, "/")}`, `file://${Deno.cwd()}/`);
    } else if (args[i] === "--tag") tag = value;
    else throw new RangeError(`unknown option ${args[i]} (known: --root, --tag)`);
    i++;
  }
  return { root, tag };
}

if (import.meta.main) {
  const { root, tag } = parseArgs(Deno.args);
  const { version, packages, problems } = await checkRelease(root, tag);
  for (const problem of problems) console.error(`release:check: ${problem.message}`);
  if (problems.length > 0) Deno.exit(1);
  console.log(`release:check: ${packages.length} packages at ${version}, CHANGELOG.md has it`);
}
