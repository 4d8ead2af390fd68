/** Server processes the tests started, noted by pid in a directory (`MCP_PID_DIR`). */
import { mkdirSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import process from "node:process";

// Under tests/.out: the only place `deno task test` may write (node:fs, so that Node runs it too).
const OUT = new URL("../tests/.out/", import.meta.url).pathname;

/** A directory the test servers note their pids in. */
export class PidDir implements AsyncDisposable {
  readonly path: string = (mkdirSync(OUT, { recursive: true }), mkdtempSync(`${OUT}seam-mcp-`));

  /** Pids noted so far. */
  pids(): number[] {
    return readdirSync(this.path)
      .map((name) => Number(name))
      .filter((n) => Number.isSafeInteger(n) && n > 0);
  }

  /** Those still running (or not yet reaped). */
  live(): number[] {
    return this.pids().filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
  }

  /** Whether `name` was written. */
  has(name: string): boolean {
    try {
      statSync(`${this.path}/${name}`);
      return true;
    } catch {
      return false;
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return rm(this.path, { recursive: true });
  }
}
