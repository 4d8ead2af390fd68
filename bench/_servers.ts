// Start one server of bench/gateway_load_server.ts in its own process.
const SERVER = new URL("./gateway_load_server.ts", import.meta.url).pathname;

/**
 * Start a `kind` server on a free port; answers its URL and how to stop it.
 * `kind@dir` runs the server of another checkout at `dir` (a before/after
 * pair in one run: `--only=gateway,gateway@/tmp/before`).
 */
export async function startServer(
  kind: string,
): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", ...serverOf(kind), "0"],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let port: number | undefined;
  while (port === undefined) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the ${kind} server exited before it was ready`);
    buffer += value;
    const match = /ready (\d+)/.exec(buffer);
    if (match) port = Number(match[1]);
  }
  // Keep draining its output so it never blocks on a full pipe.
  const drain = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      await drain.catch(() => {});
    },
  };
}

function serverOf(kind: string): string[] {
  const at = kind.indexOf("@");
  if (at === -1) return [SERVER, kind];
  const dir = kind.slice(at + 1);
  return ["--config", `${dir}/deno.json`, `${dir}/bench/gateway_load_server.ts`, kind.slice(0, at)];
}
