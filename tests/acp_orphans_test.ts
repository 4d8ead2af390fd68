// No orphans, ever: an agent's process group ends with the host that started
// it, however the host dies, and a descendant that left the group
// (`setsid cmd &`) is ended at dispose too.
import assert from "node:assert/strict";
import {
  liveMembers,
  processTable,
  startHostFixture,
  TEST_AGENT,
  timed,
  until,
  untilGone,
  withAcpAgent,
} from "./acp_support.ts";

/** How long the agents may outlive their host (the supervisor's 0.5 s grace + slack). */
const BOUND_MS = 10_000;

/** What the agent's and its grandchild's command lines hold. */
const MARKS = [TEST_AGENT, "process.on('SIGTERM'"];
/** The pids among `pids` (and members of their groups) still running the test agent's code. */
const running = (pids: readonly number[]) => liveMembers(pids, MARKS);

for (const signal of ["SIGKILL", "SIGTERM"] as const) {
  Deno.test(`createAcpProvider() ends its agents' process groups when the host gets ${signal}`, async () => {
    // The agent ignores EOF and traps SIGTERM; its grandchild traps SIGTERM too.
    const { host, pids, text, stop } = await startHostFixture([
      "--ignore-eof",
      "--trap-sigterm",
      "--grandchild",
    ]);
    try {
      assert.equal(pids.length, 2, `the host printed: ${text}`);
      assert.deepEqual((await running(pids)).sort(), [...pids].sort());
      host.kill(signal);
      assert.equal((await host.status).signal, signal);
      let left: number[] = [];
      const ms = await timed(async () => left = await untilGone(pids, MARKS, BOUND_MS));
      assert.deepEqual(left, [], `still running ${ms.toFixed(0)} ms after the host died`);
    } finally {
      for (const pid of await running(pids)) Deno.kill(pid, "SIGKILL");
      await stop();
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
