// An npm package's executable for the tests that run a real agent CLI
// (codex, codex-acp), offline after the first run: installed with npm into
// tests/.out on first use (Deno's npm resolution cannot install a package's
// per-platform binary). Without npm or its registry the caller skips, and
// this says why on stderr.

const OUT = new URL("./.out/", import.meta.url).pathname;

/** Where `npmBin(…, dir)` installs: every process of it has this in its command line. */
export function npmBinDir(dir: string): string {
  return `${OUT}${dir}/`;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * The executable `bin` of npm package `spec` (`name@version`), installed
 * into tests/.out/`dir` when missing; `undefined` when it cannot be.
 */
export async function npmBin(spec: string, dir: string, bin: string): Promise<string | undefined> {
  const prefix = npmBinDir(dir);
  const path = `${prefix}node_modules/.bin/${bin}`;
  if (isFile(path)) return path;
  let why = "npm install failed";
  try {
    await Deno.mkdir(prefix, { recursive: true });
    const { success, stderr } = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--prefix", prefix, spec],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (success && isFile(path)) return path;
    why = new TextDecoder().decode(stderr).trim().split("\n").at(-1) || why;
  } catch (error) {
    why = `no npm (${error instanceof Error ? error.message : error})`;
  }
  console.warn(`${spec} could not be installed (${why}): the tests that run it are skipped`);
  return undefined;
}
