#!/usr/bin/env -S deno run --allow-all
/**
 * The `seam` executable: `deno install -g -A -n seam jsr:@seam/cli/main`
 * (or, in a checkout, `deno install -g -A -n seam --config deno.json
 * cli/main.ts`), or the `bin` of the `@seam/cli` npm tarball. Runs
 * {@linkcode runCli} with the command line and exits with its status;
 * importing it runs nothing.
 *
 * @module
 */
import process from "node:process";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runCli } from "./cli.ts";

/** Whether this module is the program (Deno says so; Node: the script run is this file). */
function isProgram(): boolean {
  if ("Deno" in globalThis) return import.meta.main;
  const script = process.argv[1];
  try {
    return script !== undefined && realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isProgram()) {
  const code = await runCli(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`seam: ${error instanceof Error ? error.stack : error}\n`);
    return 1;
  });
  // Everything was disposed: exit now, whatever still reads stdin.
  process.exit(code);
}
