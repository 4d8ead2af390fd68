/** Server processes the tests started, noted by pid in a directory (`MCP_PID_DIR`). */
import process from "node:process";

const OUT = new URL("../tests/.out/", import.meta.url).pathname;

/** A directory the test servers note their pids in. */
export class PidDir implements AsyncDisposable {
  // Under tests/.out: the only place `deno task test` may write.
  readonly path = Deno.makeTempDirSync({
    dir: (Deno.mkdirSync(OUT, { recursive: true }), OUT),
    prefix: "seam-mcp-",
  });

  /** Pids noted so far. */
  pids(): number[] {
    return [...Deno.readDirSync(this.path)]
      .map((e) => Number(e.name))
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
      Deno.statSync(`${this.path}/${name}`);
      return true;
    } catch {
      return false;
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return Deno.remove(this.path, { recursive: true });
  }
}
