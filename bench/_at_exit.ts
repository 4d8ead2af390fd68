// `deno bench` calls each case a varying number of times (`warmup` and `n`
// are where it starts, not what it does: a case given n: 10, warmup: 2 ran 38
// times here) and runs no hook after a file's last case. So no case may close
// what a later call needs, or count its calls to find its last one. What a
// bench file opens stays open through all its cases and goes with the
// process: sockets close with it, child processes end on their stdin's EOF,
// and `atExit` runs the synchronous rest (removing a temporary file).

/** Run `cleanup` once as the process exits (`unload`); a throw is reported, not raised. */
export function atExit(cleanup: () => void): void {
  globalThis.addEventListener("unload", () => {
    try {
      cleanup();
    } catch (error) {
      console.error("bench cleanup failed:", error);
    }
  }, { once: true });
}
