// A script of this repository in a Deno process of its own, under the root
// deno.json (its import map), with only the permissions the caller names.

/** The root deno.json: a spawned script resolves `@seam/*` and `npm:` through it. */
const CONFIG = new URL("../deno.json", import.meta.url).pathname;

/**
 * `deno run --quiet --config deno.json <permissions> <script> <args>`, spawned;
 * stdin, stdout and stderr piped unless `stdio` says otherwise.
 */
export function spawnDenoScript(
  script: string,
  permissions: readonly string[],
  args: readonly string[] = [],
  stdio: Pick<Deno.CommandOptions, "stdin" | "stdout" | "stderr"> = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--config", CONFIG, ...permissions, script, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    ...stdio,
  }).spawn();
}
