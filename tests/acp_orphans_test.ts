// No orphans, ever: an agent's process group ends with the host that started
// it, however the host dies, and a descendant that left the group
// (`setsid cmd &`) is ended at dispose too.
import assert from "node:assert/strict";
import { processTable, TEST_AGENT, timed, until, withAcpAgent } from "./acp_support.ts";

const FIXTURE = new URL("./acp_host_fixture.ts", import.meta.url).pathname;
const CONFIG = new URL("../deno.json", import.meta.url).pathname;
/** How long the agents may outlive their host (the supervisor's 0.5 s grace + slack). */
const BOUND_MS = 10_000;

/** Start a host (`acp_host_fixture.ts`) whose run's agent has `flags`; its pids once ready. */
async function startHost(flags: string[]) {
  const host = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--config",
      CONFIG,
      "--allow-env",
      "--allow-read",
      "--allow-run",
      FIXTURE,
      ...flags,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = host.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const pids: number[] = [];
  let text = "";
  while (!text.includes("ready\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  for (const match of text.matchAll(/^(?:agent|grandchild) (\d+)$/gm)) pids.push(Number(match[1]));
  return { host, pids, reader, text };
}

/** The pids among `pids` (and members of their groups) still running the test agent's code. */
async function running(pids: readonly number[]): Promise<number[]> {
  return (await processTable())
    .filter((p) =>
      !p.stat.startsWith("Z") && (pids.includes(p.pid) || pids.includes(p.pgid)) &&
      (p.args.includes(TEST_AGENT) || p.args.includes("process.on('SIGTERM'"))
    )
    .map((p) => p.pid);
}

for (const signal of ["SIGKILL", "SIGTERM"] as const) {
  Deno.test(`createAcpProvider() ends its agents' process groups when the host gets ${signal}`, async () => {
    // The agent ignores EOF and traps SIGTERM; its grandchild traps SIGTERM too.
    const { host, pids, reader, text } = await startHost([
      "--ignore-eof",
      "--trap-sigterm",
      "--grandchild",
    ]);
    try {
      assert.equal(pids.length, 2, `the host printed: ${text}`);
      assert.deepEqual((await running(pids)).sort(), [...pids].sort());
      host.kill(signal);
      assert.equal((await host.status).signal, signal);
      const ms = await timed(async () => {
        const deadline = performance.now() + BOUND_MS;
        while ((await running(pids)).length > 0 && performance.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      });
      const left = await running(pids);
      assert.deepEqual(left, [], `still running ${ms.toFixed(0)} ms after the host died`);
    } finally {
      for (const pid of await running(pids)) Deno.kill(pid, "SIGKILL");
      await reader.cancel();
      try {
        host.kill("SIGKILL");
      } catch {
        // already gone
      }
      await host.status;
    }
  });
}

Deno.test("createAcpProvider() ends a descendant that left the agent's process group", () =>
  withAcpAgent(
    ["--setsid-grandchild"],
    { disposeEofGraceMs: 300, disposeGraceMs: 300 },
    async (h) => {
      const run = h.start("complete fine");
      assert.equal((await run.result).stopReason, "completed");
      await until(() => h.watch.grandchildren.size === 1, "the grandchild's pid");
      const [grandchild] = h.watch.grandchildren;
      const row = (await processTable()).find((p) => p.pid === grandchild);
      assert.ok(row, "the grandchild runs");
      assert.notEqual(row.pgid, [...h.watch.pids][0], "the grandchild left the agent's group");
      await run.dispose();
      assert.deepEqual(await h.watch.live(), []);
    },
  ));
