// A program that forgets to dispose a live ACP run (and its provider, and
// its scope) still exits: an agent with no request outstanding does not
// hold the event loop, and its process group is torn down when the program
// ends (stdin EOF, then the supervisor's SIGTERM and SIGKILL).
import assert from "node:assert/strict";
import { processTable, TEST_AGENT } from "./acp_support.ts";
import { spawnDenoScript } from "./spawn_support.ts";

const PROGRAM = new URL("./testdata/acp_forgotten_run.ts", import.meta.url).pathname;
/** Generous for a loaded machine: without the fix the program never exits. */
const EXIT_BOUND_MS = 30_000;

/** Run the program; its stdout, or a failure when it does not exit within the bound. */
async function runProgram(args: readonly string[]): Promise<string> {
  const child = spawnDenoScript(PROGRAM, ["--allow-env", "--allow-run", "--allow-read"], args, {
    stdin: "inherit",
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, EXIT_BOUND_MS);
  const { code, stdout, stderr } = await child.output();
  clearTimeout(timer);
  const out = new TextDecoder().decode(stdout);
  const err = new TextDecoder().decode(stderr);
  assert.ok(!timedOut, `the program did not exit within ${EXIT_BOUND_MS} ms:\n${out}\n${err}`);
  assert.equal(code, 0, err);
  return out;
}

/** Test agents among `pids` still running (not zombies), polled for up to `ms`. */
async function survivors(pids: readonly number[], ms: number): Promise<number[]> {
  const until = performance.now() + ms;
  for (;;) {
    const live = (await processTable())
      .filter((p) => pids.includes(p.pid) && !p.stat.startsWith("Z"))
      .filter((p) => p.args.includes(TEST_AGENT))
      .map((p) => p.pid);
    if (live.length === 0 || performance.now() > until) return live;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (
  const [name, args, agents] of [
    ["an undisposed run", ["run"], 1],
    ["an undisposed run whose agent ignores stdin EOF", ["run", "--ignore-eof"], 1],
    ["an undisposed provider with a warm pool", ["pool"], 3],
  ] as const
) {
  Deno.test(`a program that forgets ${name} exits, leaving no agent behind`, async () => {
    const out = await runProgram(args);
    const [answer, pidLine] = out.trim().split("\n");
    assert.equal(answer, "hello, then forgotten");
    const pids = JSON.parse(pidLine) as number[];
    assert.equal(pids.length, agents);
    // The supervisor's grace (disposeGraceMs, 500 ms here) plus slack.
    assert.deepEqual(await survivors(pids, 10_000), [], "agents left behind");
  });
}
