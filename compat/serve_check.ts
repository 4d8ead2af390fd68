/**
 * `deno task check:serve`: each serve entry (a module whose default export
 * is `{fetch}`) serves under `deno serve` with no permission but the network
 * (`--no-prompt --allow-net=127.0.0.1`, on a free port), and answers a GET of
 * its probe path with a 2xx. Deno Deploy runs the same kind of entry; a
 * module that reads the environment or the file system while being loaded
 * fails here.
 *
 * Usage: `deno run --allow-read --allow-write=compat/.out --allow-run --allow-net=127.0.0.1
 * compat/serve_check.ts [entry=path...]`, an entry being a JSR specifier of a
 * workspace member, a path from the repository root or `README.md#Heading`
 * (the first `ts`/`js` block of that section), and `path` the URL path to
 * probe (default `/`); with none,
 * it checks {@linkcode SERVE_ENTRIES}.
 *
 * @module
 */
import { SERVE_ENTRIES } from "./targets.ts";
import { materializeEntry, readWorkspace, relative } from "./_workspace.ts";

/** How long `deno serve` may take to load the entry and listen. */
const LISTEN_TIMEOUT_MS = 60_000;

/** Serve `file` with no permission but the network, GET `path`; resolves with what went wrong. */
export async function checkServeEntry(file: URL, path: string): Promise<string[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "serve",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      relative(file),
    ],
    cwd: new URL("..", import.meta.url),
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  let announce: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => announce = resolve);
  const drain = (stream: ReadableStream<Uint8Array>) =>
    stream.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({
        write(chunk) {
          output += chunk;
          const match = /Listening on (http:\/\/[^\s/]+)/.exec(output);
          if (match) announce(match[1]);
        },
      }),
    );
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    listening.then((url) => ({ url })),
    child.status.then((status) => ({ exited: status.code })),
    new Promise<{ timeout: true }>((resolve) => {
      timer = setTimeout(() => resolve({ timeout: true }), LISTEN_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  const problems: string[] = [];
  if ("url" in outcome) {
    try {
      const response = await fetch(new URL(path, outcome.url));
      await response.body?.cancel();
      if (!response.ok) problems.push(`GET ${path} answered ${response.status}`);
    } catch (error) {
      problems.push(`GET ${path} failed: ${error instanceof Error ? error.message : error}`);
    }
  } else if ("exited" in outcome) {
    problems.push(`deno serve exited with ${outcome.exited} before listening`);
  } else {
    problems.push(`deno serve did not listen within ${LISTEN_TIMEOUT_MS / 1000} s`);
  }
  try {
    child.kill("SIGTERM");
  } catch {
    // already exited
  }
  await child.status;
  await drained;
  if (problems.length > 0 && output.trim()) problems.push(output.trim());
  return problems;
}

async function main(): Promise<void> {
  const workspace = await readWorkspace();
  const entries: [string, string][] = Deno.args.length > 0
    ? Deno.args.map((arg) => {
      const at = arg.indexOf("=");
      return at === -1 ? [arg, "/"] : [arg.slice(0, at), arg.slice(at + 1)];
    })
    : Object.entries(SERVE_ENTRIES);
  if (entries.length === 0) {
    console.log("check:serve: no serve entries yet (compat/targets.ts, SERVE_ENTRIES)");
    return;
  }
  let failed = false;
  for (const [entry, path] of entries) {
    const problems = await checkServeEntry(await materializeEntry(workspace, entry), path);
    if (problems.length === 0) {
      console.log(`check:serve: ok ${entry} (GET ${path} under deno serve --allow-net=127.0.0.1)`);
    } else {
      failed = true;
      console.error(`check:serve: FAIL ${entry}`);
      for (const problem of problems) console.error(problem.replace(/^/gm, "  "));
    }
  }
  if (failed) {
    console.error(
      "check:serve: a serve entry must load and answer with no permission but the network.",
    );
    Deno.exit(1);
  }
}

if (import.meta.main) await main();
